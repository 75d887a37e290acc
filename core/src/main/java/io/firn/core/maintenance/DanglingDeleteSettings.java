/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.maintenance;

/**
 * How {@link DanglingDeleteRemoval} removes delete files that no live data file needs.
 *
 * @param dryRun report the dangling delete files without committing (key {@code
 *     dangling-deletes.dry-run})
 */
public record DanglingDeleteSettings(boolean dryRun) {
  /** Removing, not a dry run. */
  public static final DanglingDeleteSettings DEFAULTS =
      new DanglingDeleteSettings(MaintenanceKeys.DANGLING_DELETES_DRY_RUN_DEFAULT);
}
