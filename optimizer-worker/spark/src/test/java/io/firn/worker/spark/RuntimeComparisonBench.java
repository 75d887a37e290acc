/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.spark;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.firn.testkit.CdcTableSpec;
import io.firn.testkit.GeneratedTable;
import io.firn.testkit.Http;
import io.firn.testkit.RowSets;
import io.firn.testkit.ServerProcess;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Throughput of the three worker runtimes on the same generated table, in one run: the local worker
 * JVM ({@code firn worker local}), the Flink worker job (local MiniCluster in its own JVM) and the
 * Spark worker application ({@code local[N]} in its own JVM), each with the same number of slots,
 * each against a fresh optimizer server restricted to its own identical copy of the table. The
 * local worker runs first and last; the others are reported as ratios against the mean of the two
 * local runs. Run by {@code optimizer-worker/spark/bench-runtimes.sh}; not a test.
 *
 * <p>Per runtime: <b>task span</b> = first task start to last task finish over every process of the
 * table (server clock; excludes engine start-up), <b>wall</b> = worker start to the table being
 * idle with nothing to plan (includes start-up), rows read per second of task span.
 */
public final class RuntimeComparisonBench {
  private static final String OPTIMIZING =
      """
        localWorkerThreads: 0
        lease: 30s
        heartbeatInterval: 2s
      """;

