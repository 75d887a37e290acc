/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/** {@code --key value} / {@code --key=value} arguments; repeated keys collect into lists. */
final class Arguments {
  private final Map<String, List<String>> values = new LinkedHashMap<>();

  Arguments(String[] args, int from, Set<String> known, Set<String> flags) {
    for (int i = from; i < args.length; i++) {
      String arg = args[i];
      if (!arg.startsWith("--")) {
        throw new UsageException("unexpected argument '" + arg + "'");
      }
      String key = arg.substring(2);
      String value;
      int eq = key.indexOf('=');
      if (eq >= 0) {
        value = key.substring(eq + 1);
        key = key.substring(0, eq);
      } else if (flags.contains(key)) {
        value = "true";
      } else if (i + 1 < args.length) {
        value = args[++i];
      } else {
        throw new UsageException("option --" + key + " needs a value");
      }
      if (!known.contains(key) && !flags.contains(key)) {
        throw new UsageException(
            "unknown option --" + key + "; known options: --" + String.join(", --", known));
      }
      values.computeIfAbsent(key, k -> new ArrayList<>()).add(value);
    }
  }

  /** The option's last value; null when it was not given. */
  @Nullable String get(String key) {
    List<String> list = values.get(key);
    return list == null ? null : list.get(list.size() - 1);
  }

  /** The option's last value, or {@code fallback} when it was not given. */
  String get(String key, String fallback) {
    String value = get(key);
    return value == null ? fallback : value;
  }

  String require(String key) {
    String value = get(key);
    if (value == null) {
      throw new UsageException("option --" + key + " is required");
    }
    return value;
  }

  boolean flag(String key) {
    return "true".equals(get(key));
  }

  int intValue(String key, int fallback) {
    String value = get(key);
    if (value == null) {
      return fallback;
    }
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new UsageException("option --" + key + " = '" + value + "' must be a whole number");
    }
  }

  /** {@code key=value} pairs of a repeatable option. */
  Map<String, String> pairs(String key) {
    Map<String, String> pairs = new LinkedHashMap<>();
    for (String pair : values.getOrDefault(key, List.of())) {
      int eq = pair.indexOf('=');
      if (eq <= 0) {
        throw new UsageException("option --" + key + " = '" + pair + "' must be key=value");
      }
      pairs.put(pair.substring(0, eq), pair.substring(eq + 1));
    }
    return pairs;
  }

  static final class UsageException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
      super(message);
    }
  }
}
