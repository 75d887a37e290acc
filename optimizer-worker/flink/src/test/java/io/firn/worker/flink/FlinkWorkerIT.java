/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.firn.testkit.Http;
import io.firn.testkit.S3Lake;
import io.firn.testkit.ServerProcess;
import io.firn.testkit.StoppedWorkerScenario;
import io.firn.worker.remote.WorkerOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The optimizer server (child JVM, no local worker threads) and the Flink worker job on a
 * MiniCluster. (1) A one-slot job is cancelled while it rewrites a task, with no drain time: the
 * attempt is dropped, its lease expires. (2) A one-slot job with a drain time is cancelled while it
 * rewrites the same task's next attempt: that attempt is finished, handed in and committed. (3) A
 * two-slot job then optimizes every table to below its triggers; rows are unchanged (Iceberg
 * generics) and no file of the dropped attempt is committed. (4) Tables on an S3-compatible store
 * (S3Proxy): the server and a two-slot job optimize them, rows unchanged, fewer files (issue 16);
 * the job jar for {@code flink run} carries the S3 FileIO and the SDK.
 */
class FlinkWorkerIT {
  @RegisterExtension
  static final MiniClusterExtension CLUSTER =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(2)
              .build());

  @Test
  void cancelledJobsAttemptIsRedoneAndTheNextJobOptimizesEveryTableWithRowsUnchanged()
      throws Exception {
    try (ServerProcess server = new ServerProcess()) {
      StoppedWorkerScenario scenario = StoppedWorkerScenario.start(server);

      // (1) One slot, no drain: cancel the job while it writes the big table's new data file.
      String process = scenario.awaitBigProcess(Duration.ofSeconds(60));
      JobClient first = submit(server, 1, 0);
      // Only the file system in this loop, and the cancel at once: the attempt must end while it
      // writes, not after it handed its file in (an HTTP round trip in between let that happen in
      // the Spark worker's test on a loaded machine).
      String bigAttempt = StoppedWorkerScenario.firstAttempt(process);
      List<CompletableFuture<Void>> cancelled = new ArrayList<>();
      await()
          .atMost(2, TimeUnit.MINUTES)
          .pollInterval(Duration.ofMillis(5))
          .until(
              () -> {
                if (!scenario.writing(bigAttempt)) {
                  return false;
                }
                cancelled.add(first.cancel());
                return true;
              });
      cancelled.get(0).get(60, TimeUnit.SECONDS);
      await()
          .atMost(60, TimeUnit.SECONDS)
          .until(() -> first.getJobStatus().get() == JobStatus.CANCELED);
      scenario.assertDead(process, bigAttempt);

      // (2) One slot, 60 s drain: a job cancelled while it writes the big task's next attempt
      // finishes that attempt and hands it in.
      JobClient draining = submit(server, 1, 60);
      String drained =
          await()
              .atMost(2, TimeUnit.MINUTES)
              .pollInterval(Duration.ofMillis(20))
              .until(() -> scenario.liveAttemptWriting(process), Objects::nonNull);
      draining.cancel().get(60, TimeUnit.SECONDS);
      await()
          .atMost(90, TimeUnit.SECONDS)
          .until(() -> draining.getJobStatus().get() == JobStatus.CANCELED);
      scenario.assertDrained(process, drained, "the job was cancelled");

      // (3) Two slots: everything gets optimized, the dropped task included.
      JobClient second = submit(server, 2, 60);
      try {
        scenario.awaitOptimized(process, Duration.ofMinutes(4));
        assertThat(Http.list(server.api() + "/workers"))
            .as("every subtask registered as a one-slot flink worker")
            .isNotEmpty()
            .allSatisfy(
                w ->
                    assertThat(w)
                        .containsEntry("engine", "flink")
                        .containsEntry("engineVersion", "2.1.1")
                        .containsEntry("slots", 1)
                        .containsEntry("group", "default"));
      } finally {
        second.cancel().get(60, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void tablesOnS3AreOptimizedByTheJobWithRowsUnchangedAndFewerFiles(@TempDir Path dir)
      throws Exception {
    try (S3Lake lake = new S3Lake(dir)) {
      lake.server().start(StoppedWorkerScenario.OPTIMIZING);
      JobClient job = submit(lake.server(), 2, 0);
      try {
        lake.awaitOptimized(Duration.ofMinutes(2));
      } finally {
        job.cancel().get(60, TimeUnit.SECONDS);
      }
      lake.verify("flink");
    }
  }

  /** The jar for {@code flink run} reads and writes S3 without jars of its own on the cluster. */
  @Test
  void theJobJarCarriesTheS3FileIoAndTheSdk() throws IOException {
    Path jar = S3Lake.builtJar("firn-worker-flink", "job");
    List<String> entries = new ArrayList<>(S3Lake.SDK_CLASSES);
    entries.add(S3Lake.S3_FILE_IO_CLASS);
    assertThat(S3Lake.missing(jar, entries)).as("missing in %s", jar).isEmpty();
  }

  private static JobClient submit(ServerProcess server, int slots, int drainSeconds)
      throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    WorkerOptions options =
        WorkerOptions.parse(
            new String[] {
              "--server", server.url(),
              "--slots", String.valueOf(slots),
              "--drain-seconds", String.valueOf(drainSeconds),
              "--poll-seconds", "2",
              "--name", "it-" + slots
            },
            Map.of("FIRN_WORKER_TOKEN", ServerProcess.WORKER_TOKEN),
            "flink");
    FlinkWorkerJob.define(env, options);
    return env.executeAsync(FlinkWorkerJob.jobName(options));
  }
}
