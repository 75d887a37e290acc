/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code ${NAME}} and {@code ${NAME:-default}} in a configuration file, replaced by environment
 * variables before parsing, as in the server's configuration (secrets such as the catalog password
 * stay out of the file). {@code $${...}} is a literal {@code ${...}}.
 */
final class EnvSubstitution {
  private static final Pattern VARIABLE =
      Pattern.compile("\\$?\\$\\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?}");

  private EnvSubstitution() {}

  /**
   * @throws InvalidIngestConfigException naming the line and the variable when a variable without
   *     default is not set
   */
  static String substitute(String text, Map<String, String> env, String origin) {
    Matcher matcher = VARIABLE.matcher(text);
    StringBuilder out = new StringBuilder();
    while (matcher.find()) {
      String replacement;
      if (matcher.group().startsWith("$$")) {
        replacement = matcher.group().substring(1);
      } else {
        String value = env.get(matcher.group(1));
        if (value == null) {
          value = matcher.group(2);
        }
        if (value == null) {
          int line =
              1 + (int) text.substring(0, matcher.start()).chars().filter(c -> c == '\n').count();
          throw new InvalidIngestConfigException(
              origin
                  + " line "
                  + line
                  + ": environment variable "
                  + matcher.group(1)
                  + " is not set (write ${"
                  + matcher.group(1)
                  + ":-default} for a default)");
        }
        replacement = value;
      }
      matcher.appendReplacement(out, Matcher.quoteReplacement(replacement));
    }
    matcher.appendTail(out);
    return out.toString();
  }
}
