/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.config;

import org.jspecify.annotations.Nullable;

/**
 * A configuration file breaks a rule. The message always reads {@code ORIGIN line N: PATH =
 * 'VALUE': RULE}, e.g. {@code policies/x.yaml line 7: windows.nightly.time-zone = 'Mars/Olympus':
 * not a time zone (e.g. UTC, Europe/Berlin)}; the value is left out when there is none to show (a
 * missing key, a map or a list) and the path when the rule is about the whole document (a YAML
 * syntax error). Formats wrap it into their own exception type ({@code InvalidPolicyException},
 * {@code InvalidIngestConfigException}) with the same message.
 */
public final class ConfigException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String origin;
  private final int line;
  private final String path;
  private final @Nullable String value;
  private final String rule;
  private final String message;

  /**
   * @param origin the file (or other source) the text came from
   * @param line the 1-based line of the key, or of its nearest enclosing key when it is absent
   * @param path the key path, e.g. {@code tables[0].match}; empty for the whole document
   * @param value the value as written, or null when there is none to show
   * @param rule what is wrong, for an operator
   */
  public ConfigException(
      String origin,
      int line,
      String path,
      @Nullable String value,
      String rule,
      @Nullable Throwable cause) {
    super(message(origin, line, path, value, rule), cause);
    this.origin = origin;
    this.line = line;
    this.path = path;
    this.value = value;
    this.rule = rule;
    this.message = message(origin, line, path, value, rule);
  }

  /** {@code ORIGIN line N: PATH = 'VALUE': RULE}; never null. */
  @Override
  public String getMessage() {
    return message;
  }

  private static String message(
      String origin, int line, String path, @Nullable String value, String rule) {
    return origin
        + " line "
        + line
        + ": "
        + (path.isEmpty() ? "" : path + (value == null ? "" : " = '" + value + "'") + ": ")
        + rule;
  }

  /** The file (or other source) the text came from. */
  public String origin() {
    return origin;
  }

  /** The 1-based line of the key (or of its nearest enclosing key when it is absent). */
  public int line() {
    return line;
  }

  /** The key path, e.g. {@code tables[0].match}; empty for the whole document. */
  public String path() {
    return path;
  }

  /** The value as written, or null when there is none to show. */
  public @Nullable String value() {
    return value;
  }

  /** The rule the value breaks, without origin, line, path or value. */
  public String rule() {
    return rule;
  }
}
