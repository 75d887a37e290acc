/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.server.TableRuntime;
import io.firn.server.TableSummary;
import io.firn.server.optimizing.ProcessRecord;
import io.firn.server.optimizing.ProcessStatus;
import io.firn.server.optimizing.TableStateRecord;
import io.firn.server.optimizing.TableStatus;
import io.firn.server.optimizing.TaskRecord;
import io.firn.server.optimizing.TaskStatus;
import io.firn.server.optimizing.WorkerRecord;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

/**
 * The state store on both databases it supports: an embedded H2 file and the real PostgreSQL on
 * 127.0.0.1:5432 (trust auth), in a database this test creates and drops.
 */
class StateStoreTest {
  @TempDir Path dir;

  @ParameterizedTest
  @FieldSource("io.firn.server.store.TestDatabase#KINDS")
  void migratesAndKeepsItsRows(String kind) {
    try (TestDatabase database = TestDatabase.create(kind, dir)) {
      roundTrip(database.url, database.user);
    }
  }

  private static void roundTrip(String url, String user) {
    TableRuntime first =
        new TableRuntime(
            "lake",
            "db.nested",
            "events",
            42L,
            true,
            "2 of 4 partition(s) ...",
            Instant.ofEpochMilli(1_700_000_000_123L),
            61,
            40,
            12,
            3,
            TableSummary.of(9_000_000_000L, 8_000_000_000L, 40, 123_456_789L, 17, 5));
    TableRuntime updated =
        new TableRuntime(
            "lake",
            "db.nested",
            "events",
            43L,
            false,
            "clean",
            Instant.ofEpochMilli(1_700_000_060_000L),
            100,
            4,
            0,
            0,
            TableSummary.of(1_000, 1_000, 4, 10, 2, 1));
    TableRuntime empty =
        new TableRuntime(
            "lake",
            "db",
            "new",
            null,
            false,
            "no snapshot",
            Instant.EPOCH,
            100,
            0,
            0,
            0,
            TableSummary.EMPTY);

    try (StateStore store = StateStore.open(url, user, null)) {
      assertThat(store.schemaVersion()).isEqualTo(Migrations.latest());
      assertThat(store.loadAll()).isEmpty();
      store.save(first);
      store.save(empty);
      assertThat(store.loadAll()).containsExactly(empty, first);
      store.save(updated);
    }
    // Reopening applies no migration twice and finds the rows.
    try (StateStore store = StateStore.open(url, user, null)) {
      assertThat(store.schemaVersion()).isEqualTo(Migrations.latest());
      assertThat(store.loadAll()).containsExactly(empty, updated);
      store.delete("lake", "db", "new");
      assertThat(store.loadAll()).containsExactly(updated);
      assertThat(store.isReachable()).isTrue();

      // Optimizing state, processes, tasks and workers.
      Instant t0 = Instant.ofEpochMilli(1_700_000_100_000L);
      // The optimizing columns; snapshot, evaluation time, health and counts stay the watcher's.
      TableStateRecord state =
          new TableStateRecord(
              "lake",
              "db.nested",
              "events",
              43L,
              true,
              "due",
              updated.evaluatedAt(),
              TableStatus.PARKED,
              t0,
              true,
              "3 failures",
              t0.plusSeconds(3600),
              3,
              "p1",
              100,
              4,
              0,
              0,
              updated.summary());
      store.saveTableState(state);
      assertThat(store.loadTableStates()).singleElement().isEqualTo(state);
      ProcessRecord running =
          new ProcessRecord(
              "p1",
              "lake",
              "db.nested",
              "events",
              "minor",
              "auto",
              ProcessStatus.RUNNING,
              43L,
              2,
              3,
              1000,
              t0,
              null,
              "running",
              0,
              0,
              0,
              0,
              0);
      store.saveProcess(running);
      TaskRecord leased =
          new TaskRecord(
              "p1",
              0,
              "id_bucket=1",
              TaskStatus.LEASED,
              1,
              "p1-t0-a1",
              "w-1",
              4,
              0,
              900,
              t0,
              null,
              "leased",
              0,
              0,
              0);
      TaskRecord done =
          new TaskRecord(
              "p1",
              1,
              "id_bucket=2",
              TaskStatus.COMMITTED,
              1,
              "p1-t1-a1",
              "w-1",
              2,
              1,
              100,
              t0,
              t0.plusSeconds(5),
              "committed",
              10,
              9,
              512);
      store.saveTasks(List.of(leased, done));
      assertThat(store.processes(null, null, null, 10)).containsExactly(running);
      assertThat(store.processes("lake", "db.nested", "events", 10)).containsExactly(running);
      assertThat(store.processes("lake", "db", "other", 10)).isEmpty();
      assertThat(store.tasks("p1")).containsExactly(leased, done);
      assertThat(store.failRunningProcesses("server restarted", t0.plusSeconds(60))).isEqualTo(1);
      assertThat(store.process("p1"))
          .extracting(ProcessRecord::status, ProcessRecord::message, ProcessRecord::finishedAt)
          .containsExactly(ProcessStatus.FAILED, "server restarted", t0.plusSeconds(60));
      assertThat(store.tasks("p1"))
          .extracting(TaskRecord::status)
          .containsExactly(TaskStatus.CANCELLED, TaskStatus.COMMITTED);
      WorkerRecord worker =
          new WorkerRecord("w-1", "local@h", "default", 2, "local", "dev", t0, t0, 0);
      store.saveWorker(worker);
      store.deleteWorker("w-1");
    }
  }
}
