/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.policy;

import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

/**
 * The keys of policy files ({@link PolicyFile}) with their defaults next to them, in the style of
 * Iceberg's {@code TableProperties}: {@code KEY = "key"} and {@code KEY_DEFAULT = value}. {@link
 * PolicyParser}, {@link OptimizingPolicy} and the schema test read them from here; so does the
 * maintenance settings' reader for the {@code expire-snapshots} and {@code orphan-files} keys they
 * share with policy files.
 */
public final class PolicyKeys {
  private PolicyKeys() {}

  // ---- the document ----

  public static final String VERSION = "version";
  public static final String WINDOWS = "windows";
  public static final String GROUPS = "groups";
  public static final String DEFAULTS = "defaults";
  public static final String RULES = "rules";

  // ---- a window ----

  public static final String TIME_ZONE = "time-zone";
  public static final String START = "start";
  public static final String END = "end";
  public static final String DAYS = "days";
  public static final String CRON = "cron";
  public static final String DURATION = "duration";

  // ---- a group ----

  public static final String CAPACITY = "capacity";

  /** The implicit group when a policy defines none, and its capacity. */
  public static final String GROUP_DEFAULT = "default";

  public static final int CAPACITY_DEFAULT = 1;

  // ---- a rule ----

  public static final String NAME = "name";
  public static final String MATCH = "match";
  public static final String PRIORITY = "priority";
  public static final int PRIORITY_DEFAULT = 0;

  // ---- settings (defaults and rules) ----

  public static final String GROUP = "group";
  public static final String THRESHOLDS = "thresholds";
  public static final String ON_WINDOW_CLOSE = "on-window-close";

  /** {@code finish} (let running tasks commit) or {@code cancel}. */
  public static final String ON_WINDOW_CLOSE_DEFAULT = "finish";

  public static final String MAX_DELAY = "max-delay";

  /** Never: work waits for its windows however long. */
  public static final Duration MAX_DELAY_DEFAULT = Duration.ofMillis(-1);

  // ---- a kind of work (minor, major, full, expire-snapshots, orphan-files) ----

  public static final String ENABLED = "enabled";
  public static final String INTERVAL = "interval";

  // ---- thresholds (OptimizingPolicy; Amoro's defaults) ----

  public static final String TARGET_SIZE = "target-size";
  public static final long TARGET_SIZE_DEFAULT = 128L * 1024 * 1024;
  public static final String FRAGMENT_RATIO = "fragment-ratio";
  public static final int FRAGMENT_RATIO_DEFAULT = 8;
  public static final String MIN_TARGET_SIZE_RATIO = "min-target-size-ratio";
  public static final double MIN_TARGET_SIZE_RATIO_DEFAULT = 0.75;
  public static final String MINOR_TRIGGER_FILE_COUNT = "minor.trigger.file-count";
  public static final int MINOR_TRIGGER_FILE_COUNT_DEFAULT = 12;
  public static final String MINOR_TRIGGER_INTERVAL = "minor.trigger.interval";
  public static final Duration MINOR_TRIGGER_INTERVAL_DEFAULT = Duration.ofHours(1);
  public static final String MAJOR_TRIGGER_DUPLICATE_RATIO = "major.trigger.duplicate-ratio";
  public static final double MAJOR_TRIGGER_DUPLICATE_RATIO_DEFAULT = 0.1;

  /** Negative: never by time ({@code full.interval} of a policy's work sets it too). */
  public static final String FULL_TRIGGER_INTERVAL = "full.trigger.interval";

  public static final Duration FULL_TRIGGER_INTERVAL_DEFAULT = Duration.ofMillis(-1);

  /**
   * {@value #TASK_TARGETS_DEFAULT} × {@link #TARGET_SIZE} unless set on its own: a task writes
   * several files, so the sized writer can split its rows evenly whatever the sizes of its input
   * files (ADR 0031).
   */
  public static final String MAX_TASK_SIZE = "max-task-size";

  public static final int TASK_TARGETS_DEFAULT = 8;
  public static final long MAX_TASK_SIZE_DEFAULT = TASK_TARGETS_DEFAULT * TARGET_SIZE_DEFAULT;
  public static final String EQUALITY_DELETE_BLOOM_THRESHOLD = "equality-delete.bloom-threshold";
  public static final long EQUALITY_DELETE_BLOOM_THRESHOLD_DEFAULT = 1_000_000L;

  /**
   * Input files (rewritten plus converted) one process of a table takes; the partitions after them
   * wait for the next process (ADR 0035, "Bounding a process"). The default keeps a plan and one
   * group of partitions being read within 2 GiB of heap (BENCHMARKS.md, "Planning in groups of
   * partitions").
   */
  public static final String MAX_PROCESS_FILES = "max-process-files";

  public static final long MAX_PROCESS_FILES_DEFAULT = 1_000_000L;

  // ---- the keys of each map ----

  public static final List<String> ROOT_KEYS = List.of(VERSION, WINDOWS, GROUPS, DEFAULTS, RULES);
  public static final List<String> WINDOW_KEYS =
      List.of(TIME_ZONE, START, END, DAYS, CRON, DURATION);
  public static final List<String> GROUP_KEYS = List.of(CAPACITY);

  /** The keys of {@code defaults} and of a rule (besides name, match and priority). */
  public static final List<String> SETTINGS_KEYS =
      List.of(
          GROUP,
          THRESHOLDS,
          PolicyFile.WorkKind.MINOR.key(),
          PolicyFile.WorkKind.MAJOR.key(),
          PolicyFile.WorkKind.FULL.key(),
          PolicyFile.WorkKind.EXPIRE_SNAPSHOTS.key(),
          PolicyFile.WorkKind.ORPHAN_FILES.key(),
          ON_WINDOW_CLOSE,
          MAX_DELAY);

  /** A rule's keys: name, match, priority and the settings keys. */
  public static final List<String> RULE_KEYS =
      Stream.concat(Stream.of(NAME, MATCH, PRIORITY), SETTINGS_KEYS.stream()).toList();

  /** The keys of {@code thresholds}, as {@link OptimizingPolicy#withOverrides} accepts them. */
  public static final List<String> THRESHOLD_KEYS =
      List.of(
          TARGET_SIZE,
          FRAGMENT_RATIO,
          MIN_TARGET_SIZE_RATIO,
          MINOR_TRIGGER_FILE_COUNT,
          MINOR_TRIGGER_INTERVAL,
          MAJOR_TRIGGER_DUPLICATE_RATIO,
          FULL_TRIGGER_INTERVAL,
          MAX_TASK_SIZE,
          EQUALITY_DELETE_BLOOM_THRESHOLD,
          MAX_PROCESS_FILES);
}
