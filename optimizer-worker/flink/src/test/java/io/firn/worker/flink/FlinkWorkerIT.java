/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.firn.testkit.CdcTableSpec;
import io.firn.testkit.GeneratedTable;
import io.firn.testkit.Http;
import io.firn.testkit.RowSets;
import io.firn.testkit.S3Lake;
import io.firn.testkit.ServerProcess;
import io.firn.worker.remote.WorkerOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
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
  private static final String OPTIMIZING =
      """
        localWorkerThreads: 0
        maxConcurrentProcesses: 8
        lease: 4s
        heartbeatInterval: 500ms
        retryBackoff: 500ms
      """;

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
      GeneratedTable big =
          server.generate(
              "db", "big", new CdcTableSpec(200_000, 30, 0.1, 0.02, 0.02, 0, 5L, false, false));
      Map<String, GeneratedTable> tables = new LinkedHashMap<>();
      tables.put("big", big);
      for (int i = 0; i < 3; i++) {
        tables.put(
            "t" + i,
            server.generate(
                "db",
                "t" + i,
                new CdcTableSpec(1_500, 20, 0.05, 0.02, 0.02, i * 2, 100L + i, i == 1, false)));
      }
      server.start(OPTIMIZING);
      String api = server.api();

      // (1) One slot, no drain: cancel the job while it writes the big table's new data file.
      await().atMost(60, TimeUnit.SECONDS).until(() -> lastProcess(api, "big") != null);
      String process = lastProcess(api, "big");
      JobClient first = submit(server, 1, 0);
      Set<String> deadAttempts = new HashSet<>();
      // The big table's one task, first attempt: its id is the process id plus -t0-a1. Only the
      // file system in this loop, and the cancel at once: the attempt must end while it writes,
      // not after it handed its file in (an HTTP round trip in between let that happen in the
      // Spark worker's test on a loaded machine).
      String bigAttempt = process + "-t0-a1";
      List<CompletableFuture<Void>> cancelled = new ArrayList<>();
      await()
          .atMost(2, TimeUnit.MINUTES)
          .pollInterval(Duration.ofMillis(5))
          .until(
              () -> {
                if (!writing(server, "big", bigAttempt)) {
                  return false;
                }
                cancelled.add(first.cancel());
                return true;
              });
      deadAttempts.add(bigAttempt);
      cancelled.get(0).get(60, TimeUnit.SECONDS);
      await()
          .atMost(60, TimeUnit.SECONDS)
          .until(() -> first.getJobStatus().get() == JobStatus.CANCELED);
      assertThat(tasks(api, process))
          .as("the cancelled attempt was not handed in")
          .singleElement()
          .satisfies(
              t ->
                  assertThat(t)
                      .containsEntry("attemptId", bigAttempt)
                      .extracting(m -> m.get("status"))
                      .isNotIn("succeeded", "committed"));

      // (2) One slot, 60 s drain: a job cancelled while it writes the big task's next attempt
      // finishes that attempt and hands it in.
      JobClient draining = submit(server, 1, 60);
      List<String> drainedAttempt = new ArrayList<>();
      await()
          .atMost(2, TimeUnit.MINUTES)
          .pollInterval(Duration.ofMillis(20))
          .until(
              () -> {
                for (Map<String, Object> task : tasks(api, process)) {
                  String attempt = (String) task.get("attemptId");
                  if ("leased".equals(task.get("status"))
                      && !deadAttempts.contains(attempt)
                      && writing(server, "big", attempt)) {
                    drainedAttempt.add(attempt);
                    return true;
                  }
                }
                return false;
              });
      draining.cancel().get(60, TimeUnit.SECONDS);
      await()
          .atMost(90, TimeUnit.SECONDS)
          .until(() -> draining.getJobStatus().get() == JobStatus.CANCELED);
      assertThat(tasks(api, process))
          .as("the running attempt was drained: handed in and accepted before the job ended")
          .singleElement()
          .satisfies(
              t ->
                  assertThat(t)
                      .containsEntry("attemptId", drainedAttempt.get(0))
                      .containsEntry("attempts", 2)
                      .extracting(m -> m.get("status"))
                      .isIn("succeeded", "committed"));

      // (3) Two slots: everything gets optimized, the dropped task included.
      JobClient second = submit(server, 2, 60);
      try {
        await()
            .atMost(4, TimeUnit.MINUTES)
            .pollInterval(Duration.ofMillis(500))
            .untilAsserted(
                () -> {
                  List<Map<String, Object>> states = Http.list(api + "/tables");
                  assertThat(states).hasSize(tables.size());
                  assertThat(states)
                      .allSatisfy(
                          t ->
                              assertThat(t)
                                  .as("%s", t)
                                  .containsEntry("status", "idle")
                                  .containsEntry("needsPlan", false));
                  assertThat(process(api, process)).containsEntry("status", "succeeded");
                });
        assertThat(tasks(api, process))
            .as("the cancelled attempt's task was redone")
            .allSatisfy(t -> assertThat(deadAttempts).doesNotContain((String) t.get("attemptId")));
        for (Map.Entry<String, GeneratedTable> entry : tables.entrySet()) {
          String name = entry.getKey();
          assertThat(Http.list(api + "/processes?table=lake.db." + name))
              .as("processes of db.%s", name)
              .isNotEmpty()
              .allSatisfy(p -> assertThat(p).containsEntry("status", "succeeded"));
          Table table = server.catalog.loadTable(TableIdentifier.of("db", name));
          assertThat(RowSets.read(table))
              .as("rows of db.%s", name)
              .isEqualTo(RowSets.of(entry.getValue().writer().expected().values(), table.schema()));
          for (String file : RowSets.liveFiles(table)) {
            for (String attempt : deadAttempts) {
              assertThat(file).as("no output of the cancelled attempt").doesNotContain(attempt);
            }
          }
        }
        assertThat(Http.list(api + "/workers"))
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
      lake.server().start(OPTIMIZING);
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
    Path jar =
        Path.of(
            "target",
            "firn-worker-flink-"
                + System.getProperty("firn.version", "0.1.0-SNAPSHOT")
                + "-job.jar");
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

  /** Output files of an attempt carry its id in their names. */
  private static boolean writing(ServerProcess server, String table, String attempt)
      throws IOException {
    Path data = server.dir.resolve("warehouse/db/" + table + "/data");
    if (!Files.isDirectory(data)) {
      return false;
    }
    try (Stream<Path> files = Files.walk(data)) {
      return files.anyMatch(f -> f.getFileName().toString().contains(attempt));
    }
  }

  private static String lastProcess(String api, String name) {
    for (Map<String, Object> table : Http.list(api + "/tables")) {
      if (name.equals(table.get("table")) && table.get("lastProcessId") != null) {
        return (String) table.get("lastProcessId");
      }
    }
    return null;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> process(String api, String id) {
    return (Map<String, Object>) Http.map(api + "/processes/" + id).get("process");
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> tasks(String api, String id) {
    return (List<Map<String, Object>>) Http.map(api + "/processes/" + id).get("tasks");
  }
}
