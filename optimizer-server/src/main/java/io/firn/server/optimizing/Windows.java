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

/** Applies the policy's windows to a plan: work of a type that may not start now is left out. */
final class Windows {
  private Windows() {}

  /**
   * The plan with every due partition whose type is not in {@code allowed} turned into a partition
   * with nothing due (its reason says it waits for a window), and without shared delete removals
   * that need such a partition.
   */
  static OptimizingPlan restrict(OptimizingPlan plan, Set<OptimizingType> allowed) {
    List<PartitionPlan> partitions = new ArrayList<>();
    Set<PartitionKey> held = new HashSet<>();
    for (PartitionPlan partition : plan.partitions()) {
      if (!partition.due() || allowed.contains(partition.type())) {
        partitions.add(partition);
        continue;
      }
      held.add(partition.key());
      partitions.add(
          new PartitionPlan(
              partition.files(),
              partition.statistics(),
              OptimizingType.NONE,
              partition.type().name().toLowerCase(Locale.ROOT)
                  + " optimizing is due but outside its windows: "
                  + partition.reason(),
              List.of(),
              List.of()));
    }
    if (held.isEmpty()) {
      return plan;
    }
    List<OptimizingPlan.SharedDelete> shared =
        plan.sharedDeletesToRemove().stream()
            .filter(d -> d.requires().stream().noneMatch(held::contains))
            .toList();
    return new OptimizingPlan(
        plan.table(),
        plan.snapshotId(),
        plan.sequenceNumber(),
        partitions,
        shared,
        plan.note()
            + (plan.note().isEmpty() ? "" : "; ")
            + held.size()
            + " partition(s) wait for a window");
  }
}
