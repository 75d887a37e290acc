/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import io.firn.core.catalog.CatalogSettings;
import io.firn.core.protocol.Ack;
import io.firn.core.protocol.CompleteRequest;
import io.firn.core.protocol.FailRequest;
import io.firn.core.protocol.FileCodec;
import io.firn.core.protocol.HeartbeatRequest;
import io.firn.core.protocol.HeartbeatResponse;
import io.firn.core.protocol.PollRequest;
import io.firn.core.protocol.PollResponse;
import io.firn.core.protocol.RegisterRequest;
import io.firn.core.protocol.RegisterResponse;
import io.firn.core.protocol.TaskAssignment;
import io.firn.core.protocol.TaskCounts;
import io.firn.core.protocol.WorkerProtocol;
import io.firn.worker.remote.TaskRunner.Lease;
import io.firn.worker.remote.TaskRunner.Outcome;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The worker loop's contract with its {@link TaskRunner} (ADR 0029), against a scripted server and
 * a real table whose output files the loop keeps or deletes: what a runner returns, throws or stops
 * decides what the server hears and which files survive, the same for every runtime.
 */
class WorkerTest {
  private static final Schema SCHEMA =
      new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
  private static final Duration WAIT = Duration.ofSeconds(20);

  @TempDir Path warehouse;
  private final FakeServer server = new FakeServer();
  private final List<String> cancels = new CopyOnWriteArrayList<>();
  private Worker worker;

  @BeforeEach
  void table() {
    HadoopCatalog catalog = new HadoopCatalog();
    catalog.setConf(new Configuration());
    catalog.initialize("lake", Map.of("warehouse", warehouse.toUri().toString()));
    catalog.createTable(TableIdentifier.of("db", "t"), SCHEMA);
  }

  @AfterEach
  void stop() throws InterruptedException {
    if (worker != null) {
      worker.close();
    }
  }

  @Test
  void aCompletionIsSignedByTheLoopAndHandedIn() throws IOException {
    Path output = output("a-1");
    start((assignment, lease) -> completed(assignment, lease, output));
    server.lease(assignment("a-1"));

    await().atMost(WAIT).until(() -> worker.completed() == 1 && idle());
    assertThat(server.completions).hasSize(1);
    CompleteRequest handedIn = server.completions.get(0);
    assertThat(handedIn.attemptId()).isEqualTo("a-1");
    assertThat(handedIn.workerId()).isEqualTo("w-1");
    assertThat(handedIn.workerSecret())
        .as("the loop signs; the runner never sees the secret")
        .isEqualTo("secret-1");
    assertThat(server.failures).isEmpty();
    assertThat(output).as("accepted output is the server's to commit").exists();
  }

  @Test
  void aRunnerThatThrowsFailsItsAttemptWithTheExceptionAsReasonAndTheSlotGoesOn()
      throws IOException {
    Path output = output("a-2");
    start(
        (assignment, lease) -> {
          if (assignment.attemptId().equals("a-1")) {
            throw new IllegalStateException("disk full");
          }
          return completed(assignment, lease, output);
        });
    server.lease(assignment("a-1"));
    server.lease(assignment("a-2"));

    await().atMost(WAIT).until(() -> worker.completed() == 1 && idle());
    assertThat(worker.failed()).isEqualTo(1);
    assertThat(server.failures)
        .extracting(FailRequest::attemptId, FailRequest::reason, FailRequest::workerSecret)
        .containsExactly(tuple("a-1", "java.lang.IllegalStateException: disk full", "secret-1"));
    assertThat(server.completions).extracting(CompleteRequest::attemptId).containsExactly("a-2");
  }

  @Test
  void aFailedOutcomeIsReportedWithTheRunnersOwnReason() {
    start((assignment, lease) -> new Outcome.Failed("the Spark job failed"));
    server.lease(assignment("a-1"));

    await().atMost(WAIT).until(() -> server.failures.size() == 1 && idle());
    assertThat(server.failures.get(0).reason()).isEqualTo("the Spark job failed");
    assertThat(worker.failed()).isEqualTo(1);
    assertThat(server.completions).isEmpty();
  }

  @Test
  void aCompletionOfAnotherAttemptIsNeitherHandedInNorDeleted() throws IOException {
    Path output = output("a-0");
    start(
        Duration.ofSeconds(5), (assignment, lease) -> completed(assignment("a-0"), lease, output));
    server.lease(assignment("a-1"));

    await().atMost(WAIT).until(() -> server.failures.size() == 1 && idle());
    assertThat(server.failures.get(0).attemptId()).isEqualTo("a-1");
    assertThat(server.failures.get(0).reason())
        .isEqualTo(
            "the task runner returned the completion of attempt a-0 for attempt a-1; nothing was"
                + " handed in");
    assertThat(server.completions).isEmpty();
    assertThat(worker.failed()).isEqualTo(1);
    assertThat(worker.abandoned()).isZero();
    assertThat(output).as("it may be another attempt's, even a committed one").exists();
  }

