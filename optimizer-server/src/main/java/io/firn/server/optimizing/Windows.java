/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import io.firn.core.plan.OptimizingPlan;
import io.firn.core.plan.OptimizingType;
import io.firn.core.plan.PartitionPlan;
import io.firn.core.table.PartitionKey;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Applies the policy's windows to a plan: work of a type that may not start now is left out, and
 * work that would not finish before the window closes waits for the next one.
 */
final class Windows {
  private Windows() {}

  /**
   * The plan with every due partition whose type is not in {@code allowed} turned into a partition
   * with nothing due (its reason says it waits for a window), and without shared delete removals
   * that need such a partition.
   */
  static OptimizingPlan restrict(OptimizingPlan plan, Set<OptimizingType> allowed) {
    return hold(
        plan,
        partition -> !allowed.contains(partition.type()),
        "wait for a window",
        p ->
            p.type().name().toLowerCase(Locale.ROOT)
                + " optimizing is due but outside its windows: "
                + p.reason());
  }

  /**
   * The plan cut to what fits in {@code budgetBytes} of rewriting: due partitions of the {@code
   * sized} types are kept in plan order while their rewrite bytes fit (the first one always, so
   * that work never stalls); the others wait, their reason saying why. Other types are kept.
   *
   * @param why the end of the reason, e.g. "at the measured 12 MiB/s ... closes at ..."
   */
  static OptimizingPlan fit(
      OptimizingPlan plan, Set<OptimizingType> sized, long budgetBytes, String why) {
    long[] used = {0};
    boolean[] first = {true};
    return hold(
        plan,
        partition -> {
          if (!sized.contains(partition.type())) {
            return false;
          }
          long bytes = partition.rewriteBytes();
          boolean keep = first[0] || used[0] + bytes <= budgetBytes;
          first[0] = false;
          if (keep) {
            used[0] += bytes;
          }
          return !keep;
        },
        "wait for the next window",
        p -> "left for later so the window's work finishes in time (" + why + "): " + p.reason());
  }

  private static OptimizingPlan hold(
      OptimizingPlan plan,
      java.util.function.Predicate<PartitionPlan> held,
      String noteSuffix,
      java.util.function.Function<PartitionPlan, String> reason) {
    List<PartitionPlan> partitions = new ArrayList<>();
    Set<PartitionKey> keys = new HashSet<>();
    for (PartitionPlan partition : plan.partitions()) {
      if (!partition.due() || !held.test(partition)) {
        partitions.add(partition);
        continue;
      }
      keys.add(partition.key());
      partitions.add(partition.notDue(reason.apply(partition)));
    }
    if (keys.isEmpty()) {
      return plan;
    }
    List<OptimizingPlan.SharedDelete> shared =
        plan.sharedDeletesToRemove().stream()
            .filter(d -> d.requires().stream().noneMatch(keys::contains))
            .toList();
    return new OptimizingPlan(
        plan.table(),
        plan.snapshotId(),
        plan.sequenceNumber(),
        partitions,
        shared,
        (plan.note() == null || plan.note().isEmpty() ? "" : plan.note() + "; ")
            + keys.size()
            + " partition(s) "
            + noteSuffix);
  }
}
