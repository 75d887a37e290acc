/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.commit;

import io.firn.core.table.PartitionKey;
import org.jspecify.annotations.Nullable;

/**
 * How one commit group ended.
 *
 * @param partition the group's partition, or null for the process-level group of deletes that span
 *     partitions
 * @param result what happened
 * @param message for people: what was committed, or why not and what happens next
 * @param snapshotId the snapshot Firn committed, or -1 when nothing was committed (also set for an
 *     {@link Result#INTEGRITY_FAILED} found after the commit)
 * @param dataFilesRemoved data files replaced
 * @param dataFilesAdded data files added
 * @param deleteFilesRemoved delete files removed
 * @param deleteFilesAdded position-delete files added
 */
public record CommitOutcome(
    @Nullable PartitionKey partition,
    Result result,
    String message,
    long snapshotId,
    long dataFilesRemoved,
    long dataFilesAdded,
    long deleteFilesRemoved,
    long deleteFilesAdded) {

  /** Outcomes of a commit group; labels for metrics are the lower-case names. */
  public enum Result {
    /** Committed and verified. */
    COMMITTED,
    /**
     * A concurrent commit invalidated the plan (Iceberg's validation failed); the table is
     * unchanged for this group, its output was deleted, and a later plan from a fresh snapshot
     * retries it.
     */
    CONFLICT,
    /** The group's tasks failed or its commit failed for another reason; the table is unchanged. */
    FAILED,
    /**
     * The catalog did not confirm the commit: it may or may not have happened. Output files are
     * kept (deleting them could corrupt the table); check the table's history.
     */
    UNKNOWN,
    /**
     * A row-count or history check failed; this is an alert. Before commit, nothing was committed
     * (snapshot id -1); after commit, the snapshot id names Firn's live snapshot and the message
     * says what to inspect.
     */
    INTEGRITY_FAILED;

    public String label() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** Committed and verified. */
  public boolean committed() {
    return result == Result.COMMITTED;
  }

  /**
   * Whether Firn's snapshot is in the table: committed, or committed and then failed a check after
   * the commit ({@link Result#INTEGRITY_FAILED} with a snapshot id). Its output files are live.
   */
  public boolean inTable() {
    return snapshotId >= 0;
  }

  static CommitOutcome notCommitted(
      @Nullable PartitionKey partition, Result result, String message) {
    return new CommitOutcome(partition, result, message, -1, 0, 0, 0, 0);
  }
}
