/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.core.policy.OptimizingPolicy;
import io.firn.core.table.DataFileEntry;
import io.firn.core.table.PartitionFiles;
import io.firn.core.table.PartitionKey;
import io.firn.core.table.TableFiles;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.PartitionSpec;
import org.junit.jupiter.api.Test;

class BinPackPlannerTest {
  private static final long MIB = 1024 * 1024;
  private static final PartitionSpec SPEC = PartitionSpec.unpartitioned();
  private static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");
  private static final OptimizingPolicy POLICY = OptimizingPolicy.DEFAULTS;

  private final Planner planner = new BinPackPlanner();
  private int fileNumber;

  private DataFile data(long bytes) {
    return DataFiles.builder(SPEC)
        .withPath("/t/data/" + (fileNumber++) + ".parquet")
        .withFileSizeInBytes(bytes)
        .withRecordCount(Math.max(1, bytes / 100))
        .build();
  }

  private PartitionPlan onlyPartition(
      Map<DataFile, List<DeleteFile>> files, OptimizingPolicy policy, OptimizingType type) {
    return planner
        .plan(table(files), policy, OptimizingHistory.NONE, NOW, type)
        .partitions()
        .get(0);
  }

  /** {@code count} data files of {@code bytes} each, without deletes. */
  private Map<DataFile, List<DeleteFile>> cleanFiles(int count, long bytes) {
    Map<DataFile, List<DeleteFile>> files = new java.util.LinkedHashMap<>();
    for (int i = 0; i < count; i++) {
      files.put(data(bytes), List.of());
    }
    return files;
  }

  private DeleteFile equalityDelete() {
    return FileMetadata.deleteFileBuilder(SPEC)
        .ofEqualityDeletes(1)
        .withPath("/t/data/eq-" + (fileNumber++) + ".parquet")
        .withFileSizeInBytes(1000)
        .withRecordCount(10)
        .build();
  }

  private DeleteFile positionDelete(DataFile target, long records) {
    return FileMetadata.deleteFileBuilder(SPEC)
        .ofPositionDeletes()
        .withPath("/t/data/pos-" + (fileNumber++) + ".parquet")
        .withFileSizeInBytes(1000)
        .withRecordCount(records)
        .withReferencedDataFile(target.location())
        .build();
  }

  /** One partition of the unpartitioned spec; deletes per data file. */
  private static TableFiles table(Map<DataFile, List<DeleteFile>> files) {
    PartitionKey key = new PartitionKey(0, "");
    PartitionFiles partition = new PartitionFiles(key, SPEC, null);
    Map<String, Set<PartitionKey>> scopes = new HashMap<>();
    files.forEach(
        (file, deletes) -> {
          partition.add(new DataFileEntry(file, deletes));
          deletes.forEach(d -> scopes.computeIfAbsent(d.location(), l -> new HashSet<>()).add(key));
        });
    TreeMap<PartitionKey, PartitionFiles> partitions = new TreeMap<>();
    partitions.put(key, partition);
    return new TableFiles("db.t", 1, 10, partitions, scopes, List.of(), true, Set.of());
  }

  @Test
  void nothingDueSaysWhyWithTheThresholds() {
    Map<DataFile, List<DeleteFile>> files = new java.util.LinkedHashMap<>();
    DeleteFile eq = equalityDelete();
    files.put(data(MIB), List.of(eq));
    files.put(data(MIB), List.of(eq));
    files.put(data(200 * MIB), List.of());
    OptimizingHistory history =
        new OptimizingHistory(Map.of(OptimizingType.MINOR, NOW.minus(Duration.ofMinutes(10))));

    OptimizingPlan plan = planner.plan(table(files), POLICY, history, NOW);

    assertThat(plan.hasWork()).isFalse();
    PartitionPlan partition = plan.partitions().get(0);
    assertThat(partition.type()).isEqualTo(OptimizingType.NONE);
    assertThat(partition.reason())
        .startsWith("nothing due: 2 fragments, 0 undersized segments, 1 segments")
        .contains("3 fragments + equality-delete files < minor.trigger.file-count 12")
        .contains("last minor 10m ago < minor.trigger.interval PT1H")
        .contains("full.trigger.interval off");
  }

