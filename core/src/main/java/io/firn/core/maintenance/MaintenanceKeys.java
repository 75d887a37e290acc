/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.maintenance;

import java.time.Duration;
import java.util.List;

/**
 * The server's {@code maintenance:} keys (and, for {@code expire-snapshots} and {@code
 * orphan-files}, the same keys of policy files) with their defaults next to them, in the style of
 * Iceberg's {@code TableProperties}: {@code KEY = "key"} and {@code KEY_DEFAULT = value}. {@link
 * MaintenanceSettings} and the settings records read them from here.
 */
public final class MaintenanceKeys {
  private MaintenanceKeys() {}

  // ---- snapshot expiry: off by default (it deletes); Amoro's 12 hours, 1 snapshot ----

  public static final String EXPIRE_SNAPSHOTS_ENABLED = "expire-snapshots.enabled";
  public static final boolean EXPIRE_SNAPSHOTS_ENABLED_DEFAULT = false;
  public static final String EXPIRE_SNAPSHOTS_INTERVAL = "expire-snapshots.interval";
  public static final Duration EXPIRE_SNAPSHOTS_INTERVAL_DEFAULT = Duration.ofHours(1);
  public static final String EXPIRE_SNAPSHOTS_MAX_AGE = "expire-snapshots.max-age";
  public static final Duration EXPIRE_SNAPSHOTS_MAX_AGE_DEFAULT = Duration.ofHours(12);
  public static final String EXPIRE_SNAPSHOTS_RETAIN_LAST = "expire-snapshots.retain-last";
  public static final int EXPIRE_SNAPSHOTS_RETAIN_LAST_DEFAULT = 1;
  public static final String EXPIRE_SNAPSHOTS_CLEAN_EXPIRED_FILES =
      "expire-snapshots.clean-expired-files";
  public static final boolean EXPIRE_SNAPSHOTS_CLEAN_EXPIRED_FILES_DEFAULT = true;
  public static final String EXPIRE_SNAPSHOTS_DRY_RUN = "expire-snapshots.dry-run";
  public static final boolean EXPIRE_SNAPSHOTS_DRY_RUN_DEFAULT = false;

  // ---- orphan file cleanup: off by default (it deletes); daily, files older than 3 days ----

  public static final String ORPHAN_FILES_ENABLED = "orphan-files.enabled";
  public static final boolean ORPHAN_FILES_ENABLED_DEFAULT = false;
  public static final String ORPHAN_FILES_INTERVAL = "orphan-files.interval";
  public static final Duration ORPHAN_FILES_INTERVAL_DEFAULT = Duration.ofDays(1);

  /** At least {@link OrphanCleanupSettings#MIN_MIN_AGE}. */
  public static final String ORPHAN_FILES_MIN_AGE = "orphan-files.min-age";

  /** ARCHITECTURE.md, "Committing next to live writers". */
  public static final Duration ORPHAN_FILES_MIN_AGE_DEFAULT = Duration.ofDays(3);

  public static final String ORPHAN_FILES_DRY_RUN = "orphan-files.dry-run";
  public static final boolean ORPHAN_FILES_DRY_RUN_DEFAULT = false;

  // ---- dangling delete removal: on, hourly ----

  public static final String DANGLING_DELETES_ENABLED = "dangling-deletes.enabled";
  public static final boolean DANGLING_DELETES_ENABLED_DEFAULT = true;
  public static final String DANGLING_DELETES_INTERVAL = "dangling-deletes.interval";
  public static final Duration DANGLING_DELETES_INTERVAL_DEFAULT = Duration.ofHours(1);
  public static final String DANGLING_DELETES_DRY_RUN = "dangling-deletes.dry-run";
  public static final boolean DANGLING_DELETES_DRY_RUN_DEFAULT = false;

  // ---- manifest rewrite: on (it changes no row), every 10 minutes, from 10 small data manifests

  public static final String REWRITE_MANIFESTS_ENABLED = "rewrite-manifests.enabled";
  public static final boolean REWRITE_MANIFESTS_ENABLED_DEFAULT = true;
  public static final String REWRITE_MANIFESTS_INTERVAL = "rewrite-manifests.interval";
  public static final Duration REWRITE_MANIFESTS_INTERVAL_DEFAULT = Duration.ofMinutes(10);

  /**
   * Data manifests below the table's {@code commit.manifest.target-size-bytes} it takes to rewrite
   * them (>= 2).
   */
  public static final String REWRITE_MANIFESTS_MIN_COUNT = "rewrite-manifests.min-count";

  public static final int REWRITE_MANIFESTS_MIN_COUNT_DEFAULT = 10;

  /** Every key, in the order above. */
  public static final List<String> KEYS =
      List.of(
          EXPIRE_SNAPSHOTS_ENABLED,
          EXPIRE_SNAPSHOTS_INTERVAL,
          EXPIRE_SNAPSHOTS_MAX_AGE,
          EXPIRE_SNAPSHOTS_RETAIN_LAST,
          EXPIRE_SNAPSHOTS_CLEAN_EXPIRED_FILES,
          EXPIRE_SNAPSHOTS_DRY_RUN,
          ORPHAN_FILES_ENABLED,
          ORPHAN_FILES_INTERVAL,
          ORPHAN_FILES_MIN_AGE,
          ORPHAN_FILES_DRY_RUN,
          DANGLING_DELETES_ENABLED,
          DANGLING_DELETES_INTERVAL,
          DANGLING_DELETES_DRY_RUN,
          REWRITE_MANIFESTS_ENABLED,
          REWRITE_MANIFESTS_INTERVAL,
          REWRITE_MANIFESTS_MIN_COUNT);
}
