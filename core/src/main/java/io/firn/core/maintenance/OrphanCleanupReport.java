/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.maintenance;

import java.time.Duration;
import java.util.List;

/**
 * What one {@link OrphanFileCleanup} run found and did.
 *
 * @param table the table name
 * @param location the table location that was listed
 * @param dryRun true when nothing was deleted and the orphans are what would have been deleted
 * @param filesListed files found under the table location
 * @param reachableFiles distinct files the table's metadata references (all snapshots, metadata
 *     files, statistics, version hint)
 * @param orphanCount files neither reachable nor protected and older than the min age: deleted (or,
 *     in a dry run, to delete)
 * @param orphanBytes their total size
 * @param orphanFiles their locations, at most {@link #MAX_LISTED} of them
 * @param keptTooYoung unreachable files kept because they are younger than the min age
 * @param keptFlinkFiles unreachable files kept because they are Flink temporary manifests or files
 *     such a manifest lists (a restoring Flink job commits them)
 * @param failedDeletes locations whose delete failed, with the error
 * @param warnings conditions an operator should look at (an unreadable Flink manifest, say)
 * @param took wall-clock time of the run
 */
public record OrphanCleanupReport(
    String table,
    String location,
    boolean dryRun,
    long filesListed,
    long reachableFiles,
    long orphanCount,
    long orphanBytes,
    List<String> orphanFiles,
    long keptTooYoung,
    long keptFlinkFiles,
    List<String> failedDeletes,
    List<String> warnings,
    Duration took) {

  /** At most this many orphan locations are listed in a report. */
  public static final int MAX_LISTED = 1_000;

  public OrphanCleanupReport {
    orphanFiles = List.copyOf(orphanFiles);
    failedDeletes = List.copyOf(failedDeletes);
    warnings = List.copyOf(warnings);
  }

  /** Files actually deleted: the orphans less the failed deletes; 0 in a dry run. */
  public long deletedCount() {
    return dryRun ? 0 : orphanCount - failedDeletes.size();
  }
}
