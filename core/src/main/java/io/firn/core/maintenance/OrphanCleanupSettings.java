/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.maintenance;

import java.time.Duration;

/**
 * How {@link OrphanFileCleanup} deletes files no snapshot references.
 *
 * @param minAge only files last modified longer ago than this are deleted (key {@code
 *     orphan-files.min-age}, >= 1 hour): younger ones may belong to a commit in progress
 * @param dryRun report the orphan files without deleting any (key {@code orphan-files.dry-run})
 */
public record OrphanCleanupSettings(Duration minAge, boolean dryRun) {

  /** The smallest accepted {@link #minAge()}. */
  public static final Duration MIN_MIN_AGE = Duration.ofHours(1);

  /** 3 days (ARCHITECTURE.md, "Committing next to live writers"), deleting. */
  public static final OrphanCleanupSettings DEFAULTS =
      new OrphanCleanupSettings(
          MaintenanceKeys.ORPHAN_FILES_MIN_AGE_DEFAULT,
          MaintenanceKeys.ORPHAN_FILES_DRY_RUN_DEFAULT);

  /**
   * @throws InvalidMaintenanceSettingsException naming the key, the value and the rule
   */
  public OrphanCleanupSettings {
    SettingRules.require(
        minAge != null && minAge.compareTo(MIN_MIN_AGE) >= 0,
        MaintenanceKeys.ORPHAN_FILES_MIN_AGE,
        minAge,
        "must be >= 1h (younger files may belong to a commit in progress)");
  }

  /** This setting as a dry run. */
  public OrphanCleanupSettings asDryRun() {
    return new OrphanCleanupSettings(minAge, true);
  }
}
