/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.maintenance;

import java.time.Duration;
import java.util.List;

/**
 * What one {@link SnapshotExpiry} run did.
 *
 * @param table the table name
 * @param dryRun true when nothing was changed and {@link #expiredSnapshotIds()} is what would have
 *     expired
 * @param snapshotsBefore snapshots the table had before the run
 * @param expiredSnapshotIds the snapshots removed from the table metadata, oldest first
 * @param filesDeleted files deleted because only expired snapshots referenced them (manifest lists,
 *     manifests, data and delete files, statistics); 0 in a dry run or without cleaning
 * @param kept snapshots older than the max age that were kept, each with the reason
 * @param took wall-clock time of the run
 */
public record SnapshotExpiryReport(
    String table,
    boolean dryRun,
    int snapshotsBefore,
    List<Long> expiredSnapshotIds,
    long filesDeleted,
    List<KeptSnapshot> kept,
    Duration took) {

  public SnapshotExpiryReport {
    expiredSnapshotIds = List.copyOf(expiredSnapshotIds);
    kept = List.copyOf(kept);
  }

  /** Number of expired snapshots. */
  public int expiredCount() {
    return expiredSnapshotIds.size();
  }

  /**
   * A snapshot older than the max age that stays, and why.
   *
   * @param snapshotId the snapshot
   * @param timestampMillis its commit time
   * @param reason for example {@code current snapshot}, {@code one of the newest 5 snapshots of
   *     branch main}, {@code newest Flink checkpoint snapshot of job ... (checkpoint 42)}
   */
  public record KeptSnapshot(long snapshotId, long timestampMillis, String reason) {}
}
