/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.table;

import io.firn.core.policy.OptimizingPolicy;

/**
 * Health score, 0 (every read pays heavily) to 100 (nothing to optimize), from three loads each in
 * [0, 1]:
 *
 * <ul>
 *   <li>small files (weight 40): small files (fragments and undersized segments) beyond the first
 *       one per partition, as a share of all data files;
 *   <li>equality deletes (weight 35): equality-delete files over {@code minor.trigger.file-count}
 *       per partition, capped at 1;
 *   <li>position deletes (weight 25): the larger of the deleted-row ratio over {@code
 *       major.trigger.duplicate-ratio} and position-delete files per data file, capped at 1.
 * </ul>
 *
 * A table scores 100 when it has at most one small file per partition and no delete files.
 */
public final class HealthScore {
  private HealthScore() {}

  public static int of(PartitionStatistics stats, OptimizingPolicy policy) {
    return of(stats, policy, 1);
  }

  /**
   * @param partitions how many partitions the counts were summed over (at least 1)
   */
  public static int of(PartitionStatistics stats, OptimizingPolicy policy, int partitions) {
    if (stats.dataFiles() == 0 && stats.deleteFiles() == 0) {
      return 100;
    }
    int parts = Math.max(1, partitions);
    long small = stats.fragments() + stats.undersizedSegments();
    double smallLoad =
        stats.dataFiles() == 0 ? 0 : Math.max(0, small - parts) / (double) stats.dataFiles();
    double eqLoad =
        Math.min(
            1.0,
            stats.equalityDeleteFiles() / (double) (policy.minorTriggerFileCount() * (long) parts));
    double posLoad =
        Math.min(
            1.0,
            Math.max(
                stats.deletedRowRatio() / policy.duplicateRatio(),
                stats.positionDeleteFiles() / (double) Math.max(1, stats.dataFiles())));
    double score = 100 * (1 - (0.40 * smallLoad + 0.35 * eqLoad + 0.25 * posLoad));
    return (int) Math.round(Math.max(0, Math.min(100, score)));
  }
}
