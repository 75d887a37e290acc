/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.policy;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
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
 * <p>The parser reads YAML tokens itself instead of binding to classes so that every key keeps its
 * line. Stateless and thread-safe.
 */
public final class PolicyParser {
  private static final YAMLFactory YAML = new YAMLFactory();

  static final List<String> ROOT_KEYS =
      List.of("version", "windows", "groups", "defaults", "rules");
  static final List<String> WINDOW_KEYS =
      List.of("time-zone", "start", "end", "days", "cron", "duration");
  static final List<String> GROUP_KEYS = List.of("capacity");
  static final List<String> SETTINGS_KEYS =
      List.of(
          "group",
          "thresholds",
          "minor",
          "major",
          "full",
          "expire-snapshots",
          "orphan-files",
          "on-window-close",
          "max-delay");
  private static final List<String> RULE_KEYS = concat(List.of("name", "match", "priority"));
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
  private static final Duration OFF = Duration.ofMillis(-1);

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
      return new Reader().files(path.toString(), sources);
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
    return new Reader().files(name, List.of(new Source(name, yaml)));
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

  // ---- a YAML tree that keeps lines ----

  private sealed interface Node permits MapNode, ListNode, Scalar {
    int line();
  }

  private record Field(String key, int line, Node value) {}

  private record MapNode(int line, Map<String, Field> fields) implements Node {}

  private record ListNode(int line, List<Node> items) implements Node {}

  /** A scalar; {@code text} is null for YAML's null ({@code ~}, an empty value). */
  private record Scalar(int line, JsonToken token, @Nullable String text) implements Node {}

  /** A rule's or the defaults' own keys; null members are inherited. */
  private record Settings(
      @Nullable Group group,
      Map<String, Field> thresholds,
      @Nullable Field thresholdsBlock,
      Map<WorkKind, Work> work,
      @Nullable OnWindowClose onWindowClose,
      @Nullable Duration maxDelay) {}

  /** A kind of work's own keys; null members are inherited. */
  private record Work(
      @Nullable Boolean enabled, @Nullable List<Window> windows, @Nullable Duration interval) {}

  private static final class Reader {
    private final Map<String, Window> windows = new LinkedHashMap<>();
    private final Map<String, Group> groups = new LinkedHashMap<>();

    /** The file being read; messages name it. */
    private String file = "";

