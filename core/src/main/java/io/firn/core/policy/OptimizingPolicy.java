/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.policy;

import io.firn.core.config.TextSettings;
import java.time.Duration;
import java.util.Map;
import java.util.Set;

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
 * @param maxTaskSize upper bound of the bytes one task reads (the bin size is max(T, this)), except
 *     that a task reads at least one output file's input ({@code BinPackPlanner})
 * @param equalityDeleteBloomThreshold above this many equality-delete records in one task, the
 *     executor pre-filters delete keys through a Bloom filter over the task's own keys, so memory
 *     stays proportional to the task's rows instead of the delete backlog
 * @param maxProcessFiles input files (rewritten plus converted) one plan takes: once the partitions
 *     planned reach it, the later partitions wait for the next process (a partition is never split,
 *     so a plan may exceed it by one partition's files)
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
    long equalityDeleteBloomThreshold,
    long maxProcessFiles) {

  /** {@link PolicyKeys#TARGET_SIZE_DEFAULT}. */
  public static final long DEFAULT_TARGET_SIZE = PolicyKeys.TARGET_SIZE_DEFAULT;

  /** Amoro's defaults ({@link PolicyKeys}' {@code *_DEFAULT}). */
  public static final OptimizingPolicy DEFAULTS =
      new OptimizingPolicy(
          PolicyKeys.TARGET_SIZE_DEFAULT,
          PolicyKeys.FRAGMENT_RATIO_DEFAULT,
          PolicyKeys.MIN_TARGET_SIZE_RATIO_DEFAULT,
          PolicyKeys.MINOR_TRIGGER_FILE_COUNT_DEFAULT,
          PolicyKeys.MINOR_TRIGGER_INTERVAL_DEFAULT,
          PolicyKeys.MAJOR_TRIGGER_DUPLICATE_RATIO_DEFAULT,
          PolicyKeys.FULL_TRIGGER_INTERVAL_DEFAULT,
          PolicyKeys.MAX_TASK_SIZE_DEFAULT,
          PolicyKeys.EQUALITY_DELETE_BLOOM_THRESHOLD_DEFAULT,
          PolicyKeys.MAX_PROCESS_FILES_DEFAULT);

  /** Keys accepted by {@link #withOverrides(Map)}, in the spelling of policy files. */
  public static final Set<String> KEYS = Set.copyOf(PolicyKeys.THRESHOLD_KEYS);

  public OptimizingPolicy {
    require(targetSize > 0, PolicyKeys.TARGET_SIZE, targetSize, "must be > 0 bytes");
    require(fragmentRatio >= 1, PolicyKeys.FRAGMENT_RATIO, fragmentRatio, "must be >= 1");
    require(
        minTargetSizeRatio > 0 && minTargetSizeRatio <= 1,
        PolicyKeys.MIN_TARGET_SIZE_RATIO,
        minTargetSizeRatio,
        "must be in (0, 1]");
    require(
        1.0 / fragmentRatio <= minTargetSizeRatio,
        PolicyKeys.FRAGMENT_RATIO,
        fragmentRatio,
        "must make the fragment size (target-size / fragment-ratio) at most min-target-size-ratio"
            + " × target-size");
    require(
        minorTriggerFileCount >= 1,
        PolicyKeys.MINOR_TRIGGER_FILE_COUNT,
        minorTriggerFileCount,
        ">= 1");
    require(
        !minorTriggerInterval.isNegative(),
        PolicyKeys.MINOR_TRIGGER_INTERVAL,
        minorTriggerInterval,
        "must not be negative");
    require(
        duplicateRatio > 0 && duplicateRatio <= 1,
        PolicyKeys.MAJOR_TRIGGER_DUPLICATE_RATIO,
        duplicateRatio,
        "must be in (0, 1]");
    require(maxTaskSize > 0, PolicyKeys.MAX_TASK_SIZE, maxTaskSize, "must be > 0 bytes");
    require(
        equalityDeleteBloomThreshold >= 0,
        PolicyKeys.EQUALITY_DELETE_BLOOM_THRESHOLD,
        equalityDeleteBloomThreshold,
        "must be >= 0");
    require(
        maxProcessFiles >= 1,
        PolicyKeys.MAX_PROCESS_FILES,
        maxProcessFiles,
        "must be >= 1 (a process takes at least one partition)");
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
    TextSettings values =
        new TextSettings(
            overrides,
            KEYS,
            "policy",
            InvalidPolicyException::new,
            InvalidPolicyValueException::new);
    long target = values.size(PolicyKeys.TARGET_SIZE, targetSize);
    return new OptimizingPolicy(
        target,
        values.integer(PolicyKeys.FRAGMENT_RATIO, fragmentRatio),
        values.decimal(PolicyKeys.MIN_TARGET_SIZE_RATIO, minTargetSizeRatio),
        values.integer(PolicyKeys.MINOR_TRIGGER_FILE_COUNT, minorTriggerFileCount),
        values.duration(PolicyKeys.MINOR_TRIGGER_INTERVAL, minorTriggerInterval),
        values.decimal(PolicyKeys.MAJOR_TRIGGER_DUPLICATE_RATIO, duplicateRatio),
        values.duration(PolicyKeys.FULL_TRIGGER_INTERVAL, fullTriggerInterval),
        // The task size follows the target size unless it was set on its own.
        values.size(
            PolicyKeys.MAX_TASK_SIZE,
            maxTaskSize == defaultTaskSize(targetSize) ? defaultTaskSize(target) : maxTaskSize),
        values.number(PolicyKeys.EQUALITY_DELETE_BLOOM_THRESHOLD, equalityDeleteBloomThreshold),
        values.number(PolicyKeys.MAX_PROCESS_FILES, maxProcessFiles));
  }

  /** {@link PolicyKeys#TASK_TARGETS_DEFAULT} targets, at most {@link Long#MAX_VALUE} bytes. */
  static long defaultTaskSize(long targetSize) {
    return targetSize > Long.MAX_VALUE / PolicyKeys.TASK_TARGETS_DEFAULT
        ? Long.MAX_VALUE
        : PolicyKeys.TASK_TARGETS_DEFAULT * targetSize;
  }

  private static void require(boolean ok, String key, Object value, String rule) {
    if (!ok) {
      throw new InvalidPolicyValueException(key, String.valueOf(value), rule, null);
    }
  }
}
