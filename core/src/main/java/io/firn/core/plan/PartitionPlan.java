/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.plan;

import io.firn.core.table.PartitionFiles;
import io.firn.core.table.PartitionKey;
import io.firn.core.table.PartitionStatistics;
import java.util.List;
import org.apache.iceberg.DeleteFile;

/**
 * The decision for one partition and, when work is due, its tasks. All tasks of a partition commit
 * together (one commit group); a conflict fails only this group.
 *
 * @param files the partition's files at the planning snapshot
 * @param statistics counts before optimizing
 * @param type what was chosen; {@link OptimizingType#NONE} when nothing is due
 * @param reason why, in words an operator can act on, also when nothing is due
 * @param tasks the work, empty when nothing is due; also empty for a due partition whose only work
 *     is removing dangling delete files (metadata only: committed without a task)
 * @param deletesToRemove delete files that no live data file needs once every task succeeded: those
 *     applying only to rewritten or converted files of this partition, and dangling ones
 */
public record PartitionPlan(
    PartitionFiles files,
    PartitionStatistics statistics,
    OptimizingType type,
    String reason,
    List<RewriteTask> tasks,
    List<DeleteFile> deletesToRemove) {

  public PartitionPlan {
    tasks = List.copyOf(tasks);
    deletesToRemove = List.copyOf(deletesToRemove);
  }

  public PartitionKey key() {
    return files.key();
  }

  public boolean due() {
    return type != OptimizingType.NONE;
  }

  public long rewriteFiles() {
    return tasks.stream().mapToLong(t -> t.rewrite().size()).sum();
  }

  public long rewriteBytes() {
    return tasks.stream().mapToLong(RewriteTask::rewriteBytes).sum();
  }

  public long convertFiles() {
    return tasks.stream().mapToLong(t -> t.convert().size()).sum();
  }

  public long estimatedOutputFiles() {
    return tasks.stream().mapToLong(RewriteTask::estimatedOutputFiles).sum();
  }
}
