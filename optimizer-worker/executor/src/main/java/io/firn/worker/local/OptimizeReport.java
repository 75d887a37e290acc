/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.local;

import io.firn.core.commit.CommitOutcome;
import io.firn.core.commit.TaskResult;
import io.firn.core.plan.OptimizingPlan;
import java.util.List;

/**
 * What one local optimizing run did.
 *
 * @param plan what was planned
 * @param results the results of every task that ran
 * @param outcomes one per commit group
 * @param nanos wall time of the whole run
 * @param planNanos wall time of evaluating, scanning and planning
 * @param commitNanos wall time of committing all groups
 */
public record OptimizeReport(
    OptimizingPlan plan,
    List<TaskResult> results,
    List<CommitOutcome> outcomes,
    long nanos,
    long planNanos,
    long commitNanos) {

  public OptimizeReport {
    results = List.copyOf(results);
    outcomes = List.copyOf(outcomes);
  }

  /** Whether every group committed (also true when there was nothing to do). */
  public boolean succeeded() {
    return outcomes.stream().allMatch(CommitOutcome::committed);
  }

  public long rowsWritten() {
    return results.stream().mapToLong(TaskResult::rowsWritten).sum();
  }

  public long rowsRead() {
    return results.stream().mapToLong(TaskResult::rowsRead).sum();
  }
}
