/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dropwizard.testing.junit5.ResourceExtension;
import io.firn.server.TableRuntime;
import io.firn.server.TableSummary;
import io.firn.server.api.ErrorMappers;
import io.firn.server.api.ProcessesResource;
import io.firn.server.optimizing.ProcessRecord;
import io.firn.server.optimizing.ProcessStatus;
import io.firn.server.optimizing.TableStateRecord;
import io.firn.server.optimizing.TableStatus;
import io.firn.server.optimizing.TaskRecord;
import io.firn.server.optimizing.TaskStatus;
import jakarta.ws.rs.core.Response;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

/**
 * Statuses in the store, on H2 and on the machine's PostgreSQL: every value of each status enum is
 * stored as exactly the string the store wrote before the enums (so rows of then read back) and
 * read back as itself; a value no status has is an error that names the table, the row and the
 * value, and the API answers it with 500 and that message.
 */
class StoredStatusTest {
  private static final Instant T0 = Instant.ofEpochMilli(1_700_000_000_000L);

  @TempDir Path dir;

  @ParameterizedTest
  @FieldSource("io.firn.server.store.TestDatabase#KINDS")
  void everyProcessStatusIsStoredAsItsLabelAndReadBack(String kind) throws Exception {
    try (TestDatabase database = TestDatabase.create(kind, dir);
        StateStore store = database.open()) {
      for (ProcessStatus status : ProcessStatus.values()) {
        store.saveProcess(process("p" + status.ordinal(), status));
      }
      assertThat(store.flush(Duration.ofSeconds(10))).isTrue();
      assertThat(column(database, "SELECT status FROM optimizing_process ORDER BY process_id"))
          .containsExactly("running", "succeeded", "partial", "failed", "cancelled");
      for (ProcessStatus status : ProcessStatus.values()) {
        assertThat(store.process("p" + status.ordinal()).status()).isEqualTo(status);
      }
      assertThat(store.processes(null, null, null, 100))
          .extracting(ProcessRecord::status)
          .containsExactlyInAnyOrder(ProcessStatus.values());
    }
  }

  @ParameterizedTest
  @FieldSource("io.firn.server.store.TestDatabase#KINDS")
  void everyTaskStatusIsStoredAsItsLabelAndReadBack(String kind) throws Exception {
    try (TestDatabase database = TestDatabase.create(kind, dir);
        StateStore store = database.open()) {
      store.saveTasks(
          Arrays.stream(TaskStatus.values()).map(s -> task("p1", s.ordinal(), s)).toList());
      assertThat(store.flush(Duration.ofSeconds(10))).isTrue();
      assertThat(column(database, "SELECT status FROM optimizing_task ORDER BY task_number"))
          .containsExactly("pending", "leased", "succeeded", "committed", "failed", "cancelled");
      assertThat(store.tasks("p1"))
          .extracting(TaskRecord::status)
          .containsExactly(TaskStatus.values());
    }
  }

  @ParameterizedTest
  @FieldSource("io.firn.server.store.TestDatabase#KINDS")
  void everyTableStatusIsStoredAsItsLabelAndReadBack(String kind) throws Exception {
    try (TestDatabase database = TestDatabase.create(kind, dir);
        StateStore store = database.open()) {
      for (TableStatus status : TableStatus.values()) {
        String table = "t" + status.ordinal();
        store.save(runtime(table));
        store.saveTableState(state(table, status));
      }
      assertThat(store.flush(Duration.ofSeconds(10))).isTrue();
      assertThat(column(database, "SELECT state FROM table_runtime ORDER BY table_name"))
          .containsExactly("idle", "pending", "planning", "optimizing", "committing", "parked");
      assertThat(store.loadTableStates())
          .extracting(TableStateRecord::status)
          .containsExactly(TableStatus.values());
    }
  }

