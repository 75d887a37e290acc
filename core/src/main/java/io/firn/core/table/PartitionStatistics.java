/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.table;

import io.firn.core.policy.OptimizingPolicy;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;

/**
 * Counts of one partition (or, summed, of a table) in the vocabulary of ARCHITECTURE.md.
 *
 * @param dataFiles live data files
 * @param fragments data files of at most the fragment size
 * @param undersizedSegments data files between the fragment size and the min target size
 * @param segments data files above the min target size
 * @param dataBytes bytes of all live data files
 * @param records records of all live data files (before deletes)
 * @param equalityDeleteFiles live equality-delete files that apply to this partition's data
 * @param positionDeleteFiles live position-delete files that apply to this partition's data
 * @param equalityDeleteRecords records in those equality-delete files
 * @param positionDeleteRecords records in those position-delete files
 * @param danglingDeleteFiles delete files of this partition that apply to no live data file
 */
public record PartitionStatistics(
    long dataFiles,
    long fragments,
    long undersizedSegments,
    long segments,
    long dataBytes,
    long records,
    long equalityDeleteFiles,
    long positionDeleteFiles,
    long equalityDeleteRecords,
    long positionDeleteRecords,
    long danglingDeleteFiles) {

  public static final PartitionStatistics EMPTY =
      new PartitionStatistics(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

  /** Classifies the files of one partition. */
  public static PartitionStatistics of(PartitionFiles files, OptimizingPolicy policy) {
    long fragments = 0;
    long undersized = 0;
    long segments = 0;
    long bytes = 0;
    long records = 0;
    for (DataFileEntry entry : files.dataFiles()) {
      switch (FileKind.of(entry.sizeInBytes(), policy)) {
        case FRAGMENT -> fragments++;
        case UNDERSIZED_SEGMENT -> undersized++;
        case SEGMENT -> segments++;
      }
      bytes += entry.sizeInBytes();
      records += entry.recordCount();
    }
    long eqFiles = 0;
    long posFiles = 0;
    long eqRecords = 0;
    long posRecords = 0;
    for (DeleteFile delete : files.attachedDeletes()) {
      if (delete.content() == FileContent.EQUALITY_DELETES) {
        eqFiles++;
        eqRecords += delete.recordCount();
      } else {
        posFiles++;
        posRecords += delete.recordCount();
      }
    }
    return new PartitionStatistics(
        files.dataFiles().size(),
        fragments,
        undersized,
        segments,
        bytes,
        records,
        eqFiles,
        posFiles,
        eqRecords,
        posRecords,
        files.danglingDeletes().size());
  }

  public PartitionStatistics plus(PartitionStatistics other) {
    return new PartitionStatistics(
        dataFiles + other.dataFiles,
        fragments + other.fragments,
        undersizedSegments + other.undersizedSegments,
        segments + other.segments,
        dataBytes + other.dataBytes,
        records + other.records,
        equalityDeleteFiles + other.equalityDeleteFiles,
        positionDeleteFiles + other.positionDeleteFiles,
        equalityDeleteRecords + other.equalityDeleteRecords,
        positionDeleteRecords + other.positionDeleteRecords,
        danglingDeleteFiles + other.danglingDeleteFiles);
  }

  public long deleteFiles() {
    return equalityDeleteFiles + positionDeleteFiles;
  }

  /** Share of rows removed by position deletes (an upper bound; 0 when there are no rows). */
  public double deletedRowRatio() {
    return records == 0 ? 0 : Math.min(1.0, (double) positionDeleteRecords / records);
  }

  /** The health score of these counts under a policy; see {@link HealthScore}. */
  public int healthScore(OptimizingPolicy policy) {
    return HealthScore.of(this, policy);
  }
}