  private RuntimeComparisonBench() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> options = new LinkedHashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      options.put(args[i].replaceFirst("^--", ""), args[i + 1]);
    }
    long rows = Long.parseLong(options.getOrDefault("rows", "400000"));
    int commits = Integer.parseInt(options.getOrDefault("commits", "40"));
    int buckets = Integer.parseInt(options.getOrDefault("buckets", "8"));
    int slots = Integer.parseInt(options.getOrDefault("slots", "2"));
    Path dir = Path.of(options.getOrDefault("dir", "target/bench-runtimes"));
    Path cliHome = Path.of(require(options, "cli-home"));
    String flinkClasspath = Files.readString(Path.of(require(options, "flink-classpath"))).trim();
    Path out = Path.of(options.getOrDefault("out", dir.resolve("result.json").toString()));
    if (Files.exists(dir)) {
      throw new IllegalStateException(dir + " exists; remove it first");
    }
    CdcTableSpec spec =
        new CdcTableSpec(rows, commits, 0.05, 0.01, 0.02, buckets, 42L, true, false);
    List<String> runtimes = List.of("local", "flink", "spark", "local");
    List<Map<String, Object>> results = new ArrayList<>();
    try (ServerProcess server = new ServerProcess(dir)) {
      List<GeneratedTable> tables = new ArrayList<>();
      for (int i = 0; i < runtimes.size(); i++) {
        long start = System.nanoTime();
        tables.add(server.generate("bench", "r" + i, spec));
        System.out.printf("generated bench.r%d in %.1f s%n", i, (System.nanoTime() - start) / 1e9);
      }
      for (int i = 0; i < runtimes.size(); i++) {
        String runtime = runtimes.get(i);
        String table = "r" + i;
        server.start(OPTIMIZING, "lake.bench." + table, "state-" + table);
        String api = server.api();
        Process worker = startWorker(runtime, server, cliHome, flinkClasspath, slots, dir);
        long start = System.nanoTime();
        try {
          while (!done(api, table)) {
            if (!worker.isAlive()) {
              throw new IllegalStateException(runtime + " worker exited: " + worker.exitValue());
            }
            if (System.nanoTime() - start > TimeUnit.MINUTES.toNanos(20)) {
              throw new IllegalStateException(runtime + " did not finish in 20 minutes");
            }
            Thread.sleep(200);
          }
          double wall = (System.nanoTime() - start) / 1e9;
          Map<String, Object> result = measure(api, table);
          result.put("runtime", runtime);
          result.put("table", "bench." + table);
          result.put("wallSeconds", wall);
          Table loaded = server.catalog.loadTable(TableIdentifier.of("bench", table));
          boolean same =
              RowSets.read(loaded)
                  .equals(RowSets.of(tables.get(i).writer().expected().values(), loaded.schema()));
          result.put("rowsUnchanged", same);
          if (!same) {
            throw new IllegalStateException(runtime + " changed the rows of bench." + table);
          }
          System.out.println(result);
          results.add(result);
        } finally {
          worker.destroy();
          if (!worker.waitFor(60, TimeUnit.SECONDS)) {
            worker.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
          }
          server.stop();
        }
      }
    }
    double local =
        results.stream()
            .filter(r -> r.get("runtime").equals("local"))
            .mapToDouble(r -> (Double) r.get("rowsPerSecond"))
            .average()
            .orElseThrow();
    for (Map<String, Object> result : results) {
      result.put("throughputVsLocal", (Double) result.get("rowsPerSecond") / local);
    }
    Map<String, Object> report = new LinkedHashMap<>();
    report.put(
        "table",
        Map.of("rows", rows, "commits", commits, "buckets", buckets, "slotsPerRuntime", slots));
    report.put("runs", results);
    Files.writeString(
        out,
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(report));
    System.out.printf("%-6s %10s %10s %12s %8s%n", "", "span s", "wall s", "rows/s", "vs local");
    for (Map<String, Object> r : results) {
      System.out.printf(
          "%-6s %10.1f %10.1f %12.0f %7.2fx%n",
          r.get("runtime"),
          (Double) r.get("taskSpanSeconds"),
          (Double) r.get("wallSeconds"),
          (Double) r.get("rowsPerSecond"),
          (Double) r.get("throughputVsLocal"));
    }
    System.out.println("written " + out);
  }

  private static Process startWorker(
      String runtime,
      ServerProcess server,
      Path cliHome,
      String flinkClasspath,
      int slots,
      Path dir)
      throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new ArrayList<>(List.of(java, "-Xmx2g", "-XX:+UseParallelGC"));
    List<String> worker =
        List.of(
            "--server",
            server.url(),
            "--slots",
            String.valueOf(slots),
            "--name",
            "bench-" + runtime);
    switch (runtime) {
      case "local" -> {
        command.addAll(
            List.of(
                "-cp",
                cliHome.resolve("firn-cli-0.1.0-SNAPSHOT.jar")
                    + File.pathSeparator
                    + cliHome.resolve("lib")
                    + File.separator
                    + "*",
                "io.firn.cli.FirnCli",
                "worker",
                "local"));
      }
      case "flink" -> {
        command.addAll(List.of("-cp", flinkClasspath, "io.firn.worker.flink.FlinkWorkerJob"));
      }
      case "spark" -> {
        command.addAll(
            Arrays.asList(System.getProperty("firn.spark.jvm.options", "").trim().split("\\s+")));
        command.addAll(
            List.of(
                "-Dspark.master=local[" + slots + "]",
                "-Dspark.ui.enabled=false",
                "-cp",
                System.getProperty("java.class.path"),
                SparkWorkerApp.class.getName()));
      }
      default -> throw new IllegalArgumentException("runtime " + runtime);
    }
    command.addAll(worker);
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(
                dir.resolve("worker-" + runtime + "-" + System.nanoTime() + ".log").toFile());
    builder.environment().put("FIRN_WORKER_TOKEN", ServerProcess.WORKER_TOKEN);
    builder.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    return builder.start();
  }

  private static boolean done(String api, String table) {
    for (Map<String, Object> state : Http.list(api + "/tables")) {
      if (state.get("table").equals(table)) {
        return state.get("lastProcessId") != null
            && "idle".equals(state.get("status"))
            && Boolean.FALSE.equals(state.get("needsPlan"));
      }
    }
    return false;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> measure(String api, String table) {
    Instant first = null;
    Instant last = null;
    long rowsRead = 0;
    long bytesWritten = 0;
    int tasks = 0;
    List<Map<String, Object>> processes = Http.list(api + "/processes?table=lake.bench." + table);
    for (Map<String, Object> process : processes) {
      if (!"succeeded".equals(process.get("status"))) {
        throw new IllegalStateException("process " + process + " did not succeed");
      }
      Map<String, Object> detail = Http.map(api + "/processes/" + process.get("processId"));
      for (Map<String, Object> task : (List<Map<String, Object>>) detail.get("tasks")) {
        Instant started = instant(task.get("startedAt"));
        Instant finished = instant(task.get("finishedAt"));
        if (started != null && (first == null || started.isBefore(first))) {
          first = started;
        }
        if (finished != null && (last == null || finished.isAfter(last))) {
          last = finished;
        }
        rowsRead += ((Number) task.get("rowsRead")).longValue();
        bytesWritten += ((Number) task.get("bytesWritten")).longValue();
        tasks++;
      }
    }
    if (first == null || last == null) {
      throw new IllegalStateException("no timed task for bench." + table + ": " + processes);
    }
    double span = Duration.between(first, last).toNanos() / 1e9;
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("processes", processes.size());
    result.put("tasks", tasks);
    result.put("rowsRead", rowsRead);
    result.put("bytesWritten", bytesWritten);
    result.put("taskSpanSeconds", span);
    result.put("rowsPerSecond", rowsRead / span);
    return result;
  }

  private static Instant instant(Object value) {
    if (value == null) {
      return null;
    }
    if (value instanceof Number number) {
      double seconds = number.doubleValue();
      long whole = (long) Math.floor(seconds);
      return Instant.ofEpochSecond(whole, Math.round((seconds - whole) * 1e9));
    }
    return Instant.parse(value.toString());
  }

  private static String require(Map<String, String> options, String key) {
    String value = options.get(key);
    if (value == null) {
      throw new IllegalArgumentException("option --" + key + " is required");
    }
    return value;
  }
}
