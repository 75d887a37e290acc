/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.firn.core.catalog.CatalogSettings;
import io.firn.core.catalog.Catalogs;
import io.firn.core.commit.CommitOutcome;
import io.firn.core.commit.TaskResult;
import io.firn.core.io.DataFileIO;
import io.firn.core.plan.BinPackPlanner;
import io.firn.core.plan.OptimizingPlan;
import io.firn.core.plan.OptimizingType;
import io.firn.core.plan.RewriteTask;
import io.firn.core.policy.OptimizingPolicy;
import io.firn.testkit.CdcTableGenerator;
import io.firn.testkit.CdcTableSpec;
import io.firn.testkit.GeneratedTable;
import io.firn.testkit.RowSets;
import io.firn.testkit.S3ProxyProcess;
import io.firn.testkit.S3Requests;
import io.firn.worker.executor.ResultCheck;
import io.firn.worker.executor.RewriteExecutor;
import io.firn.worker.local.LocalOptimizer;
import io.firn.worker.local.OptimizeReport;
import java.io.Closeable;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The compaction benchmark on object storage next to local disk (issue 16, ADR 0024 §7): the same
 * CDC-shaped table (one seed) generated into a local warehouse ({@code LocalFileIO}) and into
 * {@code s3://bench/wh} on S3Proxy (127.0.0.1, its own JVM, filesystem blob store on the same
 * disk), each optimized by {@link LocalOptimizer} in this JVM, in the order local, S3, local, S3 …
 * ({@code --rounds}). Every result is also checked as the server checks a worker's ({@link
 * ResultCheck}, on a thread of its own, timed apart from the optimizing). Prints wall time per side
 * and, for S3, the requests and body bytes of the rewrite threads and of the check per task and of
 * planning and commit; fails when a side's rows differ from the generator's.
 *
 * <p>{@code --rows 400000 --commits 40 --buckets 8 --threads 2 --type full --rounds 2 --work DIR
 * --out FILE [--whole-object-read-max SIZE]} (the catalog property of ADR 0024 §12 for the S3 side;
 * {@code 0}: ranged reads only); the S3Proxy jar is {@code -Dfirn.s3proxy.jar} (bench/run-s3.sh
 * passes it).
 */
public final class ObjectStorageCompaction {
  private static final String BUCKET = "bench";
  private static final String CHECK_THREAD = "firn-result-check";

  private ObjectStorageCompaction() {}

  public static void main(String[] args) throws Exception {
    BenchArgs a = new BenchArgs(args);
    Path work = Path.of(a.get("work")).toAbsolutePath();
    int threads = (int) a.getLong("threads", Runtime.getRuntime().availableProcessors());
    int rounds = (int) a.getLong("rounds", 2);
    OptimizingType type = OptimizingType.parse(a.get("type", "full"));
    CdcTableSpec spec =
        new CdcTableSpec(
            a.getLong("rows", 400_000),
            (int) a.getLong("commits", 40),
            0.05,
            0.01,
            0.02,
            (int) a.getLong("buckets", 8),
            a.getLong("seed", 20261203),
            true,
            false);

    Map<String, String> s3Properties = new HashMap<>();
    List<Map<String, Object>> runs = new ArrayList<>();
    try (S3ProxyProcess s3 = new S3ProxyProcess(Files.createDirectories(work.resolve("s3")))) {
      s3.createBucket(BUCKET);
      s3Properties.putAll(s3.catalogProperties());
      String wholeObjectReadMax = a.get("whole-object-read-max", null);
      if (wholeObjectReadMax != null) {
        s3Properties.put(DataFileIO.WHOLE_OBJECT_READ_MAX, wholeObjectReadMax);
      }
      for (int round = 1; round <= rounds; round++) {
        for (String side : List.of("local", "s3")) {
          Path dir = Files.createDirectories(work.resolve(side + "-" + round));
          Files.createFile(dir.resolve("catalog.db"));
          CatalogSettings settings =
              side.equals("local")
                  ? new CatalogSettings(
                      "bench",
                      "jdbc",
                      "jdbc:sqlite:" + dir.resolve("catalog.db"),
                      dir.resolve("warehouse").toString(),
                      Map.of("io-impl", "io.firn.core.io.LocalFileIO"))
                  : new CatalogSettings(
                      "bench",
                      "jdbc",
                      "jdbc:sqlite:" + dir.resolve("catalog.db"),
                      "s3://" + BUCKET + "/wh" + round,
                      s3Properties);
          runs.add(run(side, round, settings, spec, type, threads));
        }
      }
    }
    new ObjectMapper()
        .enable(SerializationFeature.INDENT_OUTPUT)
        .writeValue(new File(a.get("out")), runs);
    System.out.println(markdown(runs));
  }

