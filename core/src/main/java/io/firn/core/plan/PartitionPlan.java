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
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;

/**
 * The decision for one partition and, when work is due, its tasks. All tasks of a partition commit
 * together (one commit group); a conflict fails only this group.
 *
 * <p>It keeps of the partition's files only those its tasks name: a plan of a table with millions
 * of files holds its work, not the table (ADR 0035).
 *
 * @param key the partition
 * @param spec its partition spec; output files are written in it
 * @param partition the partition tuple; output files of this partition are written with it
 * @param statistics counts before optimizing
 * @param type what was chosen; {@link OptimizingType#NONE} when nothing is due
 * @param reason why, in words an operator can act on, also when nothing is due
 * @param tasks the work, empty when nothing is due; also empty for a due partition whose only work
 *     is removing dangling delete files (metadata only: committed without a task)
 * @param deletesToRemove delete files that no live data file needs once every task succeeded: those
 *     applying only to rewritten or converted files of this partition, and dangling ones
 */
public record PartitionPlan(
    PartitionKey key,
    PartitionSpec spec,
    StructLike partition,
    PartitionStatistics statistics,
    OptimizingType type,
    String reason,
    List<RewriteTask> tasks,
    List<DeleteFile> deletesToRemove) {

  public PartitionPlan {
    tasks = List.copyOf(tasks);
    deletesToRemove = List.copyOf(deletesToRemove);
  }

  /** The plan of a partition read as {@code files}. */
  public static PartitionPlan of(
      PartitionFiles files,
      PartitionStatistics statistics,
      OptimizingType type,
      String reason,
      List<RewriteTask> tasks,
      List<DeleteFile> deletesToRemove) {
    return new PartitionPlan(
        files.key(),
        files.spec(),
        files.partition(),
        statistics,
        type,
        reason,
        tasks,
        deletesToRemove);
  }

  /** This partition with nothing to do now, for {@code reason}. */
  public PartitionPlan notDue(String reason) {
    return new PartitionPlan(
        key, spec, partition, statistics, OptimizingType.NONE, reason, List.of(), List.of());
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