  @Test
  void anAttemptTheServerAbandonsIsCancelledThroughItsRunnerAndItsLateOutputDeleted()
      throws IOException {
    Path output = output("a-1");
    start(
        (assignment, lease) -> {
          // A runtime that cannot stop its rewrite: it finishes, and the loop must drop it.
          await().atMost(WAIT).until(lease::stopped);
          return completed(assignment, lease, output);
        });
    server.abandon.add("a-1");
    server.lease(assignment("a-1"));

    await().atMost(WAIT).until(() -> worker.abandoned() == 1 && idle());
    assertThat(cancels).containsExactly("a-1: the optimizer server abandoned this attempt");
    assertThat(server.completions).isEmpty();
    assertThat(server.failures).isEmpty();
    assertThat(output).doesNotExist();
    assertThat(worker.runningAttempts()).isEmpty();
  }

  @Test
  void aCancelledOutcomeIsAbandonedWithoutAReport() {
    CountDownLatch cancelled = new CountDownLatch(1);
    start(
        (assignment, lease) -> {
          awaitUninterruptibly(cancelled);
          return new Outcome.Cancelled("job group cancelled");
        },
        (attempt, why) -> cancelled.countDown());
    server.abandon.add("a-1");
    server.lease(assignment("a-1"));

    await().atMost(WAIT).until(() -> worker.abandoned() == 1 && idle());
    assertThat(worker.failed()).isZero();
    assertThat(server.failures).isEmpty();
    assertThat(server.completions).isEmpty();
  }

  @Test
  void aRefusedCompletionIsDeletedButOneRefusedAfterALostAnswerIsKept() throws IOException {
    Path refused = output("a-1");
    Path maybeCommitted = output("a-2");
    server.answers.add(request -> Ack.rejected("stale attempt"));
    server.answers.add(
        request -> {
          throw new IllegalStateException("connection reset");
        });
    server.answers.add(request -> Ack.rejected("unknown attempt"));
    start(
        (assignment, lease) ->
            completed(
                assignment,
                lease,
                assignment.attemptId().equals("a-1") ? refused : maybeCommitted));
    server.lease(assignment("a-1"));
    await().atMost(WAIT).until(() -> worker.abandoned() == 1 && idle());
    assertThat(refused).doesNotExist();

    server.lease(assignment("a-2"));
    await().atMost(WAIT).until(() -> server.completions.size() == 3 && idle());
    assertThat(maybeCommitted)
        .as("the lost try may have been committed before the server restarted")
        .exists();
    assertThat(worker.abandoned()).isEqualTo(1);
    assertThat(worker.completed()).isZero();
  }

