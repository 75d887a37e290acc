/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.maintenance;

import io.firn.core.policy.Durations;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Every maintenance setting of one table: per operation, whether and how often the server runs it
 * ({@link Schedule}), and the operation's own settings. Keys follow policy files ({@code
 * expire-snapshots}, {@code orphan-files}) plus {@code dangling-deletes}; see {@link #KEYS}.
 * Immutable and thread-safe.
 *
 * @param expireSnapshots when {@link SnapshotExpiry} runs
 * @param expiry how it runs
 * @param orphanFiles when {@link OrphanFileCleanup} runs
 * @param orphans how it runs
 * @param danglingDeletes when {@link DanglingDeleteRemoval} runs
 * @param dangling how it runs
 */
public record MaintenanceSettings(
    Schedule expireSnapshots,
    SnapshotExpirySettings expiry,
    Schedule orphanFiles,
    OrphanCleanupSettings orphans,
    Schedule danglingDeletes,
    DanglingDeleteSettings dangling) {

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

  /** Every key {@link #withOverrides} accepts. */
  public static final Set<String> KEYS =
      Set.copyOf(
          List.of(
              "expire-snapshots.enabled",
              "expire-snapshots.interval",
              "expire-snapshots.max-age",
              "expire-snapshots.retain-last",
              "expire-snapshots.clean-expired-files",
              "expire-snapshots.dry-run",
              "orphan-files.enabled",
              "orphan-files.interval",
              "orphan-files.min-age",
              "orphan-files.dry-run",
              "dangling-deletes.enabled",
              "dangling-deletes.interval",
              "dangling-deletes.dry-run"));

  /**
   * Expiry and orphan cleanup off (as in policy files: they delete), hourly and daily when enabled;
   * dangling delete removal on, hourly.
   */
  public static final MaintenanceSettings DEFAULTS =
      new MaintenanceSettings(
          new Schedule(false, Duration.ofHours(1)),
          SnapshotExpirySettings.DEFAULTS,
          new Schedule(false, Duration.ofDays(1)),
          OrphanCleanupSettings.DEFAULTS,
          new Schedule(true, Duration.ofHours(1)),
          DanglingDeleteSettings.DEFAULTS);

  public MaintenanceSettings {
    require(expireSnapshots != null, "expire-snapshots", null, "must be set");
    require(expiry != null, "expire-snapshots", null, "must be set");
    require(orphanFiles != null, "orphan-files", null, "must be set");
    require(orphans != null, "orphan-files", null, "must be set");
    require(danglingDeletes != null, "dangling-deletes", null, "must be set");
    require(dangling != null, "dangling-deletes", null, "must be set");
  }

  /**
   * A copy with the given keys overridden; values are strings as in a policy file (durations as
   * {@code 30m}, {@code 12h}, {@code 3d} or ISO-8601; booleans {@code true}/{@code false}).
   *
   * @throws InvalidMaintenanceSettingsException naming the key, the value and the rule when a key
   *     is unknown or a value does not parse or breaks a rule
   */
  public MaintenanceSettings withOverrides(Map<String, String> overrides) {
    Map<String, String> unknown = new LinkedHashMap<>(overrides);
    unknown.keySet().removeAll(KEYS);
    if (!unknown.isEmpty()) {
      throw new InvalidMaintenanceSettingsException(
          "unknown maintenance key(s) "
              + new TreeSet<>(unknown.keySet())
              + "; known keys are "
              + new TreeSet<>(KEYS));
    }
    return new MaintenanceSettings(
        schedule(overrides, "expire-snapshots", expireSnapshots),
        new SnapshotExpirySettings(
            duration(overrides, "expire-snapshots.max-age", expiry.maxAge()),
            number(overrides, "expire-snapshots.retain-last", expiry.retainLast()),
            bool(overrides, "expire-snapshots.clean-expired-files", expiry.cleanExpiredFiles()),
            bool(overrides, "expire-snapshots.dry-run", expiry.dryRun())),
        schedule(overrides, "orphan-files", orphanFiles),
        new OrphanCleanupSettings(
            duration(overrides, "orphan-files.min-age", orphans.minAge()),
            bool(overrides, "orphan-files.dry-run", orphans.dryRun())),
        schedule(overrides, "dangling-deletes", danglingDeletes),
        new DanglingDeleteSettings(bool(overrides, "dangling-deletes.dry-run", dangling.dryRun())));
  }

  private static void require(boolean ok, String key, @Nullable Object value, String rule) {
    SettingRules.require(ok, key, value, rule);
  }

  private static Schedule schedule(Map<String, String> values, String kind, Schedule fallback) {
    String key = kind + ".interval";
    Duration interval = duration(values, key, fallback.interval());
    require(interval.compareTo(Duration.ZERO) > 0, key, interval, "must be > 0");
    return new Schedule(bool(values, kind + ".enabled", fallback.enabled()), interval);
  }

  private static boolean bool(Map<String, String> values, String key, boolean fallback) {
    String value = values.get(key);
    if (value == null) {
      return fallback;
    }
    return switch (value.trim().toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default ->
          throw new InvalidMaintenanceSettingsException(
              "maintenance key '" + key + "' = '" + value + "': must be true or false");
    };
  }

  private static int number(Map<String, String> values, String key, int fallback) {
    String value = values.get(key);
    if (value == null) {
      return fallback;
    }
    try {
      return Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      throw new InvalidMaintenanceSettingsException(
          "maintenance key '" + key + "' = '" + value + "': must be a whole number", e);
    }
  }

  private static Duration duration(Map<String, String> values, String key, Duration fallback) {
    String value = values.get(key);
    if (value == null) {
      return fallback;
    }
    try {
      return Durations.parse(value);
    } catch (IllegalArgumentException e) {
      throw new InvalidMaintenanceSettingsException(
          "maintenance key '" + key + "' = '" + value + "': " + e.getMessage(), e);
    }
  }
}
