/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.policy;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The thresholds that decide what optimizing a partition needs (ARCHITECTURE.md, "Vocabulary").
 * Defaults are Apache Amoro's, which encode years of tuning on streaming tables.
 *
 * <p>Immutable and thread-safe. Sizes are in bytes, intervals are {@link Duration}s; a negative
 * {@code fullTriggerInterval} disables periodic full optimizing.
 *
 * @param targetSize output data file size T, and the bin size of a task's rewritten bytes
 * @param fragmentRatio a data file of at most T / fragmentRatio bytes is a fragment
 * @param minTargetSizeRatio a data file above minTargetSizeRatio × T is a segment; between the
 *     fragment size and that, an undersized segment
 * @param minorTriggerFileCount minor optimizing is due when fragments + equality-delete files reach
 *     this count
 * @param minorTriggerInterval minor optimizing is also due after this long when at least two small
 *     files or any delete file exist
 * @param duplicateRatio a segment whose deleted rows reach this share of its rows is rewritten by
 *     major optimizing
 * @param fullTriggerInterval full optimizing is due after this long; negative: never by time
 * @param maxTaskSize upper bound of the bytes one task reads (the bin size is max(T, this))
 * @param equalityDeleteBloomThreshold above this many equality-delete records in one task, the
 *     executor pre-filters delete keys through a Bloom filter over the task's own keys, so memory
 *     stays proportional to the task's rows instead of the delete backlog
 */
public record OptimizingPolicy(
    long targetSize,
    int fragmentRatio,
    double minTargetSizeRatio,
    int minorTriggerFileCount,
    Duration minorTriggerInterval,
    double duplicateRatio,
    Duration fullTriggerInterval,
    long maxTaskSize,
    long equalityDeleteBloomThreshold) {

  public static final long DEFAULT_TARGET_SIZE = 128L * 1024 * 1024;

  /** Amoro's defaults. */
  public static final OptimizingPolicy DEFAULTS =
      new OptimizingPolicy(
          DEFAULT_TARGET_SIZE,
          8,
          0.75,
          12,
          Duration.ofHours(1),
          0.1,
          Duration.ofMillis(-1),
          DEFAULT_TARGET_SIZE,
          1_000_000L);

  /** Keys accepted by {@link #withOverrides(Map)}, in the spelling of policy files. */
  public static final Set<String> KEYS =
      Set.of(
          "target-size",
          "fragment-ratio",
          "min-target-size-ratio",
          "minor.trigger.file-count",
          "minor.trigger.interval",
          "major.trigger.duplicate-ratio",
          "full.trigger.interval",
          "max-task-size",
          "equality-delete.bloom-threshold");

  public OptimizingPolicy {
    require(targetSize > 0, "target-size", targetSize, "must be > 0 bytes");
    require(fragmentRatio >= 1, "fragment-ratio", fragmentRatio, "must be >= 1");
    require(
        minTargetSizeRatio > 0 && minTargetSizeRatio <= 1,
        "min-target-size-ratio",
        minTargetSizeRatio,
        "must be in (0, 1]");
    require(
        1.0 / fragmentRatio <= minTargetSizeRatio,
        "fragment-ratio",
        fragmentRatio,
        "must make the fragment size (target-size / fragment-ratio) at most min-target-size-ratio"
            + " × target-size");
    require(minorTriggerFileCount >= 1, "minor.trigger.file-count", minorTriggerFileCount, ">= 1");
    require(
        !minorTriggerInterval.isNegative(),
        "minor.trigger.interval",
        minorTriggerInterval,
        "must not be negative");
    require(
        duplicateRatio > 0 && duplicateRatio <= 1,
        "major.trigger.duplicate-ratio",
        duplicateRatio,
        "must be in (0, 1]");
    require(maxTaskSize > 0, "max-task-size", maxTaskSize, "must be > 0 bytes");
    require(
        equalityDeleteBloomThreshold >= 0,
        "equality-delete.bloom-threshold",
        equalityDeleteBloomThreshold,
        "must be >= 0");
  }

  /** Files of at most this many bytes are fragments. */
  public long fragmentSize() {
    return targetSize / fragmentRatio;
  }

  /** Files above this many bytes are segments. */
  public long minTargetSize() {
    return (long) (targetSize * minTargetSizeRatio);
  }

  /** The bytes one task may read (data-file bytes of rewritten files). */
  public long taskCapacity() {
    return Math.max(targetSize, maxTaskSize);
  }

  /** Whether full optimizing runs periodically. */
  public boolean fullByInterval() {
    return !fullTriggerInterval.isNegative();
  }

  /**
   * Returns a copy with the given keys overridden. Values are strings as in a policy file; sizes
   * accept a unit suffix ({@code 128MiB}, {@code 64KB}), durations ISO-8601 or {@code 30m}/{@code
   * 1h}/{@code 2d}.
   *
   * @throws InvalidPolicyException naming the key, the value and the rule when a key is unknown or
   *     a value does not parse or breaks a rule
   */
  public OptimizingPolicy withOverrides(Map<String, String> overrides) {
    Map<String, String> unknown = new LinkedHashMap<>(overrides);
    unknown.keySet().removeAll(KEYS);
    if (!unknown.isEmpty()) {
      throw new InvalidPolicyException(
          "unknown policy key(s) "
              + new TreeSet<>(unknown.keySet())
              + "; known keys are "
              + new TreeSet<>(KEYS));
    }
    long target = size(overrides, "target-size", targetSize);
    return new OptimizingPolicy(
        target,
        (int) number(overrides, "fragment-ratio", fragmentRatio),
        decimal(overrides, "min-target-size-ratio", minTargetSizeRatio),
        (int) number(overrides, "minor.trigger.file-count", minorTriggerFileCount),
        duration(overrides, "minor.trigger.interval", minorTriggerInterval),
        decimal(overrides, "major.trigger.duplicate-ratio", duplicateRatio),
        duration(overrides, "full.trigger.interval", fullTriggerInterval),
        // The task size follows the target size unless it was set on its own.
        size(overrides, "max-task-size", maxTaskSize == targetSize ? target : maxTaskSize),
        number(overrides, "equality-delete.bloom-threshold", equalityDeleteBloomThreshold));
  }

  private static void require(boolean ok, String key, Object value, String rule) {
    if (!ok) {
      throw new InvalidPolicyValueException(key, String.valueOf(value), rule, null);
    }
  }

  private static long number(Map<String, String> values, String key, long fallback) {
    String value = values.get(key);
    if (value == null) {
      return fallback;
    }
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      throw new InvalidPolicyValueException(key, "'" + value + "'", "must be a whole number", e);
    }
  }

  private static double decimal(Map<String, String> values, String key, double fallback) {
    String value = values.get(key);
    if (value == null) {
      return fallback;
    }
    try {
      return Double.parseDouble(value.trim());
    } catch (NumberFormatException e) {
      throw new InvalidPolicyValueException(key, "'" + value + "'", "must be a decimal number", e);
    }
  }

  private static long size(Map<String, String> values, String key, long fallback) {
    String value = values.get(key);
    if (value == null) {
      return fallback;
    }
    try {
      return Sizes.parse(value);
    } catch (IllegalArgumentException e) {
      throw new InvalidPolicyValueException(
          key, "'" + value + "'", String.valueOf(e.getMessage()), e);
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
      throw new InvalidPolicyValueException(
          key, "'" + value + "'", String.valueOf(e.getMessage()), e);
    }
  }
}