  @Test
  void afterCloseACompletionIsNeitherHandedInNorKept() throws Exception {
    Path output = output("a-1");
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    start(
        Duration.ofMillis(200),
        (assignment, lease) -> {
          running.countDown();
          awaitUninterruptibly(release);
          return completed(assignment, lease, output);
        });
    server.lease(assignment("a-1"));
    assertThat(running.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

    worker.close();
    assertThat(cancels).containsExactly("a-1: the Firn worker stopped");
    release.countDown();

    await().atMost(WAIT).until(() -> worker.abandoned() == 1 && idle());
    assertThat(server.completions).isEmpty();
    assertThat(output).doesNotExist();
  }

  @Test
  void afterCloseAFailureIsCountedButNotReported() throws Exception {
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    start(
        Duration.ofMillis(200),
        (assignment, lease) -> {
          running.countDown();
          awaitUninterruptibly(release);
          throw new IllegalStateException("interrupted while writing");
        });
    server.lease(assignment("a-1"));
    assertThat(running.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

    worker.close();
    release.countDown();

    await().atMost(WAIT).until(() -> worker.failed() == 1 && idle());
    assertThat(server.failures).as("its lease expires; the server redoes the task").isEmpty();
  }

  @Test
  void theTaskNumberIsTheLastPartOfTheTaskId() {
    assertThat(Worker.taskNumber("firn-abc/7")).isEqualTo(7);
    assertThat(Worker.taskNumber("no-number")).isZero();
  }

  /** No attempt running: what the loop does with an outcome is done. */
  private boolean idle() {
    return worker.runningAttempts().isEmpty();
  }

  private void start(BiFunction<TaskAssignment, Lease, Outcome> run) {
    start(Duration.ofSeconds(5), run);
  }

  private void start(
      BiFunction<TaskAssignment, Lease, Outcome> run, BiConsumer<String, String> onCancel) {
    start(Duration.ofSeconds(5), run, onCancel);
  }

  private void start(Duration drain, BiFunction<TaskAssignment, Lease, Outcome> run) {
    start(drain, run, (attempt, why) -> {});
  }

  private void start(
      Duration drain,
      BiFunction<TaskAssignment, Lease, Outcome> run,
      BiConsumer<String, String> onCancel) {
    TaskRunner runner =
        new TaskRunner() {
          @Override
          public Outcome run(TaskAssignment assignment, Lease lease) {
            return run.apply(assignment, lease);
          }

          @Override
          public void cancel(String attemptId, String why) {
            cancels.add(attemptId + ": " + why);
            onCancel.accept(attemptId, why);
          }
        };
    worker =
        new Worker(
            server,
            new WorkerSettings("test", "default", 1, "local", "dev", Duration.ofMillis(100), drain),
            Map.of(),
            runner);
    worker.start();
  }

  private Path output(String attempt) throws IOException {
    Path file = warehouse.resolve("db/t/data/" + attempt + "-00000.parquet");
    Files.createDirectories(file.getParent());
    Files.writeString(file, "rows of " + attempt);
    return file;
  }

  private static Outcome completed(TaskAssignment assignment, Lease lease, Path file) {
    DataFile data =
        DataFiles.builder(PartitionSpec.unpartitioned())
            .withPath(file.toUri().toString())
            .withFormat("parquet")
            .withFileSizeInBytes(10)
            .withRecordCount(1)
            .build();
    return new Outcome.Completed(
        new CompleteRequest(
            WorkerProtocol.VERSION,
            lease.workerId(),
            null,
            assignment.attemptId(),
            List.of(FileCodec.encode(data, PartitionSpec.unpartitioned())),
            List.of(),
            new TaskCounts(1, 0, 1, 0, 10, 10, 0, 0, 1)));
  }

  private static TaskAssignment assignment(String attempt) {
    return new TaskAssignment(
        "p-1/3",
        attempt,
        "p-1",
        "lake",
        "db.t",
        "minor",
        1,
        1,
        0,
        "",
        1,
        1,
        0,
        FileCodec.schemaJson(SCHEMA),
        FileCodec.specJsons(List.of(PartitionSpec.unpartitioned())),
        List.of(),
        List.of(),
        List.of(),
        0);
  }

  private static void awaitUninterruptibly(CountDownLatch latch) {
    boolean interrupted = false;
    while (true) {
      try {
        if (latch.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
          break;
        }
        throw new IllegalStateException("never released");
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** The server side: leases what a test queues, answers completions as scripted (else ok). */
  private final class FakeServer implements WorkerProtocol {
    final BlockingQueue<TaskAssignment> tasks = new LinkedBlockingQueue<>();
    final Set<String> abandon = ConcurrentHashMap.newKeySet();
    final ConcurrentLinkedDeque<Function<CompleteRequest, Ack>> answers =
        new ConcurrentLinkedDeque<>();
    final List<CompleteRequest> completions = new CopyOnWriteArrayList<>();
    final List<FailRequest> failures = new CopyOnWriteArrayList<>();

    void lease(TaskAssignment assignment) {
      tasks.add(assignment);
    }

    @Override
    public RegisterResponse register(RegisterRequest request) {
      return new RegisterResponse(
          VERSION,
          "w-1",
          "secret-1",
          List.of(
              new CatalogSettings("lake", "hadoop", null, warehouse.toUri().toString(), Map.of())),
          3_000,
          100);
    }

    @Override
    public PollResponse poll(PollRequest request) {
      try {
        TaskAssignment task = tasks.poll(request.waitMillis(), TimeUnit.MILLISECONDS);
        return new PollResponse(VERSION, task);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return PollResponse.empty();
      }
    }

    @Override
    public HeartbeatResponse heartbeat(HeartbeatRequest request) {
      List<String> gone = new ArrayList<>(request.attemptIds());
      gone.retainAll(abandon);
      return new HeartbeatResponse(VERSION, gone);
    }

    @Override
    public Ack complete(CompleteRequest request) {
      completions.add(request);
      Function<CompleteRequest, Ack> answer = answers.poll();
      return answer == null ? Ack.ok() : answer.apply(request);
    }

    @Override
    public Ack fail(FailRequest request) {
      failures.add(request);
      return Ack.ok();
    }
  }
}
