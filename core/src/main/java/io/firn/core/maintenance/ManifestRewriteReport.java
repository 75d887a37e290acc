/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.maintenance;

import java.time.Duration;

/**
 * What one {@link ManifestRewrite} run found and did.
 *
 * @param table the table's name
 * @param result the outcome
 * @param planningSnapshotId the snapshot whose manifests were counted (-1: empty table)
 * @param committedSnapshotId the rewrite's snapshot (-1 unless {@link Result#COMMITTED})
 * @param dataManifests data manifests of the counted snapshot
 * @param smallManifests of those, the ones below the table's manifest target size
 * @param manifestsReplaced manifests the commit replaced (from its snapshot summary; 0 otherwise)
 * @param manifestsCreated manifests the commit wrote in their place
 * @param message one line for an operator
 * @param took wall time of the run
 */
public record ManifestRewriteReport(
    String table,
    Result result,
    long planningSnapshotId,
    long committedSnapshotId,
    int dataManifests,
    int smallManifests,
    int manifestsReplaced,
    int manifestsCreated,
    String message,
    Duration took) {

  /** The outcome of a run. */
  public enum Result {
    /** The small data manifests were rewritten in {@link #committedSnapshotId()}. */
    COMMITTED,
    /** Fewer small data manifests than {@code rewrite-manifests.min-count}. */
    NOTHING_TO_DO,
    /** Concurrent commits conflicted every time; the table is unchanged, run again later. */
    CONFLICT,
    /** The catalog did not confirm the commit: check the table history before running again. */
    UNKNOWN
  }
}
