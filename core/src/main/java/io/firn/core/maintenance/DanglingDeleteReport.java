/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.maintenance;

import java.time.Duration;
import java.util.List;

/**
 * What one {@link DanglingDeleteRemoval} run found and did.
 *
 * @param table the table name
 * @param result what happened
 * @param planningSnapshotId the snapshot the dangling deletes were found in (-1 for an empty table)
 * @param committedSnapshotId the snapshot that removed them, or -1 when nothing was committed
 * @param equalityDeletesRemoved equality-delete files removed (to remove, in a dry run)
 * @param positionDeletesRemoved position-delete files removed (to remove, in a dry run)
 * @param bytesRemoved their total size
 * @param removedFiles their locations
 * @param message one line for an operator
 * @param took wall-clock time of the run
 */
public record DanglingDeleteReport(
    String table,
    Result result,
    long planningSnapshotId,
    long committedSnapshotId,
    int equalityDeletesRemoved,
    int positionDeletesRemoved,
    long bytesRemoved,
    List<String> removedFiles,
    String message,
    Duration took) {

  /** The outcome of a run. */
  public enum Result {
    /** The dangling deletes were removed in {@link #committedSnapshotId()}. */
    COMMITTED,
    /** No delete file is dangling. */
    NOTHING_TO_REMOVE,
    /** A dry run: the report says what would be removed. */
    DRY_RUN,
    /** A concurrent commit conflicted every time; the table is unchanged, run again later. */
    CONFLICT,
    /** The catalog did not confirm the commit: check the table history before running again. */
    UNKNOWN
  }

  public DanglingDeleteReport {
    removedFiles = List.copyOf(removedFiles);
  }

  /** Delete files removed (or to remove, in a dry run). */
  public int removedCount() {
    return equalityDeletesRemoved + positionDeletesRemoved;
  }
}