  private static Map<String, Object> run(
      String side,
      int round,
      CatalogSettings settings,
      CdcTableSpec spec,
      OptimizingType type,
      int threads)
      throws Exception {
    Catalog catalog = Catalogs.connect(settings);
    try {
      long generating = System.nanoTime();
      GeneratedTable generated =
          CdcTableGenerator.generate(catalog, TableIdentifier.of("bench", "cdc"), spec);
      double generateSeconds = (System.nanoTime() - generating) / 1e9;
      Table table = catalog.loadTable(TableIdentifier.of("bench", "cdc"));
      Map<String, String> before = table.currentSnapshot().summary();

      S3Requests.reset();
      // LocalOptimizer.optimize's steps, with the server's check of every result (as
      // WorkerEndpoint runs it before a commit) between rewrite and commit, on a thread of its own
      // and timed apart: "optimize" is plan + rewrite + commit, as before the check was measured.
      LocalOptimizer optimizer =
          new LocalOptimizer(OptimizingPolicy.DEFAULTS, new BinPackPlanner(), threads, line -> {});
      long started = System.nanoTime();
      OptimizingPlan plan = optimizer.plan(table, type, Instant.now());
      long planned = System.nanoTime();
      String processId = RewriteExecutor.newOperationId();
      List<TaskResult> results = optimizer.runTasks(table, plan, processId);
      long executed = System.nanoTime();
      check(table, plan, results, processId);
      long checked = System.nanoTime();
      List<CommitOutcome> outcomes = optimizer.commit(table, plan, results, processId);
      long committed = System.nanoTime();
      long checkNanos = checked - executed;
      OptimizeReport report =
          new OptimizeReport(
              plan,
              results,
              outcomes,
              committed - started - checkNanos,
              planned - started,
              committed - checked);
      double seconds = report.nanos() / 1e9;
      Map<String, Map<String, Long>> requests = S3Requests.snapshot();
      if (!report.succeeded()) {
        throw new IllegalStateException(side + " round " + round + ": optimizing failed");
      }
      table.refresh();
      Map<String, Long> rows = RowSets.read(table);
      if (!rows.equals(RowSets.of(generated.writer().expected().values(), table.schema()))) {
        throw new IllegalStateException(
            side + " round " + round + ": the optimized rows differ from the generator's");
      }

      int tasks = report.results().size();
      Map<String, Object> json = new LinkedHashMap<>();
      json.put("side", side);
      json.put("round", round);
      json.put("generateSeconds", generateSeconds);
      json.put("totalSeconds", seconds);
      json.put("planSeconds", report.planNanos() / 1e9);
      json.put("commitSeconds", report.commitNanos() / 1e9);
      json.put("tasks", tasks);
      json.put("dataFilesBefore", before.get("total-data-files"));
      json.put("deleteFilesBefore", before.get("total-delete-files"));
      json.put("rowsRead", report.rowsRead());
      json.put("bytesRead", report.results().stream().mapToLong(TaskResult::bytesRead).sum());
      json.put("bytesWritten", report.results().stream().mapToLong(TaskResult::bytesWritten).sum());
      json.put("requests", requests);
      json.put("checkSeconds", checkNanos / 1e9);
      json.put("checkRequests", S3Requests.total(CHECK_THREAD));
      json.put("checkBytesReceived", S3Requests.receivedBytes(CHECK_THREAD));
      json.put("rewriteRequests", S3Requests.total("firn-rewrite"));
      json.put("rewriteBytesReceived", S3Requests.receivedBytes("firn-rewrite"));
      json.put("rewriteBytesSent", S3Requests.sentBytes("firn-rewrite"));
      long all =
          requests.values().stream().flatMap(m -> m.values().stream()).mapToLong(n -> n).sum();
      json.put(
          "otherRequests", all - S3Requests.total("firn-rewrite") - S3Requests.total(CHECK_THREAD));
      json.put("rowsChecked", rows.values().stream().mapToLong(Long::longValue).sum());
      System.err.printf(
          Locale.ROOT,
          "[s3-bench] %s round %d: %s, %d tasks, %.1f s (generated in %.1f s); requests %s%n",
          side,
          round,
          type.label(),
          tasks,
          seconds,
          generateSeconds,
          requests);
      return json;
    } finally {
      if (catalog instanceof Closeable closeable) {
        closeable.close();
      }
    }
  }

