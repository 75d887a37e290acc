/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.bench;

import io.firn.core.catalog.Catalogs;
import io.firn.core.commit.Committer;
import io.firn.core.plan.BinPackPlanner;
import io.firn.core.plan.OptimizingHistory;
import io.firn.core.plan.OptimizingPlan;
import io.firn.core.plan.OptimizingType;
import io.firn.core.plan.PartitionPlan;
import io.firn.core.policy.OptimizingPolicy;
import io.firn.core.table.PartitionFiles;
import io.firn.core.table.TableFiles;
import io.firn.core.table.TableScanner;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import javax.management.ObjectName;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * Plans one large table as the server and {@code LocalOptimizer.plan} do: {@link
 * TableScanner#scan(Table)} then {@link BinPackPlanner#plan}. Reports wall and CPU time of each
 * part and the heap: the sum of the heap pools' peak usage since a reset after a full GC (an upper
 * bound of the peak, garbage included), and the heap still used after a GC while the scan result
 * and the plan are reachable. Run it in its own JVM with the heap limit under test ({@code
 * -Xmx2g}); {@code --histogram N} prints the N largest classes of that retained heap.
 *
 * <pre>
 * --catalog-uri URI --warehouse DIR --table big.events [--io hadoop|local] [--histogram 25]
 * --out FILE.json
 * </pre>
 */
public final class PlanLargeTable {
  private PlanLargeTable() {}

  public static void main(String[] args) throws Exception {
    BenchArgs a = new BenchArgs(args);
    Table table =
        Catalogs.load(Catalogs.connect(ScaleCatalogs.settings(a)), a.get("table", "big.events"));
    System.gc();
    long baseline = usedHeap();
    resetPeaks();
    long cpu0 = processCpu();
    long t0 = System.nanoTime();
    TableFiles files = TableScanner.scan(table);
    long t1 = System.nanoTime();
    long cpu1 = processCpu();
    OptimizingPlan plan =
        new BinPackPlanner().plan(files, OptimizingPolicy.DEFAULTS, history(table), Instant.now());
    long t2 = System.nanoTime();
    long cpu2 = processCpu();
    long peak = peakHeap();
    System.gc();
    long retained = usedHeap();

    long dataFiles = 0;
    long attachedDeletes = 0;
    long danglingDeletes = files.globalDanglingDeletes().size();
    for (PartitionFiles partition : files.partitionFiles()) {
      dataFiles += partition.dataFiles().size();
      attachedDeletes += partition.attachedDeletes().size();
      danglingDeletes += partition.danglingDeletes().size();
    }
    long rewriteFiles = 0;
    for (PartitionPlan partition : plan.duePartitions()) {
      rewriteFiles += partition.rewriteFiles();
    }
    String json =
        String.format(
            Locale.ROOT,
            "{\"dataFiles\": %d, \"partitions\": %d, \"deleteFilesAttached\": %d,"
                + " \"deleteFilesDangling\": %d,"
                + " \"duePartitions\": %d, \"tasks\": %d, \"rewriteFiles\": %d, \"type\": \"%s\","
                + " \"scanSeconds\": %.3f, \"planSeconds\": %.3f, \"totalSeconds\": %.3f,"
                + " \"scanCpuSeconds\": %.3f, \"planCpuSeconds\": %.3f,"
                + " \"maxHeapBytes\": %d, \"baselineHeapBytes\": %d, \"peakHeapBytes\": %d,"
                + " \"retainedHeapBytes\": %d}%n",
            dataFiles,
            files.partitions().size(),
            attachedDeletes,
            danglingDeletes,
            plan.duePartitions().size(),
            plan.tasks().size(),
            rewriteFiles,
            plan.type(),
            (t1 - t0) / 1e9,
            (t2 - t1) / 1e9,
            (t2 - t0) / 1e9,
            (cpu1 - cpu0) / 1e9,
            (cpu2 - cpu1) / 1e9,
            Runtime.getRuntime().maxMemory(),
            baseline,
            peak,
            retained);
    System.out.print(json);
    Files.writeString(Path.of(a.get("out")), json, StandardCharsets.UTF_8);

    int top = (int) a.getLong("histogram", 0);
    if (top > 0) {
      String histogram =
          (String)
              ManagementFactory.getPlatformMBeanServer()
                  .invoke(
                      new ObjectName("com.sun.management:type=DiagnosticCommand"),
                      "gcClassHistogram",
                      new Object[] {new String[0]},
                      new String[] {String[].class.getName()});
      String[] lines = histogram.split("\n");
      StringBuilder head = new StringBuilder();
      for (int i = 0; i < Math.min(lines.length, top + 3); i++) {
        head.append(lines[i]).append('\n');
      }
      head.append(lines[lines.length - 1]).append('\n');
      Files.writeString(Path.of(a.get("out") + ".histogram.txt"), head, StandardCharsets.UTF_8);
      System.err.print(head);
    }
    // Keep both reachable until the histogram is taken.
    if (files.partitions().isEmpty() && plan.partitions().isEmpty()) {
      System.err.println("[plan] the table is empty");
    }
  }

  /** As {@code TablePlanner.history}: when Firn last committed each type, from summaries. */
  private static OptimizingHistory history(Table table) {
    Map<OptimizingType, Instant> last = new EnumMap<>(OptimizingType.class);
    int depth = 0;
    for (Snapshot snapshot : SnapshotUtil.currentAncestors(table)) {
      if (++depth > 1000) {
        break;
      }
      String type =
          snapshot.summary() == null ? null : snapshot.summary().get(Committer.OPTIMIZING_TYPE);
      if (type != null) {
        last.putIfAbsent(
            OptimizingType.parse(type), Instant.ofEpochMilli(snapshot.timestampMillis()));
      }
    }
    return new OptimizingHistory(last);
  }

  private static long usedHeap() {
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private static void resetPeaks() {
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        pool.resetPeakUsage();
      }
    }
  }

  private static long peakHeap() {
    long sum = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        sum += pool.getPeakUsage().getUsed();
      }
    }
    return sum;
  }

  /** Process CPU: Iceberg reads manifests on its worker pool. */
  private static long processCpu() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }
}