  @Test
  void minorIsDueAtTheFileCountTriggerAndPacksFragmentsIntoOneTask() {
    Map<DataFile, List<DeleteFile>> files = new java.util.LinkedHashMap<>();
    for (int i = 0; i < 12; i++) {
      files.put(data(MIB), List.of());
    }

    OptimizingPlan plan = planner.plan(table(files), POLICY, OptimizingHistory.NONE, NOW);

    PartitionPlan partition = plan.partitions().get(0);
    assertThat(partition.type()).isEqualTo(OptimizingType.MINOR);
    assertThat(partition.reason())
        .isEqualTo("minor: 12 fragments + 0 equality-delete files >= minor.trigger.file-count 12");
    assertThat(partition.tasks()).hasSize(1);
    assertThat(partition.tasks().get(0).rewrite()).hasSize(12);
    assertThat(partition.estimatedOutputFiles()).isEqualTo(1);
  }

  @Test
  void tasksNeverExceedTheTaskCapacityAndTakeEveryFileOnce() {
    Map<DataFile, List<DeleteFile>> files = new java.util.LinkedHashMap<>();
    for (int i = 0; i < 40; i++) {
      files.put(data(10 * MIB + i), List.of());
    }

    OptimizingPolicy tasksOfOneTarget = POLICY.withOverrides(Map.of("max-task-size", "128MiB"));
    OptimizingPlan plan =
        planner.plan(
            table(files), tasksOfOneTarget, OptimizingHistory.NONE, NOW, OptimizingType.MINOR);

    List<RewriteTask> tasks = plan.tasks();
    assertThat(tasks).hasSizeGreaterThan(1);
    assertThat(tasks).allSatisfy(t -> assertThat(t.rewriteBytes()).isLessThanOrEqualTo(128 * MIB));
    List<String> packed = new ArrayList<>();
    tasks.forEach(t -> t.rewrite().forEach(e -> packed.add(e.path())));
    assertThat(packed).doesNotHaveDuplicates().hasSize(40);
  }

  @Test
  void majorMergesUndersizedSegmentsHoldingATargetSize() {
    Map<DataFile, List<DeleteFile>> files = new java.util.LinkedHashMap<>();
    for (int i = 0; i < 3; i++) {
      files.put(data(50 * MIB), List.of());
    }

    PartitionPlan partition =
        planner.plan(table(files), POLICY, OptimizingHistory.NONE, NOW).partitions().get(0);

    assertThat(partition.type()).isEqualTo(OptimizingType.MAJOR);
    assertThat(partition.reason())
        .isEqualTo("major: 3 undersized segments hold 150.0 MiB >= target-size 128.0 MiB");
    // One file of 150 MiB, a segment: two of 75 MiB would be undersized and merged again.
    assertThat(partition.tasks()).hasSize(1);
    assertThat(partition.rewriteFiles()).isEqualTo(3);
    assertThat(partition.estimatedOutputFiles()).isEqualTo(1);
  }

  @Test
  void aPartitionIsSplitIntoTasksAlongItsOutputFiles() {
    PartitionPlan partition = onlyPartition(cleanFiles(70, 30 * MIB), POLICY, OptimizingType.MAJOR);

    // 2,100 MiB make 19 files of 110.5 MiB, the nearest to the middle of [96, 128] MiB; tasks of
    // at most 1 GiB (8 targets) take 9 of them at most: three tasks of 7, 6 and 6 files.
    assertThat(partition.estimatedOutputFiles()).isEqualTo(19);
    assertThat(partition.tasks()).hasSize(3);
    List<Long> counts = new ArrayList<>();
    for (RewriteTask task : partition.tasks()) {
      assertThat(task.rewriteBytes()).isLessThanOrEqualTo(POLICY.taskCapacity());
      double perFile = (double) task.rewriteBytes() / task.estimatedOutputFiles();
      assertThat(perFile)
          .as("bytes per output file of task %d", task.id())
          .isBetween((double) POLICY.minTargetSize(), (double) POLICY.targetSize());
      counts.add(task.estimatedOutputFiles());
    }
    assertThat(counts).containsExactlyInAnyOrder(7L, 6L, 6L);
  }

  @Test
  void theLargestTaskCapacityPacksAPartitionIntoOneTask() {
    OptimizingPolicy unbounded = POLICY.withOverrides(Map.of("max-task-size", "8000000TiB"));

    PartitionPlan partition =
        onlyPartition(cleanFiles(70, 30 * MIB), unbounded, OptimizingType.MAJOR);

    assertThat(partition.tasks()).hasSize(1);
    assertThat(partition.rewriteFiles()).isEqualTo(70);
    assertThat(partition.estimatedOutputFiles()).isEqualTo(19);
  }

