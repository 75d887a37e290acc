/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.policy;

import static io.firn.core.policy.PolicyKeys.CAPACITY;
import static io.firn.core.policy.PolicyKeys.CAPACITY_DEFAULT;
import static io.firn.core.policy.PolicyKeys.DEFAULTS;
import static io.firn.core.policy.PolicyKeys.ENABLED;
import static io.firn.core.policy.PolicyKeys.GROUP;
import static io.firn.core.policy.PolicyKeys.GROUPS;
import static io.firn.core.policy.PolicyKeys.GROUP_DEFAULT;
import static io.firn.core.policy.PolicyKeys.INTERVAL;
import static io.firn.core.policy.PolicyKeys.MATCH;
import static io.firn.core.policy.PolicyKeys.MAX_DELAY;
import static io.firn.core.policy.PolicyKeys.MAX_DELAY_DEFAULT;
import static io.firn.core.policy.PolicyKeys.NAME;
import static io.firn.core.policy.PolicyKeys.ON_WINDOW_CLOSE;
import static io.firn.core.policy.PolicyKeys.PRIORITY;
import static io.firn.core.policy.PolicyKeys.PRIORITY_DEFAULT;
import static io.firn.core.policy.PolicyKeys.RULES;
import static io.firn.core.policy.PolicyKeys.THRESHOLDS;
import static io.firn.core.policy.PolicyKeys.TIME_ZONE;
import static io.firn.core.policy.PolicyKeys.VERSION;
import static io.firn.core.policy.PolicyKeys.WINDOWS;

import io.firn.core.config.ConfigDocument;
import io.firn.core.config.ConfigException;
import io.firn.core.config.ConfigNode;
import io.firn.core.policy.PolicyFile.EffectivePolicy;
import io.firn.core.policy.PolicyFile.Group;
import io.firn.core.policy.PolicyFile.OnWindowClose;
import io.firn.core.policy.PolicyFile.Rule;
import io.firn.core.policy.PolicyFile.Window;
import io.firn.core.policy.PolicyFile.WorkKind;
import io.firn.core.policy.PolicyFile.WorkPolicy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.ParseException;
import java.time.DateTimeException;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.quartz.CronExpression;

/**
 * Reads policy files (schema in {@link PolicyFile}). Every problem is an {@link
 * InvalidPolicyException} whose message names the file, the line, the key path and the rule, e.g.
 * {@code policies/x.yaml line 7: windows.nightly.time-zone = 'Mars/Olympus': not a time zone (e.g.
 * UTC, Europe/Berlin)}. Unknown keys are errors.
 *
 * <p>The parser reads through {@link ConfigDocument} (ADR 0037), which keeps every key's line.
 * Stateless and thread-safe.
 */
public final class PolicyParser {

  static final List<String> ROOT_KEYS = PolicyKeys.ROOT_KEYS;
  static final List<String> WINDOW_KEYS = PolicyKeys.WINDOW_KEYS;
  static final List<String> GROUP_KEYS = PolicyKeys.GROUP_KEYS;
  static final List<String> SETTINGS_KEYS = PolicyKeys.SETTINGS_KEYS;
  private static final List<String> RULE_KEYS = PolicyKeys.RULE_KEYS;
  private static final Pattern TIME = Pattern.compile("([01]\\d|2[0-3]):[0-5]\\d");
  private static final Map<String, DayOfWeek> DAYS = days();
  private static final String[] CRON_FIELDS = {
    "second", "minute", "hour", "day-of-month", "month", "day-of-week", "year"
  };
  private static final Pattern[] CRON_CHARACTERS = {
    Pattern.compile("[0-9,\\-*/]+"),
    Pattern.compile("[0-9,\\-*/]+"),
    Pattern.compile("[0-9,\\-*/]+"),
    Pattern.compile("[0-9,\\-*/?LW]+"),
    Pattern.compile("[0-9A-Za-z,\\-*/]+"),
    Pattern.compile("[0-9A-Za-z,\\-*/?L#]+"),
    Pattern.compile("[0-9,\\-*/]+")
  };

  /** The start of {@link OptimizingPolicy}'s messages, which name the key. */
  private PolicyParser() {}

