/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.plan;

import io.firn.core.table.PartitionKey;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.DeleteFile;
import org.jspecify.annotations.Nullable;

/**
 * All work planned for one table from one snapshot (a process, ARCHITECTURE.md "Vocabulary").
 *
 * @param table the table name
 * @param snapshotId the planning snapshot S; rewrites validate from it and keep its sequence number
 * @param sequenceNumber the sequence number of S
 * @param partitions one entry per partition read, due or not, in partition order
 * @param sharedDeletesToRemove delete files that apply to several partitions (equality deletes of
 *     an unpartitioned spec): removed after every partition they need has committed
 */
public record OptimizingPlan(
    String table,
    long snapshotId,
    long sequenceNumber,
    List<PartitionPlan> partitions,
    List<SharedDelete> sharedDeletesToRemove,
    @Nullable String note) {

  /** A delete file spanning partitions, removable once all of {@code requires} committed. */
  public record SharedDelete(DeleteFile file, Set<PartitionKey> requires) {}

  /** A plan that read nothing because cheap signals showed nothing to do. */
  public static OptimizingPlan skipped(
      String table, long snapshotId, long sequenceNumber, String note) {
    return new OptimizingPlan(table, snapshotId, sequenceNumber, List.of(), List.of(), note);
  }

  public OptimizingPlan {
    partitions = List.copyOf(partitions);
    sharedDeletesToRemove = List.copyOf(sharedDeletesToRemove);
  }

  public List<PartitionPlan> duePartitions() {
    return partitions.stream().filter(PartitionPlan::due).toList();
  }

  public List<RewriteTask> tasks() {
    return partitions.stream().flatMap(p -> p.tasks().stream()).toList();
  }

  /** Whether anything will change: a task to run or a delete file to remove. */
  public boolean hasWork() {
    return !duePartitions().isEmpty() || !sharedDeletesToRemove.isEmpty();
  }

  /** The most rewriting type over due partitions, NONE when none is due. */
  public OptimizingType type() {
    return partitions.stream()
        .map(PartitionPlan::type)
        .max(Enum::compareTo)
        .orElse(OptimizingType.NONE);
  }
}
