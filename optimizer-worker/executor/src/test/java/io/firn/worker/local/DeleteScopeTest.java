/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.core.commit.CommitOutcome;
import io.firn.core.commit.TaskResult;
import io.firn.core.plan.BinPackPlanner;
import io.firn.core.plan.OptimizingPlan;
import io.firn.core.plan.OptimizingType;
import io.firn.core.policy.OptimizingPolicy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A delete file leaves the table only when no live row it hides could come back: not when the plan
 * read only some of the partitions it applies to, and not when Iceberg itself would drop it.
 */
class DeleteScopeTest {
  @TempDir Path warehouse;

  /**
   * Issue 13, defect 1: after a spec change to unpartitioned the writer's equality deletes are
   * global and hide rows in the old bucketed files. The default (cheap-signal) plan reads only the
   * flagged unpartitioned partition; it removed those deletes as dangling and 50 keys came back.
   */
  @Test
  void rowsHiddenByGlobalDeletesStayHiddenWhenTheDefaultPlanReadsOnlyFlaggedPartitions() {
    Table table = bucketedTable("resurrect");
    UpsertCommits writer = specChangedToUnpartitioned(table);

    OptimizeReport report = optimizer().optimize(table, null, Instant.now());

    assertThat(report.outcomes()).allMatch(CommitOutcome::committed);
    assertSameRows(table, writer);
  }

  /**
   * Issue 13, defect 3: global equality deletes spanning partitions are planned on the default path
   * too (the cheap signals see them and ask for a complete read) and removed once every file they
   * apply to is rewritten or converted.
   */
  @Test
  void globalDeletesAreRemovedOnTheDefaultPathOnceEveryFileTheyApplyToIsRewritten() {
    Table table = bucketedTable("global");
    UpsertCommits writer = specChangedToUnpartitioned(table);
    int unpartitioned = table.spec().specId();
    assertThat(liveDeletes(table, unpartitioned)).hasSize(2);

    OptimizingPlan plan = optimizer().planFromCheapSignals(table, Instant.now());
    assertThat(plan.sharedDeletesToRemove()).hasSize(2);
    OptimizeReport report = optimizer().optimize(table, null, Instant.now());

    assertThat(report.outcomes()).isNotEmpty().allMatch(CommitOutcome::committed);
    assertSameRows(table, writer);
    assertThat(liveDeletes(table, unpartitioned)).isEmpty();
  }

  /**
   * A {@code bucket(4, id)} table with keys 0..399, fully optimized, then changed to unpartitioned:
   * the writer's equality deletes from then on are global and hide rows in the bucketed files.
   */
  private static UpsertCommits specChangedToUnpartitioned(Table table) {
    UpsertCommits writer = new UpsertCommits(table);
    writer.upsert(0, 399, "a");
    writer.upsert(0, 39, "b");
    optimizer().optimize(table, OptimizingType.FULL, Instant.now());
    table.updateSpec().removeField("id_bucket").commit();
    writer.upsert(100, 139, "c");
    writer.upsert(0, 9, "d");
    assertSameRows(table, writer);
    return writer;
  }

  /**
   * Issue 13: Iceberg 1.11 drops delete files older than the oldest data file left after a rewrite
   * but does not count the files the rewrite adds with the planning snapshot's older sequence
   * number (apache/iceberg#10962). A full rewrite of every data file planned before a delete-only
   * checkpoint lost that checkpoint's deletes, and the deleted rows came back.
   */
  @Test
  void deletesCommittedAfterPlanningSurviveARewriteOfEveryDataFile() {
    Table table = unpartitionedTable("late-deletes");
    // A long-running stream merges delete manifests (at 100 by default), so deletes committed after
    // planning share a manifest with deletes the plan removes, and Iceberg's drop applies to them.
    table.updateProperties().set("commit.manifest.min-count-to-merge", "2").commit();
    UpsertCommits writer = new UpsertCommits(table);
    writer.upsert(0, 99, "a");
    writer.upsert(0, 9, "b");
    LocalOptimizer optimizer = optimizer();
    OptimizingPlan plan = optimizer.plan(table, OptimizingType.FULL, Instant.now());
    List<TaskResult> results = optimizer.runTasks(table, plan, "p1");
    writer.delete(List.of(1L, 2L, 3L, 50L));
    writer.upsert(60, 61, "c");

    List<CommitOutcome> outcomes = optimizer.commit(table, plan, results, "p1");

    assertSameRows(table, writer);
    assertThat(outcomes)
        .singleElement()
        .satisfies(
            o -> {
              assertThat(o.result()).isEqualTo(CommitOutcome.Result.CONFLICT);
              assertThat(o.message()).contains("apache/iceberg#10962", "sequence number 3");
            });
    // Planned again from a fresh snapshot, the same rewrite goes through.
    OptimizeReport again = optimizer.optimize(table, OptimizingType.FULL, Instant.now());
    assertThat(again.outcomes()).isNotEmpty().allMatch(CommitOutcome::committed);
    assertSameRows(table, writer);
  }

  private Table bucketedTable(String name) {
    return UpsertCommits.createTable(
        warehouse, name, PartitionSpec.builderFor(UpsertCommits.SCHEMA).bucket("id", 4).build());
  }

  private Table unpartitionedTable(String name) {
    return UpsertCommits.createTable(warehouse, name, PartitionSpec.unpartitioned());
  }

  private static LocalOptimizer optimizer() {
    return new LocalOptimizer(OptimizingPolicy.DEFAULTS, new BinPackPlanner(), 2, line -> {});
  }

  /** Every live row as {@code id -> [v, ...]}: a duplicated key shows as two values. */
  static Map<Long, List<String>> rows(Table table) {
    table.refresh();
    Map<Long, List<String>> rows = new TreeMap<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record record : records) {
        rows.computeIfAbsent((Long) record.getField("id"), id -> new ArrayList<>())
            .add((String) record.getField("v"));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }

  /** The table's rows equal the writer's; on failure names only the keys that differ. */
  static void assertSameRows(Table table, UpsertCommits writer) {
    Map<Long, List<String>> actual = rows(table);
    Map<Long, String> expected = writer.expected();
    List<String> differences = new ArrayList<>();
    for (Map.Entry<Long, List<String>> entry : actual.entrySet()) {
      String want = expected.get(entry.getKey());
      if (want == null || !entry.getValue().equals(List.of(want))) {
        differences.add(entry.getKey() + ": expected " + want + ", table has " + entry.getValue());
      }
    }
    expected.forEach(
        (id, v) -> {
          if (!actual.containsKey(id)) {
            differences.add(id + ": expected " + v + ", table has none");
          }
        });
    assertThat(differences)
        .as(
            "%d of %d keys differ (first 20): %s",
            differences.size(),
            expected.size(),
            differences.subList(0, Math.min(20, differences.size())))
        .isEmpty();
  }

  /** Live equality-delete files of the given spec. */
  private static List<String> liveDeletes(Table table, int specId) {
    table.refresh();
    List<String> paths = new ArrayList<>();
    for (var manifest : table.currentSnapshot().deleteManifests(table.io())) {
      try (var reader =
          org.apache.iceberg.ManifestFiles.readDeleteManifest(
              manifest, table.io(), table.specs())) {
        for (var delete : reader) {
          if (delete.specId() == specId && delete.content() == FileContent.EQUALITY_DELETES) {
            paths.add(delete.location());
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return paths;
  }
}
