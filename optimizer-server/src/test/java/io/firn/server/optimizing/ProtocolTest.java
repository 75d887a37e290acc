/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.dropwizard.util.Duration;
import io.firn.core.commit.TaskResult;
import io.firn.core.protocol.Ack;
import io.firn.core.protocol.FailRequest;
import io.firn.core.protocol.HeartbeatRequest;
import io.firn.core.protocol.PollRequest;
import io.firn.core.protocol.PollResponse;
import io.firn.core.protocol.ProtocolException;
import io.firn.core.protocol.RegisterRequest;
import io.firn.core.protocol.RegisterResponse;
import io.firn.core.protocol.TaskAssignment;
import io.firn.core.protocol.TaskCodec;
import io.firn.core.protocol.UnknownWorkerException;
import io.firn.core.protocol.WorkerProtocol;
import io.firn.testkit.CdcTableSpec;
import io.firn.testkit.RowSets;
import io.firn.worker.executor.RewriteExecutor;
import io.firn.worker.remote.ResultCodec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The worker protocol's rules, driven call by call against the service. */
class ProtocolTest {
  private static final String POLICY = "version: 1\n";
  private static final Instant T0 = Instant.parse("2026-06-01T00:00:00Z");
  private static final CdcTableSpec ONE_PARTITION =
      new CdcTableSpec(2_000, 10, 0.05, 0.02, 0.02, 0, 3L, false, false);

  @TempDir Path dir;

  @Test
  void staleAttemptsAreRejectedExpiredLeasesAreRetriedAndTheLiveAttemptCommits() throws Exception {
    try (ServiceHarness harness =
        new ServiceHarness(dir, POLICY, T0, c -> c.setLease(Duration.seconds(10)))) {
      Map<String, Long> before = RowSets.read(harness.generate("orders", ONE_PARTITION).table());
      harness.evaluate("orders");
      WorkerProtocol server = harness.service;
      RegisterResponse worker = register(server);
      assertThat(worker.leaseMillis()).isEqualTo(10_000);
      assertThat(worker.catalogs()).extracting(c -> c.name()).containsExactly("lake");

      harness.service.tick();
      TaskAssignment first = poll(server, worker);
      assertThat(first.attemptId()).endsWith("-a1");
      assertThat(first.leaseExpiresAtMillis()).isEqualTo(T0.plusSeconds(10).toEpochMilli());

      // Heartbeats extend live leases and tell the worker to drop unknown attempts.
      harness.clock.advance(java.time.Duration.ofSeconds(8));
      assertThat(
              server
                  .heartbeat(
                      new HeartbeatRequest(
                          WorkerProtocol.VERSION,
                          worker.workerId(),
                          worker.workerSecret(),
                          List.of(first.attemptId(), "p-t9-a1")))
                  .abandon())
          .containsExactly("p-t9-a1");
      harness.clock.advance(java.time.Duration.ofSeconds(8));
      harness.service.tick();
      assertThat(harness.store.tasks(first.processId()).get(0).status())
          .isEqualTo(TaskStatus.LEASED);

      // Silence for longer than the lease: the attempt expires and the task is leased again.
      harness.clock.advance(java.time.Duration.ofSeconds(11));
      harness.service.tick();
      harness.clock.advance(java.time.Duration.ofSeconds(1));
      TaskAssignment second = poll(server, worker);
      assertThat(second.taskId()).isEqualTo(first.taskId());
      assertThat(second.attemptId()).endsWith("-a2");

      Table table = harness.table("orders");
      TaskResult stale = run(table, first);
      Ack rejected =
          server.complete(
              ResultCodec.encode(
                  worker.workerId(), worker.workerSecret(), first.attemptId(), table, stale));
      assertThat(rejected.accepted()).isFalse();
      assertThat(rejected.message())
          .isEqualTo(
              "attempt "
                  + first.attemptId()
                  + " is stale: the task was leased again as "
                  + second.attemptId());

      TaskResult live = run(table, second);
      Ack accepted =
          server.complete(
              ResultCodec.encode(
                  worker.workerId(), worker.workerSecret(), second.attemptId(), table, live));
      assertThat(accepted.accepted()).isTrue();
      // A completion whose answer was lost is repeated: accepted again, committed once.
      assertThat(
              server
                  .complete(
                      ResultCodec.encode(
                          worker.workerId(),
                          worker.workerSecret(),
                          second.attemptId(),
                          table,
                          live))
                  .accepted())
          .isTrue();
      await()
          .atMost(30, TimeUnit.SECONDS)
          .until(
              () -> harness.store.process(first.processId()).status() == ProcessStatus.SUCCEEDED);
      assertThat(RowSets.read(harness.table("orders"))).isEqualTo(before);
      assertThat(harness.store.tasks(first.processId()).get(0))
          .extracting(TaskRecord::status, TaskRecord::attempts, TaskRecord::attemptId)
          .containsExactly(TaskStatus.COMMITTED, 2, second.attemptId());
    }
  }