  /**
   * Parses a policy file, or a directory of them, as one policy; messages name the path as given.
   * Cron expressions are checked by Quartz's {@link CronExpression}, the class the server schedules
   * windows with, so a file that passes here passes a reload.
   *
   * <p>A directory's {@code *.yaml} and {@code *.yml} files (not those of its subdirectories) are
   * read in name order as one policy named by the directory: each names {@code version: 1};
   * windows, groups and rules add up, and a window, group or rule name may be defined only once
   * across the files; at most one file has {@code defaults}; a rule may name windows and groups of
   * any file; the implicit {@code default} group exists only when no file defines groups. Errors
   * name the file the problem is in.
   *
   * @throws InvalidPolicyException when a file cannot be read or the policy is not valid
   */
  public static PolicyFile parse(Path path) {
    if (Files.isDirectory(path)) {
      List<Path> files;
      try (Stream<Path> list = Files.list(path)) {
        files =
            list.filter(
                    p -> {
                      String n = p.getFileName().toString();
                      return (n.endsWith(".yaml") || n.endsWith(".yml")) && Files.isRegularFile(p);
                    })
                .sorted()
                .toList();
      } catch (IOException e) {
        throw new InvalidPolicyException(path + ": cannot read: " + e.getMessage(), e);
      }
      if (files.isEmpty()) {
        throw new InvalidPolicyException(
            path + ": no policy files (*.yaml, *.yml) in the directory");
      }
      List<Source> sources = new ArrayList<>();
      for (Path f : files) {
        sources.add(new Source(f.toString(), read(f)));
      }
      return read(path.toString(), sources);
    }
    return parse(path.toString(), read(path));
  }

  /**
   * Parses policy YAML (cron expressions checked as {@link #parse(Path)} says).
   *
   * @param name the file name used in messages
   * @throws InvalidPolicyException when the text is not a valid policy
   */
  public static PolicyFile parse(String name, String yaml) {
    return read(name, List.of(new Source(name, yaml)));
  }

  private static PolicyFile read(String name, List<Source> sources) {
    try {
      return new Reader().files(name, sources);
    } catch (ConfigException e) {
      throw new InvalidPolicyException(e.getMessage(), e);
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new InvalidPolicyException(file + ": cannot read: " + e.getMessage(), e);
    }
  }

  private record Source(String name, String text) {}

  /** Where a name was first defined, for duplicate messages. */
  private record Origin(String file, int line) {
    String describe(String currentFile) {
      return currentFile.equals(file) ? "line " + line : file + " line " + line;
    }
  }

  /** A rule's or the defaults' own keys; null members are inherited. */
  private record Settings(
      @Nullable Group group,
      Map<String, ConfigNode> thresholds,
      @Nullable ConfigNode thresholdsBlock,
      Map<WorkKind, Work> work,
      @Nullable OnWindowClose onWindowClose,
      @Nullable Duration maxDelay) {}

  /** A kind of work's own keys; null members are inherited. */
  private record Work(
      @Nullable Boolean enabled, @Nullable List<Window> windows, @Nullable Duration interval) {}

  private static final class Reader {
    private final Map<String, Window> windows = new LinkedHashMap<>();
    private final Map<String, Group> groups = new LinkedHashMap<>();

    /** The file being read; messages that no single key carries name it. */
    private String file = "";

