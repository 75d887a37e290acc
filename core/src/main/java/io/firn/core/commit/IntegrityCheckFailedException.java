/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.commit;

/**
 * A row-count or snapshot-history check failed around a commit. Never silent: it is an alert and a
 * metric. The message names the table, the group and the numbers.
 */
public class IntegrityCheckFailedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final long committedSnapshotId;

  /** A check before the commit failed: nothing was committed. */
  public IntegrityCheckFailedException(String message) {
    this(message, -1);
  }

  /**
   * A check after the commit failed.
   *
   * @param committedSnapshotId the snapshot Firn committed (it is in the table), or -1
   */
  public IntegrityCheckFailedException(String message, long committedSnapshotId) {
    super(message);
    this.committedSnapshotId = committedSnapshotId;
  }

  /** The snapshot Firn committed before the check failed, or -1 when nothing was committed. */
  public long committedSnapshotId() {
    return committedSnapshotId;
  }
}