  @Test
  void aWorkerCannotHandInFailOrKeepAliveALeaseItDoesNotHold() throws Exception {
    try (ServiceHarness harness =
        new ServiceHarness(dir, POLICY, T0, c -> c.setLease(Duration.seconds(10)))) {
      Map<String, Long> before = RowSets.read(harness.generate("orders", ONE_PARTITION).table());
      harness.evaluate("orders");
      WorkerProtocol server = harness.service;
      RegisterResponse holder = register(server);
      harness.service.tick();
      TaskAssignment leased = poll(server, holder);
      // Another holder of the worker token: attempt ids are guessable and worker ids are public.
      RegisterResponse other = register(server);
      Table table = harness.table("orders");
      TaskResult real = run(table, leased);
      // Every row "deleted", nothing written: the row arithmetic alone would accept it.
      TaskResult emptied =
          new TaskResult(
              real.taskId(),
              List.of(),
              List.of(),
              real.rowsRead(),
              real.rowsRead(),
              0,
              0,
              real.bytesRead(),
              0,
              0,
              0,
              1);

      assertThatThrownBy(
              () ->
                  server.complete(
                      ResultCodec.encode(
                          holder.workerId(), "guessed", leased.attemptId(), table, emptied)))
          .as("the holder's id without its secret")
          .isInstanceOf(WorkerRefusedException.class)
          .hasMessage(
              "complete: the worker secret of "
                  + holder.workerId()
                  + " does not match; register again");
      assertThatThrownBy(
              () ->
                  server.complete(
                      ResultCodec.encode(holder.workerId(), null, leased.attemptId(), table, real)))
          .isInstanceOf(WorkerRefusedException.class);
      String notYours =
          "attempt " + leased.attemptId() + " is not leased to worker " + other.workerId();
      assertThat(
              server.complete(
                  ResultCodec.encode(
                      other.workerId(), other.workerSecret(), leased.attemptId(), table, emptied)))
          .isEqualTo(Ack.rejected(notYours));
      assertThat(
              server.fail(
                  new FailRequest(
                      WorkerProtocol.VERSION,
                      other.workerId(),
                      other.workerSecret(),
                      leased.attemptId(),
                      "forged")))
          .isEqualTo(Ack.rejected(notYours));
      assertThat(
              server
                  .heartbeat(
                      new HeartbeatRequest(
                          WorkerProtocol.VERSION,
                          other.workerId(),
                          other.workerSecret(),
                          List.of(leased.attemptId())))
                  .abandon())
          .as("another worker's lease is not extended")
          .containsExactly(leased.attemptId());
      assertThat(harness.store.tasks(leased.processId()).get(0))
          .extracting(TaskRecord::status, TaskRecord::attempts, TaskRecord::workerId)
          .containsExactly(TaskStatus.LEASED, 1, holder.workerId());

      assertThat(
              server
                  .complete(
                      ResultCodec.encode(
                          holder.workerId(),
                          holder.workerSecret(),
                          leased.attemptId(),
                          table,
                          real))
                  .accepted())
          .isTrue();
      await()
          .atMost(30, TimeUnit.SECONDS)
          .until(
              () -> harness.store.process(leased.processId()).status() == ProcessStatus.SUCCEEDED);
      assertThat(RowSets.read(harness.table("orders"))).isEqualTo(before);
    }
  }