    PolicyFile files(String name, List<Source> sources) {
      List<Map<String, ConfigNode>> roots = new ArrayList<>();
      for (Source source : sources) {
        file = source.name();
        ConfigNode root = ConfigDocument.parse(source.name(), source.text());
        if (root.isNull()) {
          throw error(1, "version", null, "file is empty; policy files start with 'version: 1'");
        }
        root.entries("policy keys (version, windows, ...)");
        root.keys(ROOT_KEYS);
        ConfigNode version =
            root.get(VERSION)
                .orElseThrow(
                    () ->
                        error(1, "version", null, "missing; policy files start with 'version: 1'"));
        if (!"1".equals(version.shown())) {
          throw version.error("must be 1 (the only schema version)");
        }
        roots.add(root.entries("policy keys"));
      }
      Map<String, Origin> windowOrigins = new LinkedHashMap<>();
      for (int i = 0; i < sources.size(); i++) {
        file = sources.get(i).name();
        ConfigNode windowsField = roots.get(i).get(WINDOWS);
        if (windowsField != null) {
          for (ConfigNode f : windowsField.entries("windows by name").values()) {
            unique(windowOrigins, f, "window");
            windows.put(f.key(), window(f));
          }
        }
      }
      Map<String, Origin> groupOrigins = new LinkedHashMap<>();
      Origin groupsOrigin = null;
      for (int i = 0; i < sources.size(); i++) {
        file = sources.get(i).name();
        ConfigNode g = roots.get(i).get(GROUPS);
        if (g != null) {
          if (groupsOrigin == null) {
            groupsOrigin = new Origin(file, g.line());
          }
          for (ConfigNode f : g.entries("groups by name").values()) {
            unique(groupOrigins, f, "group");
            groups.put(f.key(), group(f));
          }
        }
      }
      if (groupsOrigin == null) {
        groups.put(GROUP_DEFAULT, new Group(GROUP_DEFAULT, CAPACITY_DEFAULT));
      }
      ConfigNode defaultsField = null;
      Origin defaultsOrigin = null;
      for (int i = 0; i < sources.size(); i++) {
        file = sources.get(i).name();
        ConfigNode d = roots.get(i).get(DEFAULTS);
        if (d != null) {
          if (defaultsOrigin != null) {
            throw d.problem(
                "a policy has one defaults section (first in "
                    + defaultsOrigin.describe(file)
                    + ")");
          }
          defaultsField = d;
          defaultsOrigin = new Origin(file, d.line());
        }
      }
      // Messages about the defaults name the file that has them, else the one that defines groups.
      Origin settingsOrigin = defaultsOrigin != null ? defaultsOrigin : groupsOrigin;
      if (settingsOrigin != null) {
        file = settingsOrigin.file();
      }
      Settings defaultSettings =
          defaultsField == null
              ? new Settings(null, Map.of(), null, Map.of(), null, null)
              : settings(defaultsField.entries("settings"), defaultsField, true);
      // Without groups the implicit default exists, so settingsOrigin is set whenever this fails.
      if (settingsOrigin != null
          && defaultSettings.group() == null
          && !groups.containsKey(GROUP_DEFAULT)) {
        throw error(
            settingsOrigin.line(),
            "defaults.group",
            "default",
            "no such group (the implicit default); define group 'default' or set defaults.group;"
                + " defined groups are "
                + groups.keySet());
      }
      EffectivePolicy defaults = apply(builtIn(), defaultSettings, null, 0, null, "defaults");
      List<Rule> rules = new ArrayList<>();
      Map<String, Origin> ruleOrigins = new LinkedHashMap<>();
      for (int s = 0; s < sources.size(); s++) {
        file = sources.get(s).name();
        ConfigNode rulesField = roots.get(s).get(RULES);
        if (rulesField != null) {
          for (ConfigNode item : rulesField.items("rules")) {
            rules.add(rule(item, defaults, defaultSettings, ruleOrigins));
          }
        }
      }
      return new PolicyFile(name, 1, windows, groups, defaults, rules);
    }

    /** Rejects a name defined in an earlier file (within one file, YAML keys are unique). */
    void unique(Map<String, Origin> origins, ConfigNode f, String what) {
      Origin previous = origins.putIfAbsent(f.key(), new Origin(file, f.line()));
      if (previous != null) {
        throw f.problem(
            "duplicate "
                + what
                + " name (first defined at "
                + previous.describe(file)
                + "); names are unique across a policy's files");
      }
    }

    // ---- sections ----

