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
import io.firn.core.policy.PolicyKeys;
import io.firn.core.table.TableFileGroups;
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
import java.util.Optional;
import javax.management.ObjectName;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * Plans one large table as the server and {@code LocalOptimizer.plan} do: {@link
 * TableScanner#scanInGroups} read group by group while {@link BinPackPlanner#plan} plans them
 * ({@code --mode groups}, the default), or, for comparison, the whole table read at once by {@link
 * TableScanner#scan(Table)} and then planned ({@code --mode whole}: the planning before ADR 0035).
 * Reports wall and CPU time of reading and of planning and the heap: the sum of the heap pools'
 * peak usage since a reset after a full GC (an upper bound of the peak, garbage included), and the
 * heap still used after a GC while the plan (and in whole mode the scan result) is reachable. Run
 * it in its own JVM with the heap limit under test ({@code -Xmx2g}); {@code --histogram N} prints
 * the N largest classes of that retained heap.
 *
 * <pre>
 * --catalog-uri URI --warehouse DIR --table big.events [--io hadoop|local] [--histogram 25]
 * [--mode groups|whole] [--group-files 500000] --out FILE.json
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
    boolean whole = a.get("mode", "groups").equals("whole");
    long groupFiles = a.getLong("group-files", TableScanner.DEFAULT_GROUP_FILES);
    long cpu0 = processCpu();
    long t0 = System.nanoTime();
    long[] reading = new long[2]; // wall and CPU nanoseconds spent reading groups
    TableFiles files = null;
    TableFileGroups groups;
    if (whole) {
      files = TableScanner.scan(table);
      groups = TableFileGroups.of(files);
    } else {
      TableFileGroups read =
          TableScanner.scanInGroups(
              table, table.currentSnapshot().snapshotId(), key -> true, groupFiles);
      groups = timed(read, reading);
    }
    long t1 = System.nanoTime();
    long cpu1 = processCpu();
    OptimizingPlan plan =
        new BinPackPlanner()
            .plan(
                groups,
                OptimizingPolicy.DEFAULTS.withOverrides(
                    Map.of(
                        PolicyKeys.MAX_PROCESS_FILES,
                        a.get(
                            "max-process-files",
                            Long.toString(PolicyKeys.MAX_PROCESS_FILES_DEFAULT)))),
                history(table),
                Instant.now(),
                Optional.empty());
    long t2 = System.nanoTime();
    long cpu2 = processCpu();
    long peak = peakHeap();
    System.gc();
    long retained = usedHeap();
    // In groups mode the groups are read while planning: count their reading as the scan.
    long scanNanos = t1 - t0 + reading[0];
    long scanCpu = cpu1 - cpu0 + reading[1];

    long dataFiles = 0;
    long attachedDeletes = 0;
    long danglingDeletes = 0;
    for (PartitionPlan partition : plan.partitions()) {
      dataFiles += partition.statistics().dataFiles();
      attachedDeletes += partition.statistics().deleteFiles();
      danglingDeletes += partition.statistics().danglingDeleteFiles();
    }
    danglingDeletes +=
        plan.sharedDeletesToRemove().stream().filter(d -> d.requires().isEmpty()).count();
    long rewriteFiles = 0;
    for (PartitionPlan partition : plan.duePartitions()) {
      rewriteFiles += partition.rewriteFiles();
    }
    String json =
        String.format(
            Locale.ROOT,
            "{\"mode\": \"%s\", \"groups\": %d, \"dataFiles\": %d, \"partitions\": %d,"
                + " \"deleteFilesAttached\": %d,"
                + " \"deleteFilesDangling\": %d,"
                + " \"duePartitions\": %d, \"tasks\": %d, \"rewriteFiles\": %d, \"type\": \"%s\","
                + " \"scanSeconds\": %.3f, \"planSeconds\": %.3f, \"totalSeconds\": %.3f,"
                + " \"scanCpuSeconds\": %.3f, \"planCpuSeconds\": %.3f,"
                + " \"maxHeapBytes\": %d, \"baselineHeapBytes\": %d, \"peakHeapBytes\": %d,"
                + " \"retainedHeapBytes\": %d}%n",
            whole ? "whole" : "groups",
            groups.groupCount(),
            dataFiles,
            plan.partitions().size(),
            attachedDeletes,
            danglingDeletes,
            plan.duePartitions().size(),
            plan.tasks().size(),
            rewriteFiles,
            plan.type(),
            scanNanos / 1e9,
            (t2 - t0 - scanNanos) / 1e9,
            (t2 - t0) / 1e9,
            scanCpu / 1e9,
            (cpu2 - cpu0 - scanCpu) / 1e9,
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
    if ((files == null || files.partitions().isEmpty()) && plan.partitions().isEmpty()) {
      System.err.println("[plan] the table is empty");
    }
  }

  /** The same groups, adding the wall and CPU time of reading each to {@code reading}. */
  private static TableFileGroups timed(TableFileGroups groups, long[] reading) {
    return new TableFileGroups(
        groups.table(),
        groups.snapshotId(),
        groups.sequenceNumber(),
        groups.complete(),
        groups.groupCount(),
        groups.dataFiles(),
        index -> {
          long wall = System.nanoTime();
          long cpu = processCpu();
          TableFiles read = groups.reader().apply(index);
          reading[0] += System.nanoTime() - wall;
          reading[1] += processCpu() - cpu;
          return read;
        });
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