  @Test
  void resultsThatDoNotMatchTheirLeaseAreRefusedAndTheTaskIsRedone() throws Exception {
    try (ServiceHarness harness =
        new ServiceHarness(
            dir,
            POLICY,
            T0,
            c -> {
              c.setLease(Duration.seconds(10));
              c.setMaxAttempts(10);
            })) {
      Map<String, Long> before = RowSets.read(harness.generate("orders", ONE_PARTITION).table());
      harness.evaluate("orders");
      WorkerProtocol server = harness.service;
      RegisterResponse worker = register(server);
      harness.service.tick();
      Table table = harness.table("orders");
      Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
      Map<String, java.util.function.Function<TaskResult, TaskResult>> forgeries =
          new LinkedHashMap<>();
      forgeries.put("its files hold 0 rows", real -> result(real, List.of(), 0, real.rowsRead()));
      forgeries.put(
          "is not under the table's data location",
          real -> {
            DataFile file = real.dataFiles().get(0);
            Path outside = elsewhere.resolve(Path.of(file.location()).getFileName());
            copy(file.location(), outside);
            return result(
                real,
                List.of(moved(table, file, outside.toString())),
                real.rowsWritten(),
                real.rowsDeleted());
          });
      forgeries.put(
          "does not exist",
          real -> {
            DataFile file = real.dataFiles().get(0);
            String missing = file.location().replace(".parquet", "-missing.parquet");
            return result(
                real, List.of(moved(table, file, missing)), real.rowsWritten(), real.rowsDeleted());
          });
      forgeries.put(
          "rows, it was reported with",
          real -> {
            DataFile file = real.dataFiles().get(0);
            DataFile inflated =
                DataFiles.builder(table.specs().get(file.specId()))
                    .copy(file)
                    .withRecordCount(file.recordCount() + 5)
                    .build();
            return result(real, List.of(inflated), real.rowsWritten() + 5, real.rowsDeleted() - 5);
          });
      int attempt = 0;
      for (Map.Entry<String, java.util.function.Function<TaskResult, TaskResult>> forgery :
          forgeries.entrySet()) {
        attempt++;
        TaskAssignment leased = poll(server, worker);
        assertThat(leased.attemptId()).endsWith("-a" + attempt);
        TaskResult forged = forgery.getValue().apply(run(table, leased));
        Ack refused =
            server.complete(
                ResultCodec.encode(
                    worker.workerId(), worker.workerSecret(), leased.attemptId(), table, forged));
        assertThat(refused.accepted()).as(forgery.getKey()).isFalse();
        assertThat(refused.message())
            .startsWith(
                "the result of attempt "
                    + leased.attemptId()
                    + " from worker "
                    + worker.workerId()
                    + " was refused: ")
            .contains(forgery.getKey());
        assertThat(harness.store.tasks(leased.processId()).get(0))
            .extracting(TaskRecord::status, TaskRecord::attempts)
            .containsExactly(TaskStatus.PENDING, attempt);
        assertThat(table.currentSnapshot().snapshotId())
            .as("nothing committed")
            .isEqualTo(harness.table("orders").currentSnapshot().snapshotId());
        harness.clock.advance(java.time.Duration.ofMinutes(10));
      }
      assertThat(Files.list(elsewhere))
          .as("a file outside the table named by a refused result is never deleted")
          .hasSize(1);

      TaskAssignment honest = poll(server, worker);
      assertThat(
              server
                  .complete(
                      ResultCodec.encode(
                          worker.workerId(),
                          worker.workerSecret(),
                          honest.attemptId(),
                          table,
                          run(table, honest)))
                  .accepted())
          .isTrue();
      await()
          .atMost(30, TimeUnit.SECONDS)
          .until(
              () -> harness.store.process(honest.processId()).status() == ProcessStatus.SUCCEEDED);
      assertThat(RowSets.read(harness.table("orders"))).isEqualTo(before);
    }
  }

  private static TaskResult result(
      TaskResult real, List<DataFile> files, long rowsWritten, long rowsDeleted) {
    return new TaskResult(
        real.taskId(),
        files,
        real.positionDeletes(),
        real.rowsRead(),
        rowsDeleted,
        rowsWritten,
        real.positionsWritten(),
        real.bytesRead(),
        real.bytesWritten(),
        real.equalityDeleteRecordsRead(),
        real.equalityDeleteKeysHeld(),
        real.nanos());
  }

  private static DataFile moved(Table table, DataFile file, String location) {
    return DataFiles.builder(table.specs().get(file.specId()))
        .copy(file)
        .withPath(location)
        .build();
  }