    Window window(ConfigNode field) {
      String path = field.path();
      Map<String, ConfigNode> f =
          field
              .keys(WINDOW_KEYS)
              .entries("window keys (time-zone, start, end, days, cron, duration)");
      ConfigNode zoneField = f.get(TIME_ZONE);
      if (zoneField == null) {
        throw field.problem("missing time-zone (e.g. UTC, Europe/Berlin)");
      }
      ZoneId zone;
      String zoneText = zoneField.text();
      try {
        zone = ZoneId.of(zoneText);
      } catch (DateTimeException e) {
        throw zoneField.error("not a time zone (e.g. UTC, Europe/Berlin)");
      }
      ConfigNode start = f.get("start");
      ConfigNode end = f.get("end");
      ConfigNode cron = f.get("cron");
      ConfigNode duration = f.get("duration");
      ConfigNode days = f.get("days");
      boolean range = start != null || end != null;
      boolean quartz = cron != null || duration != null;
      String either = "a window has either start + end or cron + duration";
      if (range && cron != null) {
        throw cron.problem(either + ", not both");
      }
      if (range && duration != null) {
        throw duration.problem(either + ", not both");
      }
      if (start != null && end == null) {
        throw start.problem("needs end; " + either);
      }
      if (start == null && end != null) {
        throw end.problem("needs start; " + either);
      }
      if (start != null && end != null) {
        LocalTime from = time(start);
        LocalTime to = time(end);
        if (from.equals(to)) {
          throw end.error("must differ from start (a window of no time)");
        }
        Set<DayOfWeek> on = days == null ? EnumSet.allOf(DayOfWeek.class) : days(days);
        return new Window(field.key(), zone, from, to, on, null, null);
      }
      if (quartz && days != null) {
        throw days.problem("only with start + end; a cron window names its days");
      }
      if (cron != null && duration == null) {
        throw cron.problem("needs duration; " + either);
      }
      if (cron == null && duration != null) {
        throw duration.problem("needs cron; " + either);
      }
      if (cron == null || duration == null) {
        throw error(field.line(), path, null, "needs start + end or cron + duration");
      }
      String expression = cron(cron);
      Duration open = duration.duration();
      if (open.isNegative() || open.isZero()) {
        throw duration.error("must be > 0");
      }
      return new Window(field.key(), zone, null, null, Set.of(), expression, open);
    }

    Group group(ConfigNode field) {
      Map<String, ConfigNode> m = field.keys(GROUP_KEYS).entries("group keys (capacity)");
      ConfigNode capacity = m.get(CAPACITY);
      if (capacity == null) {
        throw field.problem("missing capacity (concurrent tasks, >= 1)");
      }
      long n = capacity.integer();
      if (n < 1 || n > Integer.MAX_VALUE) {
        throw capacity.error("must be >= 1 (concurrent tasks)");
      }
      return new Group(field.key(), (int) n);
    }

    Rule rule(
        ConfigNode node,
        EffectivePolicy defaults,
        Settings defaultSettings,
        Map<String, Origin> ruleOrigins) {
      Map<String, ConfigNode> m = node.entries("rule keys (name, match, priority, ...)");
      node.keys(RULE_KEYS);
      ConfigNode nameField = m.get(NAME);
      if (nameField == null) {
        throw node.problem("missing name");
      }
      String name = nameField.text();
      if (name.isBlank()) {
        throw nameField.error("must not be empty");
      }
      Origin previous = ruleOrigins.putIfAbsent(name, new Origin(file, nameField.line()));
      if (previous != null) {
        throw nameField.error(
            "duplicate rule name (first used at " + previous.describe(file) + ")");
      }
      ConfigNode matchField = m.get(MATCH);
      if (matchField == null) {
        throw node.problem("missing match (a glob on catalog.namespace.table)");
      }
      String match = matchField.text();
      if (match.isBlank()) {
        throw matchField.error("must not be empty (a glob on catalog.namespace.table)");
      }
      int priority = PRIORITY_DEFAULT;
      ConfigNode priorityField = m.get(PRIORITY);
      if (priorityField != null) {
        long p = priorityField.integer();
        if (p < 0 || p > Integer.MAX_VALUE) {
          throw priorityField.error("must be >= 0");
        }
        priority = (int) p;
      }
      Settings own = settings(m, node, false);
      return new Rule(
          name,
          match,
          priority,
          apply(defaults, own, name, priority, defaultSettings, node.path()));
    }

