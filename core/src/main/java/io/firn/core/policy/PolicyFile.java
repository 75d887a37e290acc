/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.policy;

import java.time.DayOfWeek;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A parsed and validated policy file (ADR 0005). Produced by {@link PolicyParser}; every reference
 * in it (window names, group names, threshold keys) has been checked, so {@link #resolve(String)}
 * cannot fail.
 *
 * <p>Schema (version 1; every key is optional unless marked, unknown keys are errors):
 *
 * <pre>{@code
 * version: 1                                  # required, must be 1
 * windows:                                    # named windows
 *   nightly:                                  # days + time range:
 *     time-zone: Asia/Shanghai                #   required; a java.time.ZoneId
 *     start: "01:00"                          #   HH:mm, with end
 *     end: "05:00"                            #   HH:mm; end <= start wraps over midnight
 *     days: [MON, TUE, WED]                   #   days the window opens; default all seven
 *   evening:                                  # or a Quartz cron start + duration:
 *     time-zone: UTC
 *     cron: "0 0 22 * * ?"                    #   6 or 7 fields
 *     duration: 6h                            #   > 0; may run past midnight
 * groups:                                     # optimizer groups; default {default: {capacity: 1}}
 *   default: {capacity: 2}                    #   capacity >= 1 (concurrent tasks)
 * defaults:                                   # settings for every table (see below)
 * rules:                                      # per-table overrides of the defaults
 *   - name: cdc-lake                          #   required, unique
 *     match: "lake.cdc.*"                     #   required glob on catalog.namespace.table
 *     priority: 10                            #   >= 0, default 0; the highest matching rule wins
 *     ...settings...                          #   same keys as under defaults
 * }</pre>
 *
 * Settings (under {@code defaults} and in each rule):
 *
 * <pre>{@code
 * group: default                              # optimizer group; must be defined
 * thresholds: {target-size: 128MiB}           # OptimizingPolicy.KEYS; a rule's keys add to defaults'
 * minor: {enabled: true, windows: [nightly]}  # per kind of work: enabled (boolean) and windows
 * major: {enabled: true}                      #   (names; empty or absent = any time)
 * full: {enabled: false, interval: 1d}        # interval (> 0) for full, expire-snapshots and
 * expire-snapshots: {enabled: false}          #   orphan-files: run at most this often; for full
 * orphan-files: {enabled: false}              #   it sets the full.trigger.interval threshold
 * on-window-close: finish                     # finish | cancel running tasks when a window closes
 * max-delay: 6h                               # a critical table waiting longer may run minor
 *                                             #   work outside its windows; off = never
 * }</pre>
 *
 * A rule overrides only the keys it names; within a kind, {@code enabled}, {@code windows} and
 * {@code interval} are inherited one by one. Built-in values before {@code defaults}: group {@code
 * default}, {@link OptimizingPolicy#DEFAULTS}, minor and major enabled, full, expire-snapshots and
 * orphan-files disabled, no windows, on-window-close finish, max-delay off.
 *
 * <p>Glob syntax: {@code *} matches any characters except {@code .}, {@code **} any characters,
 * {@code ?} one character other than {@code .}; everything else is literal and case-sensitive.
 *
 * <p>Immutable and thread-safe.
 *
 * @param name the file name used in messages
 * @param version the schema version (1)
 * @param windows windows by name, in file order
 * @param groups optimizer groups by name, in file order
 * @param defaults the settings every table gets unless a rule overrides them
 * @param rules the rules in file order
 */
public record PolicyFile(
    String name,
    int version,
    Map<String, Window> windows,
    Map<String, Group> groups,
    EffectivePolicy defaults,
    List<Rule> rules) {

  public PolicyFile {
    windows = Collections.unmodifiableMap(new LinkedHashMap<>(windows));
    groups = Collections.unmodifiableMap(new LinkedHashMap<>(groups));
    rules = List.copyOf(rules);
  }

  /**
   * The effective settings for a table: those of the highest-priority rule whose glob matches the
   * name (on equal priority, the first in the file), else the defaults.
   *
   * @param qualifiedTableName {@code catalog.namespace.table}
   */
  public EffectivePolicy resolve(String qualifiedTableName) {
    Rule best = null;
    for (Rule rule : rules) {
      if (rule.matches(qualifiedTableName) && (best == null || rule.priority() > best.priority())) {
        best = rule;
      }
    }
    return best == null ? defaults : best.effective();
  }

  /** The kinds of work a policy schedules, with their spelling in policy files. */
  public enum WorkKind {
    MINOR("minor"),
    MAJOR("major"),
    FULL("full"),
    EXPIRE_SNAPSHOTS("expire-snapshots"),
    ORPHAN_FILES("orphan-files");

    private final String key;

    WorkKind(String key) {
      this.key = key;
    }

    /** The key of this kind in policy files. */
    public String key() {
      return key;
    }

    /** Whether the kind accepts {@code interval} (the others are triggered by thresholds). */
    public boolean periodic() {
      return this != MINOR && this != MAJOR;
    }
  }

  /** What happens to running tasks when the last window of their kind closes. */
  public enum OnWindowClose {
    /** Let running tasks finish and commit; start nothing new. */
    FINISH,
    /** Cancel running tasks and discard their output. */
    CANCEL
  }

  /**
   * A named time window. Either {@code start}, {@code end} and {@code days} are set (a daily time
   * range, wrapping over midnight when {@code end <= start}), or {@code cron} and {@code duration}
   * (a Quartz cron expression for the opening instants, open for the duration); the other pair is
   * null.
   *
   * <p>The cron expression has only been checked for shape here (6 or 7 fields, characters Quartz
   * allows per field, exactly one of day-of-month and day-of-week is {@code ?}); the server's
   * Quartz scheduler checks it fully when it loads the policy.
   *
   * @param name the window's name
   * @param timeZone the zone its times are in
   * @param start opening time of day, or null for a cron window
   * @param end closing time of day, or null for a cron window
   * @param days days on which the window opens (a wrapped window closes the next day), or empty for
   *     a cron window
   * @param cron Quartz cron expression of the opening instants, or null
   * @param duration how long a cron window stays open, or null
   */
  public record Window(
      String name,
      ZoneId timeZone,
      @Nullable LocalTime start,
      @Nullable LocalTime end,
      Set<DayOfWeek> days,
      @Nullable String cron,
      @Nullable Duration duration) {
    public Window {
      boolean range = start != null && end != null && cron == null && duration == null;
      boolean quartz = start == null && end == null && cron != null && duration != null;
      if (!range && !quartz) {
        throw new IllegalArgumentException(
            "window "
                + name
                + " needs start and end, or cron and duration (got start "
                + start
                + ", end "
                + end
                + ", cron "
                + cron
                + ", duration "
                + duration
                + ")");
      }
      days = Set.copyOf(days);
    }

    /** Whether this is a cron window (else a daily time range). */
    public boolean isCron() {
      return cron != null;
    }

    /** Whether a time-range window closes on the day after it opens. */
    public boolean wrapsMidnight() {
      return start != null && end != null && !end.isAfter(start);
    }
  }

  /**
   * An optimizer group: tables in it share its capacity.
   *
   * @param name the group's name
   * @param capacity how many tasks of the group's tables may run at once, >= 1
   */
  public record Group(String name, int capacity) {}

  /**
   * The effective policy of one kind of work.
   *
   * @param enabled whether the kind runs at all
   * @param windows the windows in which it may start; empty means any time
   * @param interval for periodic kinds, how often it runs; null when unset
   */
  public record WorkPolicy(boolean enabled, List<Window> windows, @Nullable Duration interval) {
    public WorkPolicy {
      windows = List.copyOf(windows);
    }

    /** Whether the kind may start at any time. */
    public boolean anyTime() {
      return windows.isEmpty();
    }
  }

  /**
   * Fully resolved settings for a table.
   *
   * @param rule name of the rule that gave them, or null for the defaults
   * @param priority the rule's priority, 0 for the defaults
   * @param group the optimizer group
   * @param thresholds the optimizing thresholds
   * @param work the policy of each kind of work (every kind is present)
   * @param onWindowClose what happens to running tasks at window close
   * @param maxDelay how long a critical table waits before minor work may run outside its windows;
   *     negative means never
   */
  public record EffectivePolicy(
      @Nullable String rule,
      int priority,
      Group group,
      OptimizingPolicy thresholds,
      Map<WorkKind, WorkPolicy> work,
      OnWindowClose onWindowClose,
      Duration maxDelay) {
    public EffectivePolicy {
      work = Map.copyOf(work);
      Set<WorkKind> missing = EnumSet.allOf(WorkKind.class);
      missing.removeAll(work.keySet());
      if (!missing.isEmpty()) {
        throw new IllegalArgumentException("every kind of work needs a policy; missing " + missing);
      }
    }

    /** The policy of one kind of work. */
    public WorkPolicy work(WorkKind kind) {
      WorkPolicy policy = work.get(kind);
      if (policy == null) {
        throw new IllegalStateException("no policy for " + kind + " (the constructor checks)");
      }
      return policy;
    }

    /** Whether these settings come from a rule rather than the defaults. */
    public boolean fromRule() {
      return rule != null;
    }
  }

  /**
   * A rule: tables matching {@code match} get {@code effective}.
   *
   * @param name unique name
   * @param match the glob as written
   * @param priority >= 0; higher wins
   * @param effective the defaults with this rule's overrides applied
   */
  public record Rule(String name, String match, int priority, EffectivePolicy effective) {

    /** Whether the rule's glob matches the whole qualified table name. */
    public boolean matches(String qualifiedTableName) {
      return glob(match).matcher(qualifiedTableName).matches();
    }
  }

  /** Compiles a table-name glob (see the class comment) to a regular expression. */
  static Pattern glob(String glob) {
    StringBuilder regex = new StringBuilder();
    int i = 0;
    while (i < glob.length()) {
      char c = glob.charAt(i);
      if (c == '*' && i + 1 < glob.length() && glob.charAt(i + 1) == '*') {
        regex.append(".*");
        i += 2;
        continue;
      }
      if (c == '*') {
        regex.append("[^.]*");
      } else if (c == '?') {
        regex.append("[^.]");
      } else {
        regex.append(Pattern.quote(String.valueOf(c)));
      }
      i++;
    }
    return Pattern.compile(regex.toString());
  }
}