    PolicyFile files(String name, List<Source> sources) {
      List<MapNode> roots = new ArrayList<>();
      for (Source source : sources) {
        file = source.name();
        Node root = tree(source.text());
        MapNode map = map(root, "(document)", "policy keys (version, windows, ...)");
        keys(map, "", ROOT_KEYS);
        Field version = map.fields().get("version");
        if (version == null) {
          throw error(1, "version", null, "missing; policy files start with 'version: 1'");
        }
        if (!(version.value() instanceof Scalar s) || !"1".equals(s.text())) {
          throw error(version, "version", "must be 1 (the only schema version)");
        }
        roots.add(map);
      }
      Map<String, Origin> windowOrigins = new LinkedHashMap<>();
      for (int i = 0; i < sources.size(); i++) {
        file = sources.get(i).name();
        Field windowsField = roots.get(i).fields().get("windows");
        if (windowsField != null) {
          for (Field f :
              map(windowsField.value(), "windows", "windows by name").fields().values()) {
            unique(windowOrigins, f, "windows." + f.key(), "window");
            windows.put(f.key(), window(f, "windows." + f.key()));
          }
        }
      }
      Map<String, Origin> groupOrigins = new LinkedHashMap<>();
      Origin groupsOrigin = null;
      for (int i = 0; i < sources.size(); i++) {
        file = sources.get(i).name();
        Field g = roots.get(i).fields().get("groups");
        if (g != null) {
          if (groupsOrigin == null) {
            groupsOrigin = new Origin(file, g.line());
          }
          for (Field f : map(g.value(), "groups", "groups by name").fields().values()) {
            unique(groupOrigins, f, "groups." + f.key(), "group");
            groups.put(f.key(), group(f, "groups." + f.key()));
          }
        }
      }
      if (groupsOrigin == null) {
        groups.put("default", new Group("default", 1));
      }
      Field defaultsField = null;
      Origin defaultsOrigin = null;
      for (int i = 0; i < sources.size(); i++) {
        file = sources.get(i).name();
        Field d = roots.get(i).fields().get("defaults");
        if (d != null) {
          if (defaultsOrigin != null) {
            throw error(
                d.line(),
                "defaults",
                null,
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
              : settings(map(defaultsField.value(), "defaults", "settings"), "defaults", true);
      // Without groups the implicit default exists, so settingsOrigin is set whenever this fails.
      if (settingsOrigin != null
          && defaultSettings.group() == null
          && !groups.containsKey("default")) {
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
        Field rulesField = roots.get(s).fields().get("rules");
        if (rulesField != null) {
          List<Node> items = list(rulesField.value(), "rules", "rules");
          for (int i = 0; i < items.size(); i++) {
            rules.add(
                rule(items.get(i), "rules[" + i + "]", defaults, defaultSettings, ruleOrigins));
          }
        }
      }
      return new PolicyFile(name, 1, windows, groups, defaults, rules);
    }

    /** Rejects a name defined in an earlier file (within one file, YAML keys are unique). */
    void unique(Map<String, Origin> origins, Field f, String key, String what) {
      Origin previous = origins.putIfAbsent(f.key(), new Origin(file, f.line()));
      if (previous != null) {
        throw error(
            f.line(),
            key,
            null,
            "duplicate "
                + what
                + " name (first defined at "
                + previous.describe(file)
                + "); names are unique across a policy's files");
      }
    }

    // ---- sections ----

    Window window(Field field, String path) {
      MapNode m =
          map(field.value(), path, "window keys (time-zone, start, end, days, cron, duration)");
      keys(m, path, WINDOW_KEYS);
      Map<String, Field> f = m.fields();
      Field zoneField = f.get("time-zone");
      if (zoneField == null) {
        throw error(field.line(), path, null, "missing time-zone (e.g. UTC, Europe/Berlin)");
      }
      ZoneId zone;
      String zoneText = text(zoneField, path + ".time-zone");
      try {
        zone = ZoneId.of(zoneText);
      } catch (DateTimeException e) {
        throw error(zoneField, path + ".time-zone", "not a time zone (e.g. UTC, Europe/Berlin)");
      }
      Field start = f.get("start");
      Field end = f.get("end");
      Field cron = f.get("cron");
      Field duration = f.get("duration");
      Field days = f.get("days");
      boolean range = start != null || end != null;
      boolean quartz = cron != null || duration != null;
      String either = "a window has either start + end or cron + duration";
      if (range && cron != null) {
        throw error(cron.line(), path + ".cron", null, either + ", not both");
      }
      if (range && duration != null) {
        throw error(duration.line(), path + ".duration", null, either + ", not both");
      }
      if (start != null && end == null) {
        throw error(start.line(), path + ".start", null, "needs end; " + either);
      }
      if (start == null && end != null) {
        throw error(end.line(), path + ".end", null, "needs start; " + either);
      }
      if (start != null && end != null) {
        LocalTime from = time(start, path + ".start");
        LocalTime to = time(end, path + ".end");
        if (from.equals(to)) {
          throw error(end, path + ".end", "must differ from start (a window of no time)");
        }
        Set<DayOfWeek> on = days == null ? EnumSet.allOf(DayOfWeek.class) : days(days, path);
        return new Window(field.key(), zone, from, to, on, null, null);
      }
      if (quartz && days != null) {
        throw error(
            days.line(),
            path + ".days",
            null,
            "only with start + end; a cron window names its days");
      }
      if (cron != null && duration == null) {
        throw error(cron.line(), path + ".cron", null, "needs duration; " + either);
      }
      if (cron == null && duration != null) {
        throw error(duration.line(), path + ".duration", null, "needs cron; " + either);
      }
      if (cron == null || duration == null) {
        throw error(field.line(), path, null, "needs start + end or cron + duration");
      }
      String expression = cron(cron, path + ".cron");
      Duration open = duration(duration, path + ".duration");
      if (open.isNegative() || open.isZero()) {
        throw error(duration, path + ".duration", "must be > 0");
      }
      return new Window(field.key(), zone, null, null, Set.of(), expression, open);
    }

    Group group(Field field, String path) {
      MapNode m = map(field.value(), path, "group keys (capacity)");
      keys(m, path, GROUP_KEYS);
      Field capacity = m.fields().get("capacity");
      if (capacity == null) {
        throw error(field.line(), path, null, "missing capacity (concurrent tasks, >= 1)");
      }
      long n = integer(capacity, path + ".capacity");
      if (n < 1 || n > Integer.MAX_VALUE) {
        throw error(capacity, path + ".capacity", "must be >= 1 (concurrent tasks)");
      }
      return new Group(field.key(), (int) n);
    }

    Rule rule(
        Node node,
        String path,
        EffectivePolicy defaults,
        Settings defaultSettings,
        Map<String, Origin> ruleOrigins) {
      MapNode m = map(node, path, "rule keys (name, match, priority, ...)");
      keys(m, path, RULE_KEYS);
      Field nameField = m.fields().get("name");
      if (nameField == null) {
        throw error(m.line(), path, null, "missing name");
      }
      String name = text(nameField, path + ".name");
      if (name.isBlank()) {
        throw error(nameField, path + ".name", "must not be empty");
      }
      Origin previous = ruleOrigins.putIfAbsent(name, new Origin(file, nameField.line()));
      if (previous != null) {
        throw error(
            nameField,
            path + ".name",
            "duplicate rule name (first used at " + previous.describe(file) + ")");
      }
      Field matchField = m.fields().get("match");
      if (matchField == null) {
        throw error(m.line(), path, null, "missing match (a glob on catalog.namespace.table)");
      }
      String match = text(matchField, path + ".match");
      if (match.isBlank()) {
        throw error(
            matchField, path + ".match", "must not be empty (a glob on catalog.namespace.table)");
      }
      int priority = 0;
      Field priorityField = m.fields().get("priority");
      if (priorityField != null) {
        long p = integer(priorityField, path + ".priority");
        if (p < 0 || p > Integer.MAX_VALUE) {
          throw error(priorityField, path + ".priority", "must be >= 0");
        }
        priority = (int) p;
      }
      Settings own = settings(m, path, false);
      return new Rule(
          name, match, priority, apply(defaults, own, name, priority, defaultSettings, path));
    }

    /**
     * Reads the settings keys of a map; {@code onlySettings} rejects other keys (a rule's map also
     * holds name, match and priority, checked by the caller).
     */
    Settings settings(MapNode m, String path, boolean onlySettings) {
      if (onlySettings) {
        keys(m, path, SETTINGS_KEYS);
      }
      Map<String, Field> f = m.fields();
      Group group = null;
      Field groupField = f.get("group");
      if (groupField != null) {
        group = groups.get(text(groupField, path + ".group"));
        if (group == null) {
          throw error(
              groupField, path + ".group", "no such group; defined groups are " + groups.keySet());
        }
      }
      Map<String, Field> thresholds = new LinkedHashMap<>();
      Field block = f.get("thresholds");
      if (block != null) {
        MapNode t = map(block.value(), path + ".thresholds", "threshold keys");
        for (Field k : t.fields().values()) {
          String key = path + ".thresholds." + k.key();
          if (!OptimizingPolicy.KEYS.contains(k.key())) {
            throw error(
                k.line(),
                key,
                null,
                "unknown threshold key; known keys are " + new TreeSet<>(OptimizingPolicy.KEYS));
          }
          text(k, key);
          thresholds.put(k.key(), k);
        }
      }
      Map<WorkKind, Work> work = new EnumMap<>(WorkKind.class);
      for (WorkKind kind : WorkKind.values()) {
        Field w = f.get(kind.key());
        if (w != null) {
          work.put(kind, work(kind, w, path + "." + kind.key()));
        }
      }
      OnWindowClose close = null;
      Field closeField = f.get("on-window-close");
      if (closeField != null) {
        String value = text(closeField, path + ".on-window-close");
        close =
            switch (value) {
              case "finish" -> OnWindowClose.FINISH;
              case "cancel" -> OnWindowClose.CANCEL;
              default ->
                  throw error(
                      closeField,
                      path + ".on-window-close",
                      "must be finish (let running tasks commit) or cancel (discard their output)");
            };
      }
      Duration maxDelay = null;
      Field delay = f.get("max-delay");
      if (delay != null) {
        maxDelay = duration(delay, path + ".max-delay");
        if (maxDelay.isNegative() && !maxDelay.equals(OFF)) {
          throw error(delay, path + ".max-delay", "must not be negative (use off for never)");
        }
      }
      return new Settings(group, thresholds, block, work, close, maxDelay);
    }

    Work work(WorkKind kind, Field field, String path) {
      List<String> allowed =
          kind.periodic()
              ? List.of("enabled", "windows", "interval")
              : List.of("enabled", "windows");
      MapNode m = map(field.value(), path, "keys " + allowed);
      keys(m, path, allowed);
      Boolean enabled = null;
      Field e = m.fields().get("enabled");
      if (e != null) {
        if (!(e.value() instanceof Scalar s)
            || (s.token() != JsonToken.VALUE_TRUE && s.token() != JsonToken.VALUE_FALSE)) {
          throw error(e, path + ".enabled", "must be true or false");
        }
        enabled = s.token() == JsonToken.VALUE_TRUE;
      }
      List<Window> on = null;
      Field w = m.fields().get("windows");
      if (w != null) {
        on = new ArrayList<>();
        List<Node> items = list(w.value(), path + ".windows", "window names ([] = any time)");
        for (int i = 0; i < items.size(); i++) {
          String key = path + ".windows[" + i + "]";
          Field item = new Field(key, items.get(i).line(), items.get(i));
          Window window = windows.get(text(item, key));
          if (window == null) {
            throw error(item, key, "no such window; defined windows are " + windows.keySet());
          }
          on.add(window);
        }
      }
      Duration interval = null;
      Field i = m.fields().get("interval");
      if (i != null) {
        interval = duration(i, path + ".interval");
        if (interval.isNegative() || interval.isZero()) {
          throw error(i, path + ".interval", "must be > 0 (to stop the work, set enabled: false)");
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
      Map<String, Field> merged = new LinkedHashMap<>();
      if (inherited != null) {
        merged.putAll(inherited.thresholds());
      }
      merged.putAll(own.thresholds());
      Map<String, String> values = new LinkedHashMap<>();
      merged.forEach((k, f) -> values.put(k, ((Scalar) f.value()).text()));
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
                thresholds.equalityDeleteBloomThreshold());
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
        Field field = own.thresholds().get(key);
        String where = path;
        if (field == null && inherited != null) {
          field = inherited.thresholds().get(key);
          where = "defaults";
        }
        if (field != null) {
          return error(field, where + ".thresholds." + key, invalid.problem());
        }
      }
      Field block = own.thresholdsBlock();
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
          new Group("default", 1),
          OptimizingPolicy.DEFAULTS,
          work,
          OnWindowClose.FINISH,
          OFF);
    }

    // ---- values ----

    LocalTime time(Field f, String key) {
      String value = text(f, key);
      if (!TIME.matcher(value).matches()) {
        throw error(f, key, "must be a time of day HH:mm (e.g. 01:00, 23:30)");
      }
      return LocalTime.parse(value);
    }

    Set<DayOfWeek> days(Field f, String path) {
      List<Node> items = list(f.value(), path + ".days", "days (MON..SUN)");
      if (items.isEmpty()) {
        throw error(f.line(), path + ".days", null, "must name at least one day (MON..SUN)");
      }
      Set<DayOfWeek> result = EnumSet.noneOf(DayOfWeek.class);
      for (int i = 0; i < items.size(); i++) {
        String key = path + ".days[" + i + "]";
        Field item = new Field(key, items.get(i).line(), items.get(i));
        DayOfWeek day = DAYS.get(text(item, key));
        if (day == null) {
          throw error(item, key, "must be one of MON, TUE, WED, THU, FRI, SAT, SUN");
        }
        result.add(day);
      }
      return result;
    }

    String cron(Field f, String key) {
      String value = text(f, key).trim();
      String[] fields = value.split("\\s+", -1);
      if (fields.length != 6 && fields.length != 7) {
        throw error(
            f,
            key,
            "a Quartz cron expression has 6 or 7 fields (second minute hour day-of-month month"
                + " day-of-week [year]), found "
                + fields.length);
      }
      for (int i = 0; i < fields.length; i++) {
        if (!CRON_CHARACTERS[i].matcher(fields[i]).matches()) {
          throw error(
              f,
              key,
              CRON_FIELDS[i]
                  + " field '"
                  + fields[i]
                  + "' has characters Quartz does not allow there");
        }
      }
      if (fields[3].equals("?") == fields[5].equals("?")) {
        throw error(
            f,
            key,
            "Quartz needs '?' in exactly one of day-of-month and day-of-week (e.g. 0 0 22 * * ?)");
      }
      try {
        CronExpression.validateExpression(value);
      } catch (ParseException e) {
        throw error(f, key, "not a valid Quartz cron expression: " + e.getMessage());
      }
      return value;
    }

    Duration duration(Field f, String key) {
      String value = text(f, key);
      try {
        return Durations.parse(value);
      } catch (IllegalArgumentException e) {
        throw error(f, key, String.valueOf(e.getMessage()));
      }
    }

    long integer(Field f, String key) {
      if (f.value() instanceof Scalar s && s.token() == JsonToken.VALUE_NUMBER_INT) {
        try {
          return Long.parseLong(s.text());
        } catch (NumberFormatException e) {
          throw error(f, key, "must be a whole number");
        }
      }
      throw error(f, key, "must be a whole number");
    }

    String text(Field f, String key) {
      if (f.value() instanceof Scalar s && s.text() != null) {
        return s.text();
      }
      throw error(f, key, "must be a single value, not " + describe(f.value()));
    }

    MapNode map(Node node, String key, String what) {
      if (node instanceof MapNode m) {
        return m;
      }
      throw error(
          node.line(), key, shown(node), "must be a map of " + what + ", not " + describe(node));
    }

    List<Node> list(Node node, String key, String what) {
      if (node instanceof ListNode l) {
        return l.items();
      }
      throw error(
          node.line(), key, shown(node), "must be a list of " + what + ", not " + describe(node));
    }

    void keys(MapNode m, String path, List<String> allowed) {
      for (Field f : m.fields().values()) {
        if (!allowed.contains(f.key())) {
          throw error(
              f.line(),
              path.isEmpty() ? f.key() : path + "." + f.key(),
              null,
              "unknown key; known keys here are " + allowed);
        }
      }
    }

    static String describe(Node node) {
      if (node instanceof MapNode) {
        return "a map";
      }
      if (node instanceof ListNode) {
        return "a list";
      }
      return ((Scalar) node).text() == null ? "empty" : "a single value";
    }

    static @Nullable String shown(Node node) {
      return node instanceof Scalar s ? s.text() : null;
    }

    InvalidPolicyException error(Field f, String key, String rule) {
      return error(f.line(), key, shown(f.value()), rule);
    }

    InvalidPolicyException error(int line, String key, @Nullable String value, String rule) {
      return new InvalidPolicyException(
          file
              + " line "
              + line
              + ": "
              + key
              + (value == null ? "" : " = '" + value + "'")
              + ": "
              + rule);
    }

    // ---- YAML ----

    Node tree(String yaml) {
      try (JsonParser p = YAML.createParser(yaml)) {
        if (p.nextToken() == null) {
          throw error(1, "version", null, "file is empty; policy files start with 'version: 1'");
        }
        Node root = node(p, "");
        if (p.nextToken() != null) {
          throw error(line(p), "(document)", null, "only one YAML document per policy file");
        }
        return root;
      } catch (JsonProcessingException e) {
        JsonLocation at = e.getLocation();
        String reason = reason(e.getOriginalMessage());
        throw new InvalidPolicyException(
            file + " line " + (at == null ? 1 : at.getLineNr()) + ": YAML syntax error: " + reason,
            e);
      } catch (IOException e) {
        throw new InvalidPolicyException(file + ": cannot read: " + e.getMessage(), e);
      }
    }

    /**
     * SnakeYAML's messages span lines: a context ("while parsing a flow mapping"), the problem, and
     * indented snippets. Keeps the problem and its context on one line.
     */
    static String reason(String message) {
      List<String> parts =
          message
              .lines()
              .filter(l -> !l.isBlank() && !Character.isWhitespace(l.charAt(0)))
              .toList();
      if (parts.isEmpty()) {
        return message.strip();
      }
      String problem = parts.get(parts.size() - 1).strip();
      return parts.size() == 1 ? problem : problem + " (" + parts.get(0).strip() + ")";
    }

    Node node(JsonParser p, String path) throws IOException {
      int line = line(p);
      JsonToken token = p.currentToken();
      if (token == JsonToken.START_OBJECT) {
        Map<String, Field> fields = new LinkedHashMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String key = p.currentName();
          int keyLine = line(p);
          String keyPath = path.isEmpty() ? key : path + "." + key;
          if (fields.containsKey(key)) {
            throw error(
                keyLine,
                keyPath,
                null,
                "duplicate key (first at line " + fields.get(key).line() + ")");
          }
          p.nextToken();
          fields.put(key, new Field(key, keyLine, node(p, keyPath)));
        }
        return new MapNode(line, fields);
      }
      if (token == JsonToken.START_ARRAY) {
        List<Node> items = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
          items.add(node(p, path + "[" + items.size() + "]"));
        }
        return new ListNode(line, items);
      }
      return new Scalar(line, token, token == JsonToken.VALUE_NULL ? null : p.getText());
    }

    static int line(JsonParser p) {
      return p.currentTokenLocation().getLineNr();
    }
  }

  private static List<String> concat(List<String> first) {
    List<String> all = new ArrayList<>(first);
    all.addAll(SETTINGS_KEYS);
    return List.copyOf(all);
  }

  private static Map<String, DayOfWeek> days() {
    Map<String, DayOfWeek> days = new LinkedHashMap<>();
    for (DayOfWeek day : DayOfWeek.values()) {
      days.put(day.name().substring(0, 3).toUpperCase(Locale.ROOT), day);
    }
    return Map.copyOf(days);
  }
}