    /**
     * Reads the settings keys of a map; {@code onlySettings} rejects other keys (a rule's map also
     * holds name, match and priority, checked by the caller).
     */
    Settings settings(Map<String, ConfigNode> f, ConfigNode node, boolean onlySettings) {
      if (onlySettings) {
        node.keys(SETTINGS_KEYS);
      }
      Group group = null;
      ConfigNode groupField = f.get(GROUP);
      if (groupField != null) {
        group = groups.get(groupField.text());
        if (group == null) {
          throw groupField.error("no such group; defined groups are " + groups.keySet());
        }
      }
      Map<String, ConfigNode> thresholds = new LinkedHashMap<>();
      ConfigNode block = f.get(THRESHOLDS);
      if (block != null) {
        for (ConfigNode k : block.entries("threshold keys").values()) {
          if (!OptimizingPolicy.KEYS.contains(k.key())) {
            throw k.problem(
                "unknown threshold key; known keys are " + new TreeSet<>(OptimizingPolicy.KEYS));
          }
          k.text();
          thresholds.put(k.key(), k);
        }
      }
      Map<WorkKind, Work> work = new EnumMap<>(WorkKind.class);
      for (WorkKind kind : WorkKind.values()) {
        ConfigNode w = f.get(kind.key());
        if (w != null) {
          work.put(kind, work(kind, w));
        }
      }
      OnWindowClose close = null;
      ConfigNode closeField = f.get(ON_WINDOW_CLOSE);
      if (closeField != null) {
        String value = closeField.text();
        close =
            switch (value) {
              case "finish" -> OnWindowClose.FINISH;
              case "cancel" -> OnWindowClose.CANCEL;
              default ->
                  throw closeField.error(
                      "must be finish (let running tasks commit) or cancel (discard their output)");
            };
      }
      Duration maxDelay = null;
      ConfigNode delay = f.get(MAX_DELAY);
      if (delay != null) {
        maxDelay = delay.duration();
        if (maxDelay.isNegative() && !maxDelay.equals(MAX_DELAY_DEFAULT)) {
          throw delay.error("must not be negative (use off for never)");
        }
      }
      return new Settings(group, thresholds, block, work, close, maxDelay);
    }

    Work work(WorkKind kind, ConfigNode field) {
      List<String> allowed =
          kind.periodic() ? List.of(ENABLED, WINDOWS, INTERVAL) : List.of(ENABLED, WINDOWS);
      Map<String, ConfigNode> m = field.entries("keys " + allowed);
      field.keys(allowed);
      Boolean enabled = null;
      ConfigNode e = m.get(ENABLED);
      if (e != null) {
        enabled = e.bool();
      }
      List<Window> on = null;
      ConfigNode w = m.get(WINDOWS);
      if (w != null) {
        on = new ArrayList<>();
        for (ConfigNode item : w.items("window names ([] = any time)")) {
          Window window = windows.get(item.text());
          if (window == null) {
            throw item.error("no such window; defined windows are " + windows.keySet());
          }
          on.add(window);
        }
      }
      Duration interval = null;
      ConfigNode i = m.get(INTERVAL);
      if (i != null) {
        interval = i.duration();
        if (interval.isNegative() || interval.isZero()) {
          throw i.error("must be > 0 (to stop the work, set enabled: false)");
        }
      }
      return new Work(enabled, on, interval);
    }

    /** Applies {@code own} over {@code base}; threshold keys of {@code inherited} also apply. */
    EffectivePolicy apply(
        EffectivePolicy base,
        Settings own,
        @Nullable String rule,
        int priority,
        @Nullable Settings inherited,
        String path) {
      Group group = own.group() == null ? base.group() : own.group();
      Map<String, ConfigNode> merged = new LinkedHashMap<>();
      if (inherited != null) {
        merged.putAll(inherited.thresholds());
      }
      merged.putAll(own.thresholds());
      Map<String, String> values = new LinkedHashMap<>();
      merged.forEach((k, f) -> values.put(k, f.text()));
      Map<WorkKind, WorkPolicy> work = new EnumMap<>(WorkKind.class);
      Duration fullInterval = null;
      for (WorkKind kind : WorkKind.values()) {
        WorkPolicy b = base.work(kind);
        Work o = own.work().get(kind);
        WorkPolicy kindPolicy =
            o == null
                ? b
                : new WorkPolicy(
                    o.enabled() == null ? b.enabled() : o.enabled(),
                    o.windows() == null ? b.windows() : o.windows(),
                    o.interval() == null ? b.interval() : o.interval());
        work.put(kind, kindPolicy);
        if (kind == WorkKind.FULL) {
          fullInterval = kindPolicy.interval();
        }
      }
      OptimizingPolicy thresholds;
      try {
        thresholds = OptimizingPolicy.DEFAULTS.withOverrides(values);
      } catch (InvalidPolicyException e) {
        throw thresholdError(e, own, inherited, path);
      }
      if (fullInterval != null) {
        thresholds =
            new OptimizingPolicy(
                thresholds.targetSize(),
                thresholds.fragmentRatio(),
                thresholds.minTargetSizeRatio(),
                thresholds.minorTriggerFileCount(),
                thresholds.minorTriggerInterval(),
                thresholds.duplicateRatio(),
                fullInterval,
                thresholds.maxTaskSize(),
                thresholds.equalityDeleteBloomThreshold(),
                thresholds.maxProcessFiles());
      }
      return new EffectivePolicy(
          rule,
          priority,
          group,
          thresholds,
          work,
          own.onWindowClose() == null ? base.onWindowClose() : own.onWindowClose(),
          own.maxDelay() == null ? base.maxDelay() : own.maxDelay());
    }

