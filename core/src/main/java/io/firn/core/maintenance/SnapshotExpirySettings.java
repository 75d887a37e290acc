/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.maintenance;

import java.time.Duration;

/**
 * How {@link SnapshotExpiry} expires snapshots.
 *
 * @param maxAge snapshots older than this may expire (key {@code expire-snapshots.max-age}, > 0)
 * @param retainLast the newest this many snapshots of every branch are kept whatever their age (key
 *     {@code expire-snapshots.retain-last}, >= 1)
 * @param cleanExpiredFiles delete the files only expired snapshots referenced (key {@code
 *     expire-snapshots.clean-expired-files}); false leaves them to orphan file cleanup
 * @param dryRun report what would expire without changing the table (key {@code
 *     expire-snapshots.dry-run})
 */
public record SnapshotExpirySettings(
    Duration maxAge, int retainLast, boolean cleanExpiredFiles, boolean dryRun) {

  /** Amoro's defaults: 12 hours, at least 1 snapshot; files cleaned; not a dry run. */
  public static final SnapshotExpirySettings DEFAULTS =
      new SnapshotExpirySettings(
          MaintenanceKeys.EXPIRE_SNAPSHOTS_MAX_AGE_DEFAULT,
          MaintenanceKeys.EXPIRE_SNAPSHOTS_RETAIN_LAST_DEFAULT,
          MaintenanceKeys.EXPIRE_SNAPSHOTS_CLEAN_EXPIRED_FILES_DEFAULT,
          MaintenanceKeys.EXPIRE_SNAPSHOTS_DRY_RUN_DEFAULT);

  /**
   * @throws InvalidMaintenanceSettingsException naming the key, the value and the rule
   */
  public SnapshotExpirySettings {
    SettingRules.require(
        maxAge != null && maxAge.compareTo(Duration.ZERO) > 0,
        MaintenanceKeys.EXPIRE_SNAPSHOTS_MAX_AGE,
        maxAge,
        "must be > 0");
    SettingRules.require(
        retainLast >= 1, MaintenanceKeys.EXPIRE_SNAPSHOTS_RETAIN_LAST, retainLast, "must be >= 1");
  }
}