  @ParameterizedTest
  @FieldSource("io.firn.server.store.TestDatabase#KINDS")
  void anUnknownStoredStatusIsAnErrorNamingTheTableTheRowAndTheValue(String kind) throws Exception {
    try (TestDatabase database = TestDatabase.create(kind, dir);
        StateStore store = database.open()) {
      store.saveProcess(process("p1", ProcessStatus.RUNNING));
      store.saveTasks(List.of(task("p1", 0, TaskStatus.PENDING)));
      store.save(runtime("t0"));
      store.saveTableState(state("t0", TableStatus.IDLE));
      assertThat(store.flush(Duration.ofSeconds(10))).isTrue();
      // What a newer version, or a hand, could leave.
      database.execute(
          "UPDATE optimizing_process SET status = 'paused' WHERE process_id = 'p1'",
          "UPDATE optimizing_task SET status = 'exploded' WHERE process_id = 'p1'",
          "UPDATE table_runtime SET state = 'frozen' WHERE table_name = 't0'");

      String process =
          "state store: the optimizing_process row (process_id p1) has status = 'paused', which"
              + " this version of Firn does not know (it knows running, succeeded, partial,"
              + " failed, cancelled); was the database written by a newer version of Firn, or"
              + " edited?";
      assertThatThrownBy(() -> store.process("p1"))
          .isInstanceOf(UnknownStoredValueException.class)
          .hasMessage(process);
      assertThatThrownBy(() -> store.processes("lake", "db", "t0", 10)).hasMessage(process);
      assertThatThrownBy(() -> store.tasks("p1"))
          .isInstanceOf(UnknownStoredValueException.class)
          .hasMessageContaining(
              "the optimizing_task row (process_id p1, task_number 0) has status = 'exploded'")
          .hasMessageContaining("it knows pending, leased, succeeded, committed, failed,");
      assertThatThrownBy(store::loadTableStates)
          .isInstanceOf(UnknownStoredValueException.class)
          .hasMessageContaining("the table_runtime row lake.db.t0 has state = 'frozen'")
          .hasMessageContaining("it knows idle, pending, planning, optimizing, committing, parked");
      // The watcher's columns do not need the state; the planner's estimate does without history.
      assertThat(store.loadAll()).extracting(TableRuntime::table).containsExactly("t0");
      assertThat(store.pastProcesses("lake", "db", "t0", 10)).isEmpty();
    }
  }

  @Test
  void theApiAnswersAnUnknownStoredStatusWith500AndTheMessage() throws Throwable {
    try (TestDatabase database = TestDatabase.create("h2", dir);
        StateStore store = database.open()) {
      store.saveProcess(process("p1", ProcessStatus.RUNNING));
      assertThat(store.flush(Duration.ofSeconds(10))).isTrue();
      database.execute("UPDATE optimizing_process SET status = 'paused'");
      ResourceExtension.Builder builder =
          ResourceExtension.builder().addResource(new ProcessesResource(store));
      ErrorMappers.all().forEach(builder::addProvider);
      ResourceExtension api = builder.build();
      api.before();
      try {
        for (String path : List.of("/api/v1/processes", "/api/v1/processes/p1")) {
          Response answer = api.target(path).request().get();
          assertThat(answer.getStatus()).as(path).isEqualTo(500);
          assertThat(answer.readEntity(Map.class))
              .as(path)
              .containsEntry("code", 500)
              .extractingByKey("message")
              .asString()
              .contains("optimizing_process row (process_id p1) has status = 'paused'");
        }
      } finally {
        api.after();
      }
    }
  }

  /** The single column of a query's rows, over a connection of the test's own. */
  private static List<String> column(TestDatabase database, String sql) throws SQLException {
    List<String> values = new ArrayList<>();
    try (Connection c = database.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        values.add(rs.getString(1));
      }
    }
    return values;
  }

  private static ProcessRecord process(String id, ProcessStatus status) {
    return new ProcessRecord(
        id, "lake", "db", "t0", "minor", "auto", status, 1L, 1, 1, 100, T0, null, "", 0, 0, 0, 0,
        0);
  }

  private static TaskRecord task(String process, int number, TaskStatus status) {
    return new TaskRecord(
        process, number, "p=" + number, status, 1, null, null, 1, 0, 100, null, null, "", 0, 0, 0);
  }

  private static TableRuntime runtime(String table) {
    return new TableRuntime(
        "lake", "db", table, 1L, false, "fine", T0, 100, 1, 0, 0, TableSummary.EMPTY);
  }

  private static TableStateRecord state(String table, TableStatus status) {
    return new TableStateRecord(
        "lake",
        "db",
        table,
        1L,
        false,
        "fine",
        T0,
        status,
        T0,
        false,
        null,
        null,
        0,
        null,
        100,
        1,
        0,
        0,
        TableSummary.EMPTY);
  }
}
