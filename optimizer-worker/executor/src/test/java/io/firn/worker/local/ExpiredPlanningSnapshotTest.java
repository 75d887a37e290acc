package io.firn.worker.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.core.plan.OptimizingPlan;
import io.firn.core.plan.OptimizingType;
import io.firn.core.policy.OptimizingPolicy;
import io.firn.worker.commit.CommitOutcome;
import io.firn.worker.executor.TaskResult;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
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
    LocalOptimizer optimizer = new LocalOptimizer(OptimizingPolicy.DEFAULTS, 1, line -> {});
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
}