    /** Names the line and key of a threshold that {@link OptimizingPolicy} rejected. */
    InvalidPolicyException thresholdError(
        InvalidPolicyException e, Settings own, @Nullable Settings inherited, String path) {
      if (e instanceof InvalidPolicyValueException invalid) {
        String key = invalid.key();
        ConfigNode field = own.thresholds().get(key);
        if (field == null && inherited != null) {
          field = inherited.thresholds().get(key);
        }
        if (field != null) {
          return new InvalidPolicyException(field.error(invalid.problem()).getMessage(), e);
        }
      }
      ConfigNode block = own.thresholdsBlock();
      return new InvalidPolicyException(
          file
              + " line "
              + (block == null ? 1 : block.line())
              + ": "
              + path
              + ".thresholds: "
              + e.getMessage(),
          e);
    }

    static EffectivePolicy builtIn() {
      Map<WorkKind, WorkPolicy> work = new EnumMap<>(WorkKind.class);
      for (WorkKind kind : WorkKind.values()) {
        boolean on = kind == WorkKind.MINOR || kind == WorkKind.MAJOR;
        work.put(kind, new WorkPolicy(on, List.of(), null));
      }
      return new EffectivePolicy(
          null,
          0,
          new Group(GROUP_DEFAULT, CAPACITY_DEFAULT),
          OptimizingPolicy.DEFAULTS,
          work,
          OnWindowClose.FINISH,
          MAX_DELAY_DEFAULT);
    }

    // ---- values ----

    LocalTime time(ConfigNode f) {
      String value = f.text();
      if (!TIME.matcher(value).matches()) {
        throw f.error("must be a time of day HH:mm (e.g. 01:00, 23:30)");
      }
      return LocalTime.parse(value);
    }

    Set<DayOfWeek> days(ConfigNode f) {
      List<ConfigNode> items = f.items("days (MON..SUN)");
      if (items.isEmpty()) {
        throw f.problem("must name at least one day (MON..SUN)");
      }
      Set<DayOfWeek> result = EnumSet.noneOf(DayOfWeek.class);
      for (ConfigNode item : items) {
        DayOfWeek day = DAYS.get(item.text());
        if (day == null) {
          throw item.error("must be one of MON, TUE, WED, THU, FRI, SAT, SUN");
        }
        result.add(day);
      }
      return result;
    }

    String cron(ConfigNode f) {
      String value = f.text().trim();
      String[] fields = value.split("\\s+", -1);
      if (fields.length != 6 && fields.length != 7) {
        throw f.error(
            "a Quartz cron expression has 6 or 7 fields (second minute hour day-of-month month"
                + " day-of-week [year]), found "
                + fields.length);
      }
      for (int i = 0; i < fields.length; i++) {
        if (!CRON_CHARACTERS[i].matcher(fields[i]).matches()) {
          throw f.error(
              CRON_FIELDS[i]
                  + " field '"
                  + fields[i]
                  + "' has characters Quartz does not allow there");
        }
      }
      if (fields[3].equals("?") == fields[5].equals("?")) {
        throw f.error(
            "Quartz needs '?' in exactly one of day-of-month and day-of-week (e.g. 0 0 22 * * ?)");
      }
      try {
        CronExpression.validateExpression(value);
      } catch (ParseException e) {
        throw f.error("not a valid Quartz cron expression: " + e.getMessage());
      }
      return value;
    }

    ConfigException error(int line, String key, @Nullable String value, String rule) {
      return new ConfigException(file, line, key, value, rule, null);
    }
  }

  private static Map<String, DayOfWeek> days() {
    Map<String, DayOfWeek> days = new LinkedHashMap<>();
    for (DayOfWeek day : DayOfWeek.values()) {
      days.put(day.name().substring(0, 3).toUpperCase(Locale.ROOT), day);
    }
    return Map.copyOf(days);
  }
}