  private static void copy(String location, Path target) {
    try {
      Files.copy(Path.of(location.replaceFirst("^file:", "")), target);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void aTaskThatKeepsFailingFailsItsProcessAndParksTheTableWithTheReason() throws Exception {
    try (ServiceHarness harness =
        new ServiceHarness(
            dir,
            POLICY,
            T0,
            c -> {
              c.setMaxAttempts(2);
              c.setParkAfterFailures(1);
            })) {
      harness.generate("orders", ONE_PARTITION);
      harness.evaluate("orders");
      WorkerProtocol server = harness.service;
      RegisterResponse worker = register(server);
      harness.service.tick();
      TaskAssignment first = poll(server, worker);
      assertThat(
              server
                  .fail(
                      new FailRequest(
                          WorkerProtocol.VERSION,
                          worker.workerId(),
                          worker.workerSecret(),
                          first.attemptId(),
                          "disk full"))
                  .accepted())
          .isTrue();
      harness.clock.advance(java.time.Duration.ofSeconds(1));
      TaskAssignment second = poll(server, worker);
      server.fail(
          new FailRequest(
              WorkerProtocol.VERSION,
              worker.workerId(),
              worker.workerSecret(),
              second.attemptId(),
              "disk full again"));

      await()
          .atMost(10, TimeUnit.SECONDS)
          .until(() -> harness.state("orders").status() == TableStatus.PARKED);
      TableStateRecord parked = harness.state("orders");
      assertThat(parked.failures()).isEqualTo(1);
      assertThat(parked.parkedReason())
          .startsWith("process " + first.processId() + " failed: 0 of 1 partition(s) committed; ")
          .endsWith("attempt " + second.attemptId() + " failed: disk full again");
      assertThat(parked.parkedUntil()).isEqualTo(harness.clock.instant().plusSeconds(3600));
      assertThat(harness.store.process(first.processId()).status()).isEqualTo(ProcessStatus.FAILED);
      // A stale failure report changes nothing.
      assertThat(
              server
                  .fail(
                      new FailRequest(
                          WorkerProtocol.VERSION,
                          worker.workerId(),
                          worker.workerSecret(),
                          first.attemptId(),
                          "late"))
                  .accepted())
          .isFalse();

      harness.service.pause("lake", "db", "orders", false);
      assertThat(harness.state("orders").status()).isEqualTo(TableStatus.IDLE);
      assertThat(harness.state("orders").failures()).isZero();
    }
  }

  @Test
  void badMessagesAreRefusedWithTheFieldAndRule() throws Exception {
    try (ServiceHarness harness = new ServiceHarness(dir, POLICY, T0)) {
      WorkerProtocol server = harness.service;
      assertThatThrownBy(() -> server.register(new RegisterRequest(99, "w", "g", 1, "local", "1")))
          .isInstanceOf(ProtocolException.class)
          .hasMessage(
              "register: protocol version 99 is not supported; this build speaks version 3"
                  + " (upgrade the server and workers together)");
      assertThatThrownBy(
              () ->
                  server.register(
                      new RegisterRequest(WorkerProtocol.VERSION, "w", "g", 0, "local", "1")))
          .hasMessage("register: slots = 0, must be between 1 and 4096");
      assertThatThrownBy(
              () ->
                  server.register(
                      new RegisterRequest(WorkerProtocol.VERSION, " ", "g", 1, "local", "1")))
          .hasMessage("register: name is missing");
      assertThatThrownBy(
              () ->
                  server.register(
                      new RegisterRequest(WorkerProtocol.VERSION, "w", "  ", 1, "local", "1")))
          .hasMessage(
              "register: group is blank; leave it out for the default group or name a group");
      String longName = "w".repeat(256);
      assertThatThrownBy(
              () ->
                  server.register(
                      new RegisterRequest(WorkerProtocol.VERSION, longName, "g", 1, "local", "1")))
          .hasMessage("register: name is 256 characters long, at most 255 are allowed");
      assertThatThrownBy(
              () ->
                  server.register(
                      new RegisterRequest(WorkerProtocol.VERSION, "w\n", "g", 1, "local", "1")))
          .hasMessage("register: name contains a control character");
      assertThat(harness.service.workers()).as("no refused worker is registered").isEmpty();
      assertThatThrownBy(
              () -> server.poll(new PollRequest(WorkerProtocol.VERSION, "w-nope", "s", 0)))
          .isInstanceOf(UnknownWorkerException.class)
          .hasMessage("unknown worker 'w-nope': register again (expired or the server restarted)");
    }
  }

  private static RegisterResponse register(WorkerProtocol server) {
    return server.register(
        new RegisterRequest(WorkerProtocol.VERSION, "test", "default", 1, "local", "test"));
  }

  private static TaskAssignment poll(WorkerProtocol server, RegisterResponse worker) {
    PollResponse response =
        server.poll(
            new PollRequest(
                WorkerProtocol.VERSION, worker.workerId(), worker.workerSecret(), 5_000));
    assertThat(response.task()).as("a task is leased").isNotNull();
    return response.task();
  }

  private static TaskResult run(Table table, TaskAssignment assignment) {
    return new RewriteExecutor(1_000_000)
        .execute(table, TaskCodec.decode(assignment, 0), assignment.attemptId());
  }
}
