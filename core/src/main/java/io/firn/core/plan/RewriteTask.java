/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.plan;

import io.firn.core.policy.OptimizingPolicy;
import io.firn.core.table.DataFileEntry;
import io.firn.core.table.PartitionKey;
import java.util.List;

/**
 * One bin-packed unit of work in one partition.
 *
 * @param id unique within its plan
 * @param partition the partition all files belong to
 * @param type the optimizing type of the partition plan
 * @param rewrite data files to read with their deletes applied and write anew at target size
 * @param convert data files kept as they are, whose equality deletes (and several position-delete
 *     files) become one file-scoped position-delete file each
 * @param targetSize output file size in bytes
 * @param minTargetSize output files should not be smaller than this (min-target-size-ratio ×
 *     targetSize): a smaller one is an undersized segment that the next plan merges again
 */
public record RewriteTask(
    int id,
    PartitionKey partition,
    OptimizingType type,
    List<DataFileEntry> rewrite,
    List<DataFileEntry> convert,
    long targetSize,
    long minTargetSize) {

  public RewriteTask {
    rewrite = List.copyOf(rewrite);
    convert = List.copyOf(convert);
    if (targetSize <= 0) {
      throw new IllegalArgumentException("target size must be > 0 bytes, got " + targetSize);
    }
    if (minTargetSize <= 0 || minTargetSize > targetSize) {
      minTargetSize = defaultMinTargetSize(targetSize);
    }
  }

  /** A task whose lower output bound is the default min-target-size-ratio × targetSize. */
  public RewriteTask(
      int id,
      PartitionKey partition,
      OptimizingType type,
      List<DataFileEntry> rewrite,
      List<DataFileEntry> convert,
      long targetSize) {
    this(id, partition, type, rewrite, convert, targetSize, defaultMinTargetSize(targetSize));
  }

  private static long defaultMinTargetSize(long targetSize) {
    return Math.max(1, (long) (targetSize * OptimizingPolicy.DEFAULTS.minTargetSizeRatio()));
  }

  public long rewriteBytes() {
    return rewrite.stream().mapToLong(DataFileEntry::sizeInBytes).sum();
  }

  public long convertBytes() {
    return convert.stream().mapToLong(DataFileEntry::sizeInBytes).sum();
  }

  public long inputRecords() {
    return rewrite.stream().mapToLong(DataFileEntry::recordCount).sum();
  }

  /** Output data files expected: {@link #outputFiles} of the rewritten bytes. */
  public long estimatedOutputFiles() {
    return rewrite.isEmpty() ? 0 : outputFiles(rewriteBytes(), targetSize, minTargetSize);
  }

  /**
   * How many files {@code bytes} of output are split into, evenly: a count that puts every file
   * within [minTargetSize, targetSize], nearest the middle of that range when several do. When no
   * whole count fits (between 1 and 1.5 targets at the default ratio, for example), the largest
   * count whose files stay at or above minTargetSize: a file somewhat above the target is a segment
   * and stays put, while two files below minTargetSize are undersized segments that the next plan
   * would merge and split the same way again, forever.
   */
  public static long outputFiles(long bytes, long targetSize, long minTargetSize) {
    if (bytes <= targetSize) {
      return 1;
    }
    long fewest = (bytes + targetSize - 1) / targetSize;
    long most = Math.max(1, bytes / Math.max(1, minTargetSize));
    if (fewest > most) {
      return most;
    }
    double middle = (targetSize + minTargetSize) / 2.0;
    long below = Math.min(most, Math.max(fewest, (long) Math.floor(bytes / middle)));
    long above = Math.min(most, below + 1);
    return Math.abs((double) bytes / above - middle) < Math.abs((double) bytes / below - middle)
        ? above
        : below;
  }
}
