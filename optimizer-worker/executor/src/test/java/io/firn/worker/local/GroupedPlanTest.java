/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.core.plan.BinPackPlanner;
import io.firn.core.plan.OptimizingHistory;
import io.firn.core.plan.OptimizingPlan;
import io.firn.core.plan.OptimizingType;
import io.firn.core.plan.PartitionPlan;
import io.firn.core.plan.RewriteTask;
import io.firn.core.policy.OptimizingPolicy;
import io.firn.core.policy.PolicyKeys;
import io.firn.core.table.DataFileEntry;
import io.firn.core.table.DeleteFiles;
import io.firn.core.table.PartitionFiles;
import io.firn.core.table.PartitionKey;
import io.firn.core.table.TableEvaluator;
import io.firn.core.table.TableFileGroups;
import io.firn.core.table.TableFiles;
import io.firn.core.table.TableScanner;
import io.firn.testkit.CdcTableGenerator;
import io.firn.testkit.CdcTableSpec;
import io.firn.testkit.TestCatalogs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Planning a table read in groups of partitions ({@link TableScanner#scanInGroups}) gives exactly
 * the plan of the whole table read at once: the same partitions, types, reasons, statistics, tasks
 * (with the deletes Iceberg attached to each file) and deletes to remove, for every requested type,
 * on tables with equality deletes, file-scoped position deletes, a dangling delete, two partition
 * specs, and equality deletes of an unpartitioned spec that apply in every partition.
 */
class GroupedPlanTest {
  private static final OptimizingPolicy POLICY =
      OptimizingPolicy.DEFAULTS.withOverrides(Map.of("target-size", "64KiB"));
  private static final Instant NOW = Instant.parse("2026-12-04T03:00:00Z");
  private static final OptimizingType[] REQUESTS = {
    null, OptimizingType.MINOR, OptimizingType.MAJOR, OptimizingType.FULL
  };

  @TempDir Path warehouse;

  @Test
  void aBucketedTableWithTwoSpecsPlansTheSameInGroupsOfAnySize() {
    Table table = generate("bucketed", 4);
    DeleteFile dangling = dropADataFileWithAPositionDelete(table);
    long snapshot = table.currentSnapshot().snapshotId();
    TableFiles whole = TableScanner.scan(table);
    assertThat(whole.partitions().keySet()).extracting(PartitionKey::specId).contains(0, 1);
    assertThat(whole.partitionFiles())
        .flatExtracting(PartitionFiles::danglingDeletes)
        .extracting(DeleteFile::location)
        .contains(dangling.location());

    for (long maxFiles : new long[] {1, 7, 40}) {
      TableFileGroups groups = TableScanner.scanInGroups(table, snapshot, key -> true, maxFiles);
      assertThat(groups.groupCount()).as("groups of %d files", maxFiles).isGreaterThan(1);
      assertThat(groups.complete()).isTrue();
      for (OptimizingType requested : REQUESTS) {
        assertThat(describe(plan(groups, requested)))
            .as("%s plan in groups of %d files", requested, maxFiles)
            .isEqualTo(describe(plan(TableFileGroups.of(whole), requested)));
      }
    }
    // The dangling delete is removed by the grouped plan as by the whole one.
    assertThat(plan(TableScanner.scanInGroups(table, snapshot, key -> true, 1), null).partitions())
        .flatExtracting(PartitionPlan::deletesToRemove)
        .extracting(DeleteFile::location)
        .contains(dangling.location());
  }

  @Test
  void onlyFlaggedPartitionsPlanTheSameInGroupsAsInOneRead() {
    Table table = generate("flagged", 4);
    long snapshot = table.currentSnapshot().snapshotId();
    Map<PartitionKey, StructLike> flagged =
        TableEvaluator.evaluate(table, POLICY).partitions().entrySet().stream()
            .filter(e -> e.getKey().path().endsWith("=1") || e.getKey().path().endsWith("=2"))
            .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    assertThat(flagged).hasSizeGreaterThan(2);
    TableFiles pruned = TableScanner.scan(table, snapshot, flagged);

    TableFileGroups groups = TableScanner.scanInGroups(table, snapshot, flagged, 5);

    assertThat(groups.groupCount()).isGreaterThan(1);
    assertThat(groups.complete()).isFalse();
    for (OptimizingType requested : REQUESTS) {
      assertThat(describe(plan(groups, requested)))
          .as("%s plan", requested)
          .isEqualTo(describe(plan(TableFileGroups.of(pruned), requested)));
    }
  }

  /**
   * A {@code bucket(4, id)} table changed to unpartitioned: the writer's equality deletes from then
   * on are of the unpartitioned spec and apply in every bucket, so the table is read in one piece,
   * and the plan removes them once every file they apply to is rewritten.
   */
  @Test
  void globalEqualityDeletesKeepTheTableInOneGroup() {
    Table table =
        UpsertCommits.createTable(
            warehouse,
            "global",
            PartitionSpec.builderFor(UpsertCommits.SCHEMA).bucket("id", 4).build());
    UpsertCommits writer = new UpsertCommits(table);
    writer.upsert(0, 399, "a");
    writer.upsert(0, 39, "b");
    table.updateSpec().removeField("id_bucket").commit();
    writer.upsert(100, 139, "c");
    writer.upsert(0, 9, "d");
    table.refresh();
    long snapshot = table.currentSnapshot().snapshotId();
    TableFiles whole = TableScanner.scan(table);
    assertThat(whole.deleteScopes().values()).anyMatch(scope -> scope.size() > 1);
    OptimizingPlan full = plan(TableFileGroups.of(whole), OptimizingType.FULL);
    assertThat(full.sharedDeletesToRemove()).isNotEmpty();

    TableFileGroups groups = TableScanner.scanInGroups(table, snapshot, key -> true, 1);

    assertThat(groups.groupCount()).isEqualTo(1);
    for (OptimizingType requested : REQUESTS) {
      assertThat(describe(plan(groups, requested)))
          .as("%s plan", requested)
          .isEqualTo(describe(plan(TableFileGroups.of(whole), requested)));
    }
  }

  @Test
  void aSmallTableIsOneGroupWithoutReadingItsPartitionsTable() {
    Table table = generate("small", 4);
    long snapshot = table.currentSnapshot().snapshotId();
    long dataFiles = Long.parseLong(table.currentSnapshot().summary().get("total-data-files"));

    assertThat(TableScanner.scanInGroups(table, snapshot, key -> true, dataFiles).groupCount())
        .isEqualTo(1);
    assertThat(TableScanner.scanInGroups(table, snapshot, key -> true, dataFiles - 1).groupCount())
        .isGreaterThan(1);
  }

  /**
   * A plan takes at most its bound of input files and stops at a partition boundary; the partitions
   * it leaves wait, and because each plan starts at another group (by snapshot id), every due
   * partition is planned by one of as many plans as there are groups, exactly as the unbounded plan
   * plans it.
   */
  @Test
  void aBoundedPlanStopsAtAPartitionAndTheNextStartsAtAnotherGroup() {
    Table table = generate("bounded", 4);
    long snapshot = table.currentSnapshot().snapshotId();
    TableFileGroups groups = TableScanner.scanInGroups(table, snapshot, key -> true, 7);
    assertThat(groups.groupCount()).isGreaterThan(2);
    OptimizingPlan unbounded =
        new BinPackPlanner()
            .plan(
                groups,
                POLICY,
                OptimizingHistory.NONE,
                NOW,
                java.util.Optional.of(OptimizingType.FULL));
    assertThat(unbounded.note()).isNull();
    Map<PartitionKey, String> expected = new java.util.TreeMap<>();
    long largest = 0;
    for (PartitionPlan partition : unbounded.duePartitions()) {
      expected.put(partition.key(), withoutTaskIds(partition));
      largest = Math.max(largest, partition.rewriteFiles() + partition.convertFiles());
    }
    long total =
        unbounded.tasks().stream().mapToLong(t -> t.rewrite().size() + t.convert().size()).sum();
    long bound = total / 3;
    assertThat(bound).isGreaterThan(0);

    Map<PartitionKey, String> seen = new java.util.TreeMap<>();
    java.util.Set<PartitionKey> firstPlanned = new java.util.HashSet<>();
    for (int k = 0; k < groups.groupCount(); k++) {
      TableFileGroups another =
          new TableFileGroups(
              groups.table(),
              snapshot + k,
              groups.sequenceNumber(),
              groups.complete(),
              groups.groupCount(),
              groups.dataFiles(),
              groups.reader());
      OptimizingPlan plan =
          new BinPackPlanner()
              .plan(
                  another,
                  POLICY.withOverrides(Map.of(PolicyKeys.MAX_PROCESS_FILES, Long.toString(bound))),
                  OptimizingHistory.NONE,
                  NOW,
                  java.util.Optional.of(OptimizingType.FULL));

      long planned =
          plan.tasks().stream().mapToLong(t -> t.rewrite().size() + t.convert().size()).sum();
      assertThat(planned).as("plan %d", k).isBetween(bound, bound + largest - 1);
      assertThat(plan.note())
          .as("plan %d", k)
          .contains("input files (max-process-files = " + bound + ")")
          .endsWith("wait for the next one");
      assertThat(plan.sharedDeletesToRemove()).isEmpty();
      assertThat(plan.tasks()).extracting(RewriteTask::id).doesNotHaveDuplicates();
      for (PartitionPlan partition : plan.duePartitions()) {
        seen.put(partition.key(), withoutTaskIds(partition));
      }
      if (k == 0) {
        plan.duePartitions().forEach(p -> firstPlanned.add(p.key()));
      } else if (k == 1) {
        java.util.Set<PartitionKey> second = new java.util.HashSet<>();
        plan.duePartitions().forEach(p -> second.add(p.key()));
        assertThat(second).as("the next plan starts elsewhere").isNotEqualTo(firstPlanned);
      }
    }
    assertThat(seen).isEqualTo(expected);
  }

  /** A partition's plan without the task numbers, which depend on where a plan started. */
  private static String withoutTaskIds(PartitionPlan partition) {
    StringBuilder text = new StringBuilder(partition.type() + " " + partition.reason());
    for (RewriteTask task : partition.tasks()) {
      text.append("\n task ").append(task.type());
      task.rewrite().forEach(e -> text.append("\n  rewrite ").append(entry(e)));
      task.convert().forEach(e -> text.append("\n  convert ").append(entry(e)));
    }
    partition.deletesToRemove().stream()
        .map(DeleteFile::location)
        .sorted()
        .forEach(d -> text.append("\n remove ").append(d));
    return text.toString();
  }

  private Table generate(String name, int buckets) {
    HadoopCatalog catalog = TestCatalogs.hadoop(warehouse);
    TableIdentifier id = TableIdentifier.of("db", name);
    CdcTableGenerator.generate(catalog, id, CdcTableSpec.small(buckets));
    return catalog.loadTable(id);
  }

  private static OptimizingPlan plan(TableFileGroups groups, OptimizingType requested) {
    return new BinPackPlanner()
        .plan(
            groups, POLICY, OptimizingHistory.NONE, NOW, java.util.Optional.ofNullable(requested));
  }

  /**
   * Drops a data file that a file-scoped position-delete file refers to: that delete file then
   * applies to no live data file (dangling), and only its own partition's read can tell.
   */
  private static DeleteFile dropADataFileWithAPositionDelete(Table table) {
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        for (DeleteFile delete : task.deletes()) {
          if (delete.content() == FileContent.POSITION_DELETES
              && task.file().location().equals(DeleteFiles.referencedDataFile(delete))) {
            table.newDelete().deleteFile(task.file()).commit();
            table.refresh();
            return delete;
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    throw new AssertionError("the generated table has no file-scoped position delete");
  }

  /** Everything a plan decides, one line per fact, in plan order. */
  private static List<String> describe(OptimizingPlan plan) {
    List<String> lines = new ArrayList<>();
    lines.add(plan.table() + " @" + plan.snapshotId() + " seq " + plan.sequenceNumber());
    for (PartitionPlan partition : plan.partitions()) {
      lines.add(
          partition.key()
              + " spec "
              + partition.spec().specId()
              + ": "
              + partition.type()
              + " ("
              + partition.reason()
              + ") "
              + partition.statistics());
      for (RewriteTask task : partition.tasks()) {
        lines.add(
            "  task "
                + task.id()
                + " "
                + task.partition()
                + " "
                + task.type()
                + " target "
                + task.targetSize()
                + "/"
                + task.minTargetSize());
        task.rewrite().forEach(e -> lines.add("    rewrite " + entry(e)));
        task.convert().forEach(e -> lines.add("    convert " + entry(e)));
      }
      // In the order Iceberg's scan (parallel over manifests) returned the files: compared as a
      // set.
      partition.deletesToRemove().stream()
          .map(d -> "  remove " + d.location())
          .sorted()
          .forEach(lines::add);
    }
    plan.sharedDeletesToRemove().stream()
        .map(d -> "shared " + d.file().location() + " after " + new TreeSet<>(d.requires()))
        .sorted()
        .forEach(lines::add);
    return lines;
  }

  private static String entry(DataFileEntry entry) {
    return entry.path()
        + " seq "
        + entry.dataSequenceNumber()
        + " <- "
        + Arrays.toString(entry.deletes().stream().map(DeleteFile::location).toArray());
  }
}
