/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.firn.testkit.Http;
import io.firn.testkit.S3Lake;
import io.firn.testkit.ServerProcess;
import io.firn.testkit.StoppedWorkerScenario;
import io.firn.worker.remote.HttpWorkerProtocol;
import io.firn.worker.remote.Worker;
import io.firn.worker.remote.WorkerOptions;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The optimizer server (child JVM, no local worker threads) and the Spark worker. (1) The worker
 * application runs as its own JVM ({@code local[1]}) and is killed (SIGKILL) while an executor
 * writes the big table's new data file: nothing of that attempt is handed in, its lease expires.
 * (2) A second application is stopped (SIGTERM) while it writes the task's next attempt: it drains,
 * the attempt is handed in and committed. (3) A worker on a {@code local[2]} Spark session in this
 * JVM then optimizes every table to below its triggers; rows are unchanged (Iceberg generics) and
 * no file of the killed attempt is committed. (4) Tables on an S3-compatible store (S3Proxy): the
 * server and a {@code local[2]} worker optimize them, rows unchanged, fewer files (issue 16); the
 * application jar carries the SDK, {@code iceberg-spark-runtime} the S3 FileIO.
 */
class SparkWorkerIT {
  @Test
  void killedApplicationsAttemptIsRedoneAndTheNextOneOptimizesEveryTableWithRowsUnchanged()
      throws Exception {
    try (ServerProcess server = new ServerProcess()) {
      StoppedWorkerScenario scenario = StoppedWorkerScenario.start(server);
      String api = server.api();

      // (1) The application in its own JVM, killed while an executor writes the big table's file.
      String process = scenario.awaitBigProcess(Duration.ofSeconds(60));
      Process killed = startApplication(server, server.dir.resolve("spark-worker-a.log"));
      String bigAttempt = StoppedWorkerScenario.firstAttempt(process);
      try {
        await()
            .atMost(3, TimeUnit.MINUTES)
            .pollInterval(Duration.ofMillis(50))
            .until(
                () -> {
                  assertAlive(killed, server.dir.resolve("spark-worker-a.log"));
                  return Http.list(api + "/workers").stream()
                      .anyMatch(w -> Integer.valueOf(1).equals(w.get("runningTasks")));
                });
        assertThat(Http.list(api + "/workers"))
            .as("the application registered as one spark worker with its slots")
            .singleElement()
            .satisfies(
                w ->
                    assertThat(w)
                        .containsEntry("engine", "spark")
                        .containsEntry("engineVersion", "4.0.4")
                        .containsEntry("slots", 1));
        // Only the file system in this loop, and the kill at once: the attempt must die while its
        // executor writes, not after it handed the file in (seen when an HTTP round trip came
        // between seeing the file and the kill on a loaded machine).
        await()
            .atMost(3, TimeUnit.MINUTES)
            .pollInterval(Duration.ofMillis(5))
            .until(
                () -> {
                  assertAlive(killed, server.dir.resolve("spark-worker-a.log"));
                  if (!scenario.writing(bigAttempt)) {
                    return false;
                  }
                  killed.destroyForcibly();
                  return true;
                });
      } finally {
        killed.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
      scenario.assertDead(process, bigAttempt);

      // (2) An application stopped with SIGTERM while it writes the task's next attempt drains:
      // the attempt is handed in and committed before Spark shuts down.
      Process stopped =
          startApplication(
              server, server.dir.resolve("spark-worker-b.log"), "--drain-seconds", "60");
      String drained;
      try {
        drained =
            await()
                .atMost(3, TimeUnit.MINUTES)
                .pollInterval(Duration.ofMillis(20))
                .until(
                    () -> {
                      assertAlive(stopped, server.dir.resolve("spark-worker-b.log"));
                      return scenario.liveAttemptWriting(process);
                    },
                    Objects::nonNull);
        stopped.destroy();
        assertThat(stopped.waitFor(2, TimeUnit.MINUTES)).as("the application stops").isTrue();
      } finally {
        stopped.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
      scenario.assertDrained(
          process,
          drained,
          "the driver's log: " + Files.readString(server.dir.resolve("spark-worker-b.log")));

      // (3) A local[2] application: everything gets optimized.
      SparkSession session =
          SparkSession.builder()
              .master("local[2]")
              .appName("firn-worker-it")
              .config("spark.ui.enabled", "false")
              .getOrCreate();
      WorkerOptions options =
          WorkerOptions.parse(
              new String[] {"--server", server.url(), "--poll-seconds", "2", "--name", "it"},
              Map.of("FIRN_WORKER_TOKEN", ServerProcess.WORKER_TOKEN),
              "spark");
      JavaSparkContext spark = JavaSparkContext.fromSparkContext(session.sparkContext());
      // A wrong token: the worker stops with the server's reason instead of retrying forever.
      Worker refused =
          SparkWorker.create(
              spark,
              new HttpWorkerProtocol(URI.create(server.url()), "not-the-worker-token"),
              options,
              1);
      refused.start();
      try {
        await().atMost(30, TimeUnit.SECONDS).until(() -> refused.refusal() != null);
        assertThat(refused.refusal())
            .contains("the optimizer server refuses this worker")
            .contains("FIRN_WORKER_TOKEN");
      } finally {
        refused.close();
      }
      Worker worker =
          SparkWorker.create(
              spark,
              new HttpWorkerProtocol(URI.create(server.url()), options.token()),
              options,
              spark.defaultParallelism());
      worker.start();
      try {
        scenario.awaitOptimized(process, Duration.ofMinutes(4));
        // The killed application may be forgotten by now (silent for 3 lease times).
        assertThat(Http.list(api + "/workers"))
            .as("the local[2] application registered as one spark worker with 2 slots")
            .allSatisfy(
                w ->
                    assertThat(w)
                        .containsEntry("engine", "spark")
                        .containsEntry("engineVersion", "4.0.4")
                        .containsEntry("group", "default"))
            .anySatisfy(w -> assertThat(w).containsEntry("slots", 2));
      } finally {
        worker.close();
        session.stop();
      }
    }
  }

  @Test
  void tablesOnS3AreOptimizedBySparkExecutorsWithRowsUnchangedAndFewerFiles(@TempDir Path dir)
      throws Exception {
    try (S3Lake lake = new S3Lake(dir)) {
      ServerProcess server = lake.server();
      server.start(StoppedWorkerScenario.OPTIMIZING);
      SparkSession session =
          SparkSession.builder()
              .master("local[2]")
              .appName("firn-worker-s3-it")
              .config("spark.ui.enabled", "false")
              .getOrCreate();
      WorkerOptions options =
          WorkerOptions.parse(
              new String[] {"--server", server.url(), "--poll-seconds", "2", "--name", "s3"},
              Map.of("FIRN_WORKER_TOKEN", ServerProcess.WORKER_TOKEN),
              "spark");
      Worker worker =
          SparkWorker.create(
              JavaSparkContext.fromSparkContext(session.sparkContext()),
              new HttpWorkerProtocol(URI.create(server.url()), options.token()),
              options,
              2);
      worker.start();
      try {
        lake.awaitOptimized(Duration.ofMinutes(2));
      } finally {
        worker.close();
        session.stop();
      }
      lake.verify("spark");
    }
  }

  /**
   * The jar for {@code spark-submit} brings the SDK and no Iceberg: {@code iceberg-spark-runtime},
   * which the cluster has, brings {@code S3FileIO}.
   */
  @Test
  void theApplicationJarCarriesTheSdkAndTheSparkRuntimeTheS3FileIo() throws Exception {
    Path jar = S3Lake.builtJar("firn-worker-spark", "app");
    assertThat(S3Lake.missing(jar, S3Lake.SDK_CLASSES)).as("missing in %s", jar).isEmpty();
    assertThat(S3Lake.missing(jar, List.of(S3Lake.S3_FILE_IO_CLASS)))
        .as("Iceberg is not in %s", jar)
        .isNotEmpty();
    assertThat(
            Class.forName("org.apache.iceberg.aws.s3.S3FileIO")
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toString())
        .contains("iceberg-spark-runtime");
  }

  /** {@code SparkWorkerApp} with {@code local[1]} in a JVM of its own, as spark-submit runs it. */
  private static Process startApplication(ServerProcess server, Path log, String... options)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx1g");
    command.addAll(
        Arrays.asList(System.getProperty("firn.spark.jvm.options", "").trim().split("\\s+")));
    command.add("-Djava.io.tmpdir=" + server.dir);
    command.add("-Dspark.master=local[1]");
    command.add("-Dspark.ui.enabled=false");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(SparkWorkerApp.class.getName());
    command.addAll(List.of("--server", server.url(), "--poll-seconds", "2", "--name", "app"));
    command.addAll(List.of(options));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.redirectOutput(log.toFile());
    builder.environment().put("FIRN_WORKER_TOKEN", ServerProcess.WORKER_TOKEN);
    builder.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    return builder.start();
  }

  /** Fails with the application's log when it has exited. */
  private static void assertAlive(Process application, Path log) throws IOException {
    if (!application.isAlive()) {
      throw new IllegalStateException(
          "the Spark worker application exited with "
              + application.exitValue()
              + ": "
              + Files.readString(log));
    }
  }
}