  /**
   * Checks every result against its task as the server does ({@link ResultCheck}), on one thread
   * named {@value #CHECK_THREAD} (the server checks each result on the request thread that handed
   * it in).
   *
   * @throws IllegalStateException when a result is refused
   */
  private static void check(
      Table table, OptimizingPlan plan, List<TaskResult> results, String processId)
      throws Exception {
    ExecutorService checker = Executors.newSingleThreadExecutor(r -> new Thread(r, CHECK_THREAD));
    try {
      checker
          .submit(
              () -> {
                for (TaskResult result : results) {
                  RewriteTask task =
                      plan.tasks().stream()
                          .filter(t -> t.id() == result.taskId())
                          .findFirst()
                          .orElseThrow();
                  ResultCheck.verify(
                      table,
                      task,
                      processId,
                      result,
                      OptimizingPolicy.DEFAULTS.equalityDeleteBloomThreshold());
                }
                return null;
              })
          .get();
    } finally {
      checker.shutdown();
    }
  }

  private static String markdown(List<Map<String, Object>> runs) {
    StringBuilder out =
        new StringBuilder(
            "| side | round | optimize | plan | commit | tasks | rewrite requests per task"
                + " | MB received per task | MB sent per task | planning and commit requests"
                + " | result check | check requests per task | check MB received per task |\n"
                + "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Map<String, Object> run : runs) {
      int tasks = (int) run.get("tasks");
      boolean s3 = run.get("side").equals("s3");
      out.append(
          String.format(
              Locale.ROOT,
              "| %s | %d | %.1f s | %.1f s | %.1f s | %d | %s | %s | %s | %s | %.1f s | %s | %s |%n",
              run.get("side"),
              (int) run.get("round"),
              (double) run.get("totalSeconds"),
              (double) run.get("planSeconds"),
              (double) run.get("commitSeconds"),
              tasks,
              s3 ? perTask((long) run.get("rewriteRequests"), tasks, 1) : "–",
              s3 ? perTask((long) run.get("rewriteBytesReceived"), tasks, 1e6) : "–",
              s3 ? perTask((long) run.get("rewriteBytesSent"), tasks, 1e6) : "–",
              s3 ? String.valueOf(run.get("otherRequests")) : "–",
              (double) run.get("checkSeconds"),
              s3 ? perTask((long) run.get("checkRequests"), tasks, 1) : "–",
              s3 ? perTask((long) run.get("checkBytesReceived"), tasks, 1e6) : "–"));
    }
    return out.toString();
  }

  private static String perTask(long value, int tasks, double unit) {
    return tasks == 0 ? "–" : String.format(Locale.ROOT, "%.1f", value / unit / tasks);
  }
}
