/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.plan;

import io.firn.core.policy.OptimizingPolicy;
import io.firn.core.table.TableFileGroups;
import io.firn.core.table.TableFiles;
import java.time.Instant;
import java.util.Optional;

/**
 * Decides per partition whether minor, major or full optimizing is due and packs the work into
 * tasks. Implementations are pure: no I/O, no clock of their own, deterministic for equal input.
 */
public interface Planner {

  /**
   * Plans what the policy's triggers make due.
   *
   * @param files the table's files at the planning snapshot
   * @param policy thresholds
   * @param history when this table was last optimized by each type
   * @param now the current time
   */
  OptimizingPlan plan(
      TableFiles files, OptimizingPolicy policy, OptimizingHistory history, Instant now);

  /**
   * Plans the type the user asked for, whatever the triggers say.
   *
   * @param files the table's files at the planning snapshot
   * @param policy thresholds
   * @param history when this table was last optimized by each type
   * @param now the current time
   * @param requested the type the user asked for
   */
  OptimizingPlan plan(
      TableFiles files,
      OptimizingPolicy policy,
      OptimizingHistory history,
      Instant now,
      OptimizingType requested);

  /**
   * Plans a table read group by group ({@link TableFileGroups}); the same plan as planning all
   * groups' files at once, holding one group's files at a time. Iterating the groups reads the
   * table: that I/O is the reader's, given to the planner.
   *
   * @param requested the type the user asked for, or empty to let the policy's triggers decide
   */
  OptimizingPlan plan(
      TableFileGroups groups,
      OptimizingPolicy policy,
      OptimizingHistory history,
      Instant now,
      Optional<OptimizingType> requested);
}
