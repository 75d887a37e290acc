package io.firn.server.optimizing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.dropwizard.util.Duration;
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
import io.firn.worker.executor.TaskResult;
import io.firn.worker.remote.ResultCodec;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
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
                          1, worker.workerId(), List.of(first.attemptId(), "p-t9-a1")))
                  .abandon())
          .containsExactly("p-t9-a1");
      harness.clock.advance(java.time.Duration.ofSeconds(8));
      harness.service.tick();
      assertThat(harness.store.tasks(first.processId()).get(0).status()).isEqualTo("leased");

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
          server.complete(ResultCodec.encode(worker.workerId(), first.attemptId(), table, stale));
      assertThat(rejected.accepted()).isFalse();
      assertThat(rejected.message())
          .isEqualTo(
              "attempt "
                  + first.attemptId()
                  + " is stale: the task was leased again as "
                  + second.attemptId());

      TaskResult live = run(table, second);
      Ack accepted =
          server.complete(ResultCodec.encode(worker.workerId(), second.attemptId(), table, live));
      assertThat(accepted.accepted()).isTrue();
      // A completion whose answer was lost is repeated: accepted again, committed once.
      assertThat(
              server
                  .complete(ResultCodec.encode(worker.workerId(), second.attemptId(), table, live))
                  .accepted())
          .isTrue();
      await()
          .atMost(30, TimeUnit.SECONDS)
          .until(() -> harness.store.process(first.processId()).status().equals("succeeded"));
      assertThat(RowSets.read(harness.table("orders"))).isEqualTo(before);
      assertThat(harness.store.tasks(first.processId()).get(0))
          .extracting(TaskRecord::status, TaskRecord::attempts, TaskRecord::attemptId)
          .containsExactly("committed", 2, second.attemptId());
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
                  .fail(new FailRequest(1, worker.workerId(), first.attemptId(), "disk full"))
                  .accepted())
          .isTrue();
      harness.clock.advance(java.time.Duration.ofSeconds(1));
      TaskAssignment second = poll(server, worker);
      server.fail(new FailRequest(1, worker.workerId(), second.attemptId(), "disk full again"));

      await()
          .atMost(10, TimeUnit.SECONDS)
          .until(() -> harness.state("orders").status().equals("parked"));
      TableStateRecord parked = harness.state("orders");
      assertThat(parked.failures()).isEqualTo(1);
      assertThat(parked.parkedReason())
          .startsWith("process " + first.processId() + " failed: 0 of 1 partition(s) committed; ")
          .endsWith("attempt " + second.attemptId() + " failed: disk full again");
      assertThat(parked.parkedUntil()).isEqualTo(harness.clock.instant().plusSeconds(3600));
      assertThat(harness.store.process(first.processId()).status()).isEqualTo("failed");
      // A stale failure report changes nothing.
      assertThat(
              server
                  .fail(new FailRequest(1, worker.workerId(), first.attemptId(), "late"))
                  .accepted())
          .isFalse();

      harness.service.pause("lake", "db", "orders", false);
      assertThat(harness.state("orders").status()).isEqualTo("idle");
      assertThat(harness.state("orders").failures()).isZero();
    }
  }

  @Test
  void badMessagesAreRefusedWithTheFieldAndRule() throws Exception {
    try (ServiceHarness harness = new ServiceHarness(dir, POLICY, T0)) {
      WorkerProtocol server = harness.service;
      assertThatThrownBy(() -> server.register(new RegisterRequest(2, "w", "g", 1, "local", "1")))
          .isInstanceOf(ProtocolException.class)
          .hasMessage(
              "register: protocol version 2 is not supported; this build speaks version 1"
                  + " (upgrade the server and workers together)");
      assertThatThrownBy(() -> server.register(new RegisterRequest(1, "w", "g", 0, "local", "1")))
          .hasMessage("register: slots = 0, must be >= 1");
      assertThatThrownBy(() -> server.register(new RegisterRequest(1, " ", "g", 1, "local", "1")))
          .hasMessage("register: name is missing");
      assertThatThrownBy(() -> server.poll(new PollRequest(1, "w-nope", 0)))
          .isInstanceOf(UnknownWorkerException.class)
          .hasMessage("unknown worker 'w-nope': register again (expired or the server restarted)");
    }
  }

  private static RegisterResponse register(WorkerProtocol server) {
    return server.register(new RegisterRequest(1, "test", "default", 1, "local", "test"));
  }

  private static TaskAssignment poll(WorkerProtocol server, RegisterResponse worker) {
    PollResponse response = server.poll(new PollRequest(1, worker.workerId(), 5_000));
    assertThat(response.task()).as("a task is leased").isNotNull();
    return response.task();
  }

  private static TaskResult run(Table table, TaskAssignment assignment) {
    return new RewriteExecutor(1_000_000)
        .execute(table, TaskCodec.decode(assignment, 0), assignment.attemptId());
  }
}
