/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.firn.core.commit.CommitOutcome;
import io.firn.core.commit.TaskResult;
import io.firn.core.plan.BinPackPlanner;
import io.firn.core.plan.OptimizingType;
import io.firn.core.policy.OptimizingPolicy;
import io.firn.worker.local.LocalOptimizer;
import io.firn.worker.local.OptimizeReport;
import java.io.File;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.Table;

/**
 * Firn's side of the end-to-end benchmark: optimizes one table with {@link LocalOptimizer} and
 * writes wall time, counts and outcomes as JSON. Scan times and row checksums before and after are
 * measured by the Spark reader in its own JVM, the same way as for the baseline.
 */
public final class FirnOptimize {
  private FirnOptimize() {}

  public static void main(String[] args) throws Exception {
    BenchArgs a = new BenchArgs(args);
    Table table = a.loadTable();
    OptimizingType type = OptimizingType.parse(a.get("type", "full"));
    int threads = (int) a.getLong("threads", Runtime.getRuntime().availableProcessors());
    // --thresholds "target-size=1MiB,minor.trigger.file-count=1": policy thresholds, as in a
    // policy file's thresholds section.
    Map<String, String> thresholds = new LinkedHashMap<>();
    for (String pair : a.get("thresholds", "").split(",")) {
      if (!pair.isBlank()) {
        String[] kv = pair.split("=", 2);
        if (kv.length != 2) {
          throw new IllegalArgumentException("--thresholds: '" + pair + "' is not key=value");
        }
        thresholds.put(kv[0].trim(), kv[1].trim());
      }
    }
    OptimizingPolicy policy = OptimizingPolicy.DEFAULTS.withOverrides(thresholds);

    // --repeat N: optimize N times in this JVM, the table rolled back to its snapshot before the
    // first round between rounds, as a long-running server optimizes (warm JIT and caches). The
    // top-level fields are the first round's; "rounds" holds every round. The table is left as the
    // last round committed it, or with --restore true as it was before the first.
    int repeat = (int) a.getLong("repeat", 1);
    if (repeat < 1) {
      throw new IllegalArgumentException("--repeat: " + repeat + " is not a positive count");
    }
    Long before = table.currentSnapshot() == null ? null : table.currentSnapshot().snapshotId();
    List<Map<String, Object>> rounds = new ArrayList<>();
    boolean succeeded = true;
    for (int round = 0; round < repeat; round++) {
      if (round > 0) {
        if (before == null) {
          throw new IllegalStateException("--repeat needs a table with a snapshot to roll back to");
        }
        table.manageSnapshots().rollbackTo(before).commit();
        table.refresh();
      }
      Map<String, Object> json = optimizeOnce(table, type, threads, policy);
      succeeded &= (Boolean) json.get("succeeded");
      rounds.add(json);
    }
    if (Boolean.parseBoolean(a.get("restore", "false")) && before != null) {
      // --restore true: leave the table as it was before the first round.
      table.manageSnapshots().rollbackTo(before).commit();
    }
    Map<String, Object> json = new LinkedHashMap<>(rounds.get(0));
    if (repeat > 1) {
      json.put("rounds", rounds);
    }
    new ObjectMapper()
        .enable(SerializationFeature.INDENT_OUTPUT)
        .writeValue(new File(a.get("out")), json);
    System.exit(succeeded ? 0 : 2);
  }

  private static Map<String, Object> optimizeOnce(
      Table table, OptimizingType type, int threads, OptimizingPolicy policy) {
    long started = System.nanoTime();
    OptimizeReport report =
        new LocalOptimizer(
                policy, new BinPackPlanner(), threads, line -> System.err.println("[firn] " + line))
            .optimize(table, type, Instant.now());
    double seconds = (System.nanoTime() - started) / 1e9;

    Map<String, Object> json = new LinkedHashMap<>();
    json.put("engine", "firn");
    json.put("type", type.label());
    json.put("threads", threads);
    json.put("totalSeconds", seconds);
    json.put("planSeconds", report.planNanos() / 1e9);
    json.put("commitSeconds", report.commitNanos() / 1e9);
    json.put("tasks", report.results().size());
    json.put("rowsRead", report.rowsRead());
    json.put("rowsWritten", report.rowsWritten());
    json.put("rowsDeleted", report.results().stream().mapToLong(TaskResult::rowsDeleted).sum());
    json.put("bytesRead", report.results().stream().mapToLong(TaskResult::bytesRead).sum());
    json.put("bytesWritten", report.results().stream().mapToLong(TaskResult::bytesWritten).sum());
    json.put(
        "equalityDeleteRecordsRead",
        report.results().stream().mapToLong(TaskResult::equalityDeleteRecordsRead).sum());
    json.put(
        "rewriteFiles", report.plan().partitions().stream().mapToLong(p -> p.rewriteFiles()).sum());
    json.put(
        "convertFiles", report.plan().partitions().stream().mapToLong(p -> p.convertFiles()).sum());
    json.put(
        "positionsWritten",
        report.results().stream().mapToLong(TaskResult::positionsWritten).sum());
    json.put("taskSecondsSum", report.results().stream().mapToLong(TaskResult::nanos).sum() / 1e9);
    json.put("groups", report.outcomes().size());
    json.put(
        "groupsCommitted", report.outcomes().stream().filter(CommitOutcome::committed).count());
    json.put("succeeded", report.succeeded());
    System.err.printf(Locale.ROOT, "[firn] %s optimizing took %.1f s%n", type.label(), seconds);
    return json;
  }
}