  @Test
  void aTaskReadsOneOutputFilesInputEvenAboveTheTaskCapacity() {
    OptimizingPolicy tasksOfOneTarget = POLICY.withOverrides(Map.of("max-task-size", "64MiB"));

    PartitionPlan partition =
        onlyPartition(cleanFiles(4, 30 * MIB), tasksOfOneTarget, OptimizingType.FULL);

    // 120 MiB is one file; split at 64 MiB it would be two undersized files merged again.
    assertThat(partition.tasks()).hasSize(1);
    assertThat(partition.tasks().get(0).rewriteBytes()).isEqualTo(120 * MIB);
  }

  @Test
  void minorConvertsSegmentsWithEqualityDeletesAndRemovesOnlyDeletesNothingLiveNeeds() {
    DeleteFile eq = equalityDelete();
    DataFile fragmentA = data(MIB);
    DataFile fragmentB = data(MIB);
    DataFile convertedSegment = data(200 * MIB);
    DataFile untouchedSegment = data(200 * MIB);
    DeleteFile posOnUntouched = positionDelete(untouchedSegment, 1);
    Map<DataFile, List<DeleteFile>> files = new java.util.LinkedHashMap<>();
    files.put(fragmentA, List.of(eq));
    files.put(fragmentB, List.of(eq));
    files.put(convertedSegment, List.of(eq));
    files.put(untouchedSegment, List.of(posOnUntouched));

    PartitionPlan partition =
        planner
            .plan(table(files), POLICY, OptimizingHistory.NONE, NOW, OptimizingType.MINOR)
            .partitions()
            .get(0);

    assertThat(partition.tasks())
        .flatExtracting(RewriteTask::rewrite)
        .extracting(DataFileEntry::path)
        .containsExactlyInAnyOrder(fragmentA.location(), fragmentB.location());
    assertThat(partition.tasks())
        .flatExtracting(RewriteTask::convert)
        .extracting(DataFileEntry::path)
        .containsExactly(convertedSegment.location());
    assertThat(partition.deletesToRemove())
        .extracting(DeleteFile::location)
        .containsExactly(eq.location());
  }

  @Test
  void majorRewritesSegmentsWhoseDeletedRowsReachTheDuplicateRatio() {
    DataFile dirty = data(200 * MIB);
    DataFile clean = data(200 * MIB);
    Map<DataFile, List<DeleteFile>> files = new java.util.LinkedHashMap<>();
    files.put(dirty, List.of(positionDelete(dirty, dirty.recordCount() / 5)));
    files.put(clean, List.of(positionDelete(clean, 1)));

    PartitionPlan partition =
        planner.plan(table(files), POLICY, OptimizingHistory.NONE, NOW).partitions().get(0);

    assertThat(partition.type()).isEqualTo(OptimizingType.MAJOR);
    assertThat(partition.reason())
        .isEqualTo("major: 1 segment(s) with deleted rows >= major.trigger.duplicate-ratio 0.1");
    assertThat(partition.tasks())
        .flatExtracting(RewriteTask::rewrite)
        .extracting(DataFileEntry::path)
        .containsExactly(dirty.location());
  }

  @Test
  void fullRewritesEveryFileAndRemovesEveryDelete() {
    DeleteFile eq = equalityDelete();
    DataFile segment = data(200 * MIB);
    DeleteFile pos = positionDelete(segment, 1);
    Map<DataFile, List<DeleteFile>> files = new java.util.LinkedHashMap<>();
    files.put(data(MIB), List.of(eq));
    files.put(segment, List.of(eq, pos));

    PartitionPlan partition =
        planner
            .plan(table(files), POLICY, OptimizingHistory.NONE, NOW, OptimizingType.FULL)
            .partitions()
            .get(0);

    assertThat(partition.type()).isEqualTo(OptimizingType.FULL);
    assertThat(partition.rewriteFiles()).isEqualTo(2);
    assertThat(partition.deletesToRemove())
        .extracting(DeleteFile::location)
        .containsExactlyInAnyOrder(eq.location(), pos.location());
  }

  @Test
  void fullByIntervalIsDueWhenNeverRun() {
    Map<DataFile, List<DeleteFile>> files = new java.util.LinkedHashMap<>();
    files.put(data(MIB), List.of(equalityDelete()));
    files.put(data(200 * MIB), List.of());
    OptimizingPolicy daily = POLICY.withOverrides(Map.of("full.trigger.interval", "1d"));

    PartitionPlan partition =
        planner.plan(table(files), daily, OptimizingHistory.NONE, NOW).partitions().get(0);

    assertThat(partition.type()).isEqualTo(OptimizingType.FULL);
    assertThat(partition.reason())
        .startsWith("full: never fully optimized >= full.trigger.interval PT24H");
  }
}
