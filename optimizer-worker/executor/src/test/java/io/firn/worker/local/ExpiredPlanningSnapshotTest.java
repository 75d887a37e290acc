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
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 13, defect 2: snapshot expiry removed the planning snapshot S between plan and commit.
 * Iceberg accepts the commit (S is the parent of the oldest retained snapshot, so the history since
 * S is complete); Firn's check after the commit looked for S, found nothing and reported a live
 * snapshot as an integrity failure that was not committed.
 */
class ExpiredPlanningSnapshotTest {
  @TempDir Path warehouse;

  @Test
  void aCommitAfterThePlanningSnapshotExpiredIsReportedCommitted() {
    Table table = UpsertCommits.createTable(warehouse, "expired", PartitionSpec.unpartitioned());
    UpsertCommits writer = new UpsertCommits(table);
    writer.upsert(0, 99, "a");
    writer.upsert(0, 9, "b");
    LocalOptimizer optimizer =
        new LocalOptimizer(OptimizingPolicy.DEFAULTS, new BinPackPlanner(), 1, line -> {});
    OptimizingPlan plan = optimizer.plan(table, OptimizingType.FULL, Instant.now());
    List<TaskResult> results = optimizer.runTasks(table, plan, "p1");
    writer.upsert(200, 201, "c");
    table.expireSnapshots().retainLast(1).expireOlderThan(Long.MAX_VALUE).commit();
    table.refresh();
    assertThat(table.snapshot(plan.snapshotId())).as("the planning snapshot expired").isNull();

    List<CommitOutcome> outcomes = optimizer.commit(table, plan, results, "p1");

    assertThat(outcomes).hasSize(1);
    CommitOutcome outcome = outcomes.get(0);
    assertThat(outcome.result()).as(outcome.message()).isEqualTo(CommitOutcome.Result.COMMITTED);
    table.refresh();
    assertThat(outcome.snapshotId()).isEqualTo(table.currentSnapshot().snapshotId());
    DeleteScopeTest.assertSameRows(table, writer);
  }

  /**
   * Found by the history soak (seed 110, step 582): a partition whose conversion finds no row to
   * delete (the global delete after a spec change hides nothing in its files) has nothing to
   * commit. The committer ran an empty transaction, then checked the history of a snapshot it never
   * made, did not find the expired planning snapshot there, and raised a false integrity alarm.
   * Nothing to change is committed work with no snapshot and no alarm.
   */
  @Test
  void aPartitionWithNothingToChangeIsNoAlarmAfterThePlanningSnapshotExpired() {
    Table table =
        UpsertCommits.createTable(
            warehouse,
            "nothing-to-change",
            PartitionSpec.builderFor(UpsertCommits.SCHEMA).bucket("id", 2).build());
    table.updateProperties().set(TableProperties.PARQUET_COMPRESSION, "uncompressed").commit();
    UpsertCommits writer = new UpsertCommits(table);
    Map<Long, String> even = new java.util.TreeMap<>();
    for (long id = 0; id < 800; id += 2) {
      even.put(id, "a" + id);
    }
    writer.commit(even, List.of());
    new LocalOptimizer(OptimizingPolicy.DEFAULTS, new BinPackPlanner(), 1, line -> {})
        .optimize(table, OptimizingType.FULL, Instant.now());
    table.updateSpec().removeField("id_bucket").commit();
    // Keys inside every file's bounds that no file holds: the delete applies, and hides nothing.
    writer.delete(List.of(1L, 3L, 5L, 7L));
    // Small targets: the ~200-row files are segments, so minor converts them instead of rewriting.
    LocalOptimizer optimizer =
        new LocalOptimizer(
            OptimizingPolicy.DEFAULTS.withOverrides(Map.of("target-size", "2KiB")),
            new BinPackPlanner(),
            1,
            line -> {});
    OptimizingPlan plan = optimizer.plan(table, OptimizingType.MINOR, Instant.now());
    assertThat(plan.duePartitions())
        .as("minor converts the bucketed files, rewrites nothing: %s", plan)
        .isNotEmpty()
        .allSatisfy(
            p -> {
              assertThat(p.tasks())
                  .isNotEmpty()
                  .allMatch(t -> t.rewrite().isEmpty() && !t.convert().isEmpty());
              assertThat(p.deletesToRemove()).isEmpty();
            });
    List<TaskResult> results = optimizer.runTasks(table, plan, "p1");
    assertThat(results).allMatch(r -> r.positionDeletes().isEmpty() && r.dataFiles().isEmpty());
    writer.upsert(2000, 2000, "b");
    writer.upsert(2001, 2001, "c");
    table.expireSnapshots().retainLast(1).expireOlderThan(Long.MAX_VALUE).commit();
    table.refresh();
    long current = table.currentSnapshot().snapshotId();

    List<CommitOutcome> outcomes = optimizer.commit(table, plan, results, "p1");

    assertThat(outcomes)
        .as("no integrity alarm")
        .noneMatch(o -> o.result() == CommitOutcome.Result.INTEGRITY_FAILED);
    assertThat(outcomes.stream().filter(o -> o.partition() != null))
        .hasSize(plan.duePartitions().size())
        .allSatisfy(
            o -> {
              assertThat(o.result()).as(o.message()).isEqualTo(CommitOutcome.Result.COMMITTED);
              assertThat(o.message()).contains("nothing to change");
            });
    table.refresh();
    assertThat(table.currentSnapshot().snapshotId()).as("no snapshot made").isEqualTo(current);
    DeleteScopeTest.assertSameRows(table, writer);
  }
}
