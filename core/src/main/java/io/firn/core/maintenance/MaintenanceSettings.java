/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.maintenance;

import io.firn.core.config.TextSettings;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Every maintenance setting of one table: per operation, whether and how often the server runs it
 * ({@link Schedule}), and the operation's own settings. Keys follow policy files ({@code
 * expire-snapshots}, {@code orphan-files}) plus {@code dangling-deletes} and {@code
 * rewrite-manifests}; see {@link #KEYS}. Immutable and thread-safe.
 *
 * @param expireSnapshots when {@link SnapshotExpiry} runs
 * @param expiry how it runs
 * @param orphanFiles when {@link OrphanFileCleanup} runs
 * @param orphans how it runs
 * @param danglingDeletes when {@link DanglingDeleteRemoval} runs
 * @param dangling how it runs
 * @param rewriteManifests when {@link ManifestRewrite} runs
 * @param manifests how it runs
 */
public record MaintenanceSettings(
    Schedule expireSnapshots,
    SnapshotExpirySettings expiry,
    Schedule orphanFiles,
    OrphanCleanupSettings orphans,
    Schedule danglingDeletes,
    DanglingDeleteSettings dangling,
    Schedule rewriteManifests,
    ManifestRewriteSettings manifests) {

  /**
   * Whether and how often the server runs one operation on a table.
   *
   * @param enabled whether it runs at all
   * @param interval it runs at most this often (> 0)
   */
  public record Schedule(boolean enabled, Duration interval) {
    public Schedule {
      if (interval == null || interval.compareTo(Duration.ZERO) <= 0) {
        throw new InvalidMaintenanceSettingsException(
            "maintenance interval = " + interval + ": must be > 0");
      }
    }
  }

  /** Every key {@link #withOverrides} accepts ({@link MaintenanceKeys}). */
  public static final Set<String> KEYS = Set.copyOf(MaintenanceKeys.KEYS);

  /**
   * Expiry and orphan cleanup off (as in policy files: they delete), hourly and daily when enabled;
   * dangling delete removal on, hourly; manifest rewriting on, every 10 minutes ({@link
   * MaintenanceKeys}' {@code *_DEFAULT}).
   */
  public static final MaintenanceSettings DEFAULTS =
      new MaintenanceSettings(
          new Schedule(
              MaintenanceKeys.EXPIRE_SNAPSHOTS_ENABLED_DEFAULT,
              MaintenanceKeys.EXPIRE_SNAPSHOTS_INTERVAL_DEFAULT),
          SnapshotExpirySettings.DEFAULTS,
          new Schedule(
              MaintenanceKeys.ORPHAN_FILES_ENABLED_DEFAULT,
              MaintenanceKeys.ORPHAN_FILES_INTERVAL_DEFAULT),
          OrphanCleanupSettings.DEFAULTS,
          new Schedule(
              MaintenanceKeys.DANGLING_DELETES_ENABLED_DEFAULT,
              MaintenanceKeys.DANGLING_DELETES_INTERVAL_DEFAULT),
          DanglingDeleteSettings.DEFAULTS,
          new Schedule(
              MaintenanceKeys.REWRITE_MANIFESTS_ENABLED_DEFAULT,
              MaintenanceKeys.REWRITE_MANIFESTS_INTERVAL_DEFAULT),
          ManifestRewriteSettings.DEFAULTS);

  public MaintenanceSettings {
    require(expireSnapshots != null, "expire-snapshots", null, "must be set");
    require(expiry != null, "expire-snapshots", null, "must be set");
    require(orphanFiles != null, "orphan-files", null, "must be set");
    require(orphans != null, "orphan-files", null, "must be set");
    require(danglingDeletes != null, "dangling-deletes", null, "must be set");
    require(dangling != null, "dangling-deletes", null, "must be set");
    require(rewriteManifests != null, "rewrite-manifests", null, "must be set");
    require(manifests != null, "rewrite-manifests", null, "must be set");
  }

  /**
   * A copy with the given keys overridden; values are strings as in a policy file (durations as
   * {@code 30m}, {@code 12h}, {@code 3d} or ISO-8601; booleans {@code true}/{@code false}).
   *
   * @throws InvalidMaintenanceSettingsException naming the key, the value and the rule when a key
   *     is unknown or a value does not parse or breaks a rule
   */
  public MaintenanceSettings withOverrides(Map<String, String> overrides) {
    TextSettings values =
        new TextSettings(
            overrides,
            KEYS,
            "maintenance",
            InvalidMaintenanceSettingsException::new,
            (key, shown, rule, cause) ->
                new InvalidMaintenanceSettingsException(
                    "maintenance key '" + key + "' = " + shown + ": " + rule, cause));
    return new MaintenanceSettings(
        schedule(
            values,
            MaintenanceKeys.EXPIRE_SNAPSHOTS_ENABLED,
            MaintenanceKeys.EXPIRE_SNAPSHOTS_INTERVAL,
            expireSnapshots),
        new SnapshotExpirySettings(
            values.duration(MaintenanceKeys.EXPIRE_SNAPSHOTS_MAX_AGE, expiry.maxAge()),
            values.integer(MaintenanceKeys.EXPIRE_SNAPSHOTS_RETAIN_LAST, expiry.retainLast()),
            values.bool(
                MaintenanceKeys.EXPIRE_SNAPSHOTS_CLEAN_EXPIRED_FILES, expiry.cleanExpiredFiles()),
            values.bool(MaintenanceKeys.EXPIRE_SNAPSHOTS_DRY_RUN, expiry.dryRun())),
        schedule(
            values,
            MaintenanceKeys.ORPHAN_FILES_ENABLED,
            MaintenanceKeys.ORPHAN_FILES_INTERVAL,
            orphanFiles),
        new OrphanCleanupSettings(
            values.duration(MaintenanceKeys.ORPHAN_FILES_MIN_AGE, orphans.minAge()),
            values.bool(MaintenanceKeys.ORPHAN_FILES_DRY_RUN, orphans.dryRun())),
        schedule(
            values,
            MaintenanceKeys.DANGLING_DELETES_ENABLED,
            MaintenanceKeys.DANGLING_DELETES_INTERVAL,
            danglingDeletes),
        new DanglingDeleteSettings(
            values.bool(MaintenanceKeys.DANGLING_DELETES_DRY_RUN, dangling.dryRun())),
        schedule(
            values,
            MaintenanceKeys.REWRITE_MANIFESTS_ENABLED,
            MaintenanceKeys.REWRITE_MANIFESTS_INTERVAL,
            rewriteManifests),
        new ManifestRewriteSettings(
            values.integer(MaintenanceKeys.REWRITE_MANIFESTS_MIN_COUNT, manifests.minCount())));
  }

  private static void require(boolean ok, String key, @Nullable Object value, String rule) {
    SettingRules.require(ok, key, value, rule);
  }

  private static Schedule schedule(
      TextSettings values, String enabledKey, String intervalKey, Schedule fallback) {
    Duration interval = values.duration(intervalKey, fallback.interval());
    require(interval.compareTo(Duration.ZERO) > 0, intervalKey, interval, "must be > 0");
    return new Schedule(values.bool(enabledKey, fallback.enabled()), interval);
  }
}
