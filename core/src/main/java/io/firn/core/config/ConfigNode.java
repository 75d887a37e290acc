/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.config;

import com.fasterxml.jackson.core.JsonToken;
import io.firn.core.policy.Durations;
import io.firn.core.policy.Sizes;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * One value of a configuration file read by {@link ConfigDocument}: a map, a list or a scalar, with
 * the file it came from, its key path ({@code tables[0].match}) and its line (a map entry's line is
 * its key's). Typed accessors check the value and throw a {@link ConfigException} that names the
 * file, line, path, value and rule; formats add their own rules with {@link #error}. Immutable and
 * thread-safe.
 */
public final class ConfigNode {
  private enum Kind {
    MAP,
    LIST,
    SCALAR
  }

  private final String origin;
  private final String path;
  private final String key;
  private final int line;
  private final Kind kind;
  private final Map<String, ConfigNode> fields;
  private final List<ConfigNode> items;
  private final @Nullable JsonToken token;
  private final @Nullable String text;

  private ConfigNode(
      String origin,
      String path,
      String key,
      int line,
      Kind kind,
      Map<String, ConfigNode> fields,
      List<ConfigNode> items,
      @Nullable JsonToken token,
      @Nullable String text) {
    this.origin = origin;
    this.path = path;
    this.key = key;
    this.line = line;
    this.kind = kind;
    this.fields = fields;
    this.items = items;
    this.token = token;
    this.text = text;
  }

  static ConfigNode map(
      String origin, String path, String key, int line, Map<String, ConfigNode> fields) {
    return new ConfigNode(
        origin, path, key, line, Kind.MAP, new LinkedHashMap<>(fields), List.of(), null, null);
  }

  static ConfigNode list(String origin, String path, String key, int line, List<ConfigNode> items) {
    return new ConfigNode(
        origin, path, key, line, Kind.LIST, Map.of(), List.copyOf(items), null, null);
  }

  static ConfigNode scalar(
      String origin, String path, String key, int line, JsonToken token, @Nullable String text) {
    return new ConfigNode(origin, path, key, line, Kind.SCALAR, Map.of(), List.of(), token, text);
  }

  /** The same value at another line (a map entry's key line). */
  ConfigNode at(int keyLine) {
    return new ConfigNode(origin, path, key, keyLine, kind, fields, items, token, text);
  }

  /** The file (or other source) messages name. */
  public String origin() {
    return origin;
  }

  /** The key path, e.g. {@code tables[0].match}; empty for the document itself. */
  public String path() {
    return path;
  }

  /** The 1-based line of the key (a map entry) or of the value (a list item, the document). */
  public int line() {
    return line;
  }

  /**
   * The key of this map entry as written ({@code match} of {@code tables[0].match}, {@code
   * minor.trigger.interval} of {@code defaults.thresholds.minor.trigger.interval}); {@code [i]} for
   * a list item, empty for the document.
   */
  public String key() {
    return key;
  }

  /** The path of a key of this map, for messages about an absent key. */
  public String child(String key) {
    return path.isEmpty() ? key : path + "." + key;
  }

  public boolean isMap() {
    return kind == Kind.MAP;
  }

  public boolean isList() {
    return kind == Kind.LIST;
  }

  /** Whether this is YAML's null ({@code ~}, {@code null}, an empty value, an empty document). */
  public boolean isNull() {
    return kind == Kind.SCALAR && text == null;
  }

  /** Whether this is a (non-null) scalar. */
  public boolean isScalar() {
    return kind == Kind.SCALAR && text != null;
  }

  /** Whether this scalar was written as a YAML string (quoted or plain text, not a number). */
  public boolean isString() {
    return token == JsonToken.VALUE_STRING;
  }

  /** Whether this scalar was written as a whole number (not quoted) that fits a {@code long}. */
  public boolean isInteger() {
    if (token != JsonToken.VALUE_NUMBER_INT || text == null) {
      return false;
    }
    try {
      Long.parseLong(text);
      return true;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /** Whether this scalar was written as a YAML boolean. */
  public boolean isBoolean() {
    return token == JsonToken.VALUE_TRUE || token == JsonToken.VALUE_FALSE;
  }

  /** The scalar as written, or null for a map, a list or YAML's null. */
  public @Nullable String shown() {
    return text;
  }

  // ---- structure ----

  /**
   * This map's entries in file order.
   *
   * @param what what the map holds, for the message when this is not a map (e.g. {@code "window
   *     keys (time-zone, start, ...)"})
   */
  public Map<String, ConfigNode> entries(String what) {
    if (kind != Kind.MAP) {
      throw new ConfigException(
          origin,
          line,
          path.isEmpty() ? "(document)" : path,
          text,
          "must be a map of " + what + ", not " + describe(),
          null);
    }
    return fields;
  }

  /**
   * Checks that this is a map whose keys are all in {@code allowed}; an unknown key is an error
   * naming the allowed ones.
   *
   * @return this
   */
  public ConfigNode keys(Collection<String> allowed) {
    return keys(allowed, "");
  }

  /**
   * As {@link #keys(Collection)}; {@code what} says which kind of map it is in the message about an
   * unknown key (e.g. {@code "for a kafka source"}).
   */
  public ConfigNode keys(Collection<String> allowed, String what) {
    for (ConfigNode f : entries("keys " + List.copyOf(allowed)).values()) {
      if (!allowed.contains(f.key())) {
        throw f.problem(
            "unknown key"
                + (what.isEmpty() ? "" : " " + what)
                + "; known keys here are "
                + List.copyOf(allowed));
      }
    }
    return this;
  }

  /** The value of {@code key} of this map, YAML's null included; empty when the key is absent. */
  public Optional<ConfigNode> get(String key) {
    return Optional.ofNullable(entries("keys").get(key));
  }

  /** The value of {@code key} of this map; empty when the key is absent or its value is null. */
  public Optional<ConfigNode> value(String key) {
    return get(key).filter(n -> !n.isNull());
  }

  /** Whether this map has {@code key} with a value that is not null. */
  public boolean has(String key) {
    return value(key).isPresent();
  }

  /**
   * The value of {@code key}, which must be there.
   *
   * @param rule the message when it is absent, e.g. {@code "missing capacity (concurrent tasks)"};
   *     it names this map's path and line
   */
  public ConfigNode require(String key, String rule) {
    return value(key).orElseThrow(() -> problem(rule));
  }

  /**
   * This list's items.
   *
   * @param what what the list holds, for the message when this is not a list
   */
  public List<ConfigNode> items(String what) {
    if (kind != Kind.LIST) {
      throw new ConfigException(
          origin, line, path, text, "must be a list of " + what + ", not " + describe(), null);
    }
    return items;
  }

  // ---- scalars ----

  /** A single value (a scalar that is not null), as written. */
  public String text() {
    if (text == null) {
      throw problem("must be a single value, not " + describe());
    }
    return text;
  }

  /** A single value that is not blank. */
  public String nonBlankText() {
    String value = text();
    if (value.isBlank()) {
      throw error("must not be empty");
    }
    return value;
  }

  /**
   * The value {@code parse} makes of the text; its {@link IllegalArgumentException} message is the
   * rule (it names the allowed values).
   */
  public <T> T choice(Function<String, T> parse) {
    String value = text();
    try {
      return parse.apply(value);
    } catch (IllegalArgumentException e) {
      throw error(String.valueOf(e.getMessage()), e);
    }
  }

  /** One of {@code allowed} (compared exactly). */
  public String choice(List<String> allowed) {
    String value = text();
    if (!allowed.contains(value)) {
      throw error("must be one of " + String.join(", ", allowed));
    }
    return value;
  }

  /** A whole number written as one (not quoted). */
  public long integer() {
    if (token == JsonToken.VALUE_NUMBER_INT && text != null) {
      try {
        return Long.parseLong(text);
      } catch (NumberFormatException e) {
        throw error("must be a whole number from " + Long.MIN_VALUE + " to " + Long.MAX_VALUE);
      }
    }
    throw error("must be a whole number");
  }

  /** A whole number from {@code min} to {@code max}. */
  public long integer(long min, long max) {
    String rule = "must be a whole number from " + min + " to " + max;
    long value;
    try {
      value = integer();
    } catch (ConfigException e) {
      throw error(rule);
    }
    if (value < min || value > max) {
      throw error(rule);
    }
    return value;
  }

  /** A number written as one (whole or decimal). */
  public double number() {
    if ((token == JsonToken.VALUE_NUMBER_INT || token == JsonToken.VALUE_NUMBER_FLOAT)
        && text != null) {
      try {
        return Double.parseDouble(text);
      } catch (NumberFormatException e) {
        // YAML numbers Java does not read (0x1A, 1_000): the rule below.
      }
    }
    throw error("must be a number");
  }

  /** A number written as one, exactly as written ({@code 0.1} stays 0.1). */
  public BigDecimal decimal() {
    number();
    return new BigDecimal(String.valueOf(text));
  }

  /** A number greater than 0 (and finite). */
  public double positive() {
    double value;
    try {
      value = number();
    } catch (ConfigException e) {
      throw error("must be a number greater than 0");
    }
    if (!(value > 0) || Double.isInfinite(value)) {
      throw error("must be a number greater than 0");
    }
    return value;
  }

  /** {@code true} or {@code false}, written as a YAML boolean. */
  public boolean bool() {
    if (token == JsonToken.VALUE_TRUE) {
      return true;
    }
    if (token == JsonToken.VALUE_FALSE) {
      return false;
    }
    throw error("must be true or false");
  }

  /**
   * A duration as {@link Durations} reads it ({@code 30s}, {@code 15m}, {@code 1h}, {@code 2d},
   * ISO-8601, {@code off} = -1ms); one too long for {@link Duration} is an error like any other.
   */
  public Duration duration() {
    return parsed(Durations::parse);
  }

  /** A byte size as {@link Sizes} reads it ({@code 134217728}, {@code 128MiB}, {@code 1GB}). */
  public long size() {
    return parsed(Sizes::parse);
  }

  private <T> T parsed(Function<String, T> parse) {
    String value = text();
    try {
      return parse.apply(value);
    } catch (IllegalArgumentException | ArithmeticException e) {
      throw error(String.valueOf(e.getMessage()), e);
    }
  }

  /** A list of non-blank single values. */
  public List<String> strings(String what) {
    List<String> values = new ArrayList<>();
    for (ConfigNode item : items(what)) {
      values.add(item.nonBlankText());
    }
    return values;
  }

  /** A list of names, or one name (as {@code topics: events} for {@code topics: [events]}). */
  public List<String> names() {
    if (isScalar() && text != null && !text.isBlank()) {
      return List.of(text);
    }
    if (kind != Kind.LIST) {
      throw problem("must be a name or a list of names, not " + describe());
    }
    return strings("names");
  }

  /** A map of names to single values (numbers and booleans as written). */
  public Map<String, String> stringMap() {
    Map<String, String> values = new LinkedHashMap<>();
    for (ConfigNode f : entries("names to values").values()) {
      values.put(f.key(), f.text());
    }
    return values;
  }

  // ---- messages ----

  /** An error about this value: names the file, line, path, the value as written and the rule. */
  public ConfigException error(String rule) {
    return error(rule, null);
  }

  /** As {@link #error(String)}, with the exception that explains it. */
  public ConfigException error(String rule, @Nullable Throwable cause) {
    return new ConfigException(origin, line, path, text, rule, cause);
  }

  /** An error about this key, its value not shown (a missing key, a conflict between keys). */
  public ConfigException problem(String rule) {
    return problem(rule, null);
  }

  /** As {@link #problem(String)}, with the exception that explains it. */
  public ConfigException problem(String rule, @Nullable Throwable cause) {
    return new ConfigException(origin, line, path, null, rule, cause);
  }

  /** An error about {@code key} of this map, absent or present, at its line or else this map's. */
  public ConfigException keyProblem(String key, String rule) {
    ConfigNode f = kind == Kind.MAP ? fields.get(key) : null;
    return new ConfigException(origin, f == null ? line : f.line, child(key), null, rule, null);
  }

  /** What this value is, for messages: a map, a list, empty, a single value. */
  public String describe() {
    return switch (kind) {
      case MAP -> "a map";
      case LIST -> "a list";
      case SCALAR -> text == null ? "empty" : "a single value";
    };
  }
}
