/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server;

import java.util.List;
import java.util.regex.Pattern;

/**
 * Include/exclude glob patterns on {@code catalog.namespace.table}: {@code *} matches any run of
 * characters (dots included), {@code ?} one character; everything else is literal.
 */
public final class TablePatterns {
  private final List<Pattern> include;
  private final List<Pattern> exclude;

  public TablePatterns(List<String> include, List<String> exclude) {
    this.include = include.stream().map(TablePatterns::compile).toList();
    this.exclude = exclude.stream().map(TablePatterns::compile).toList();
  }

  public boolean matches(String qualifiedName) {
    return include.stream().anyMatch(p -> p.matcher(qualifiedName).matches())
        && exclude.stream().noneMatch(p -> p.matcher(qualifiedName).matches());
  }

  static Pattern compile(String glob) {
    StringBuilder regex = new StringBuilder();
    StringBuilder literal = new StringBuilder();
    for (int i = 0; i < glob.length(); i++) {
      char c = glob.charAt(i);
      if (c == '*' || c == '?') {
        if (literal.length() > 0) {
          regex.append(Pattern.quote(literal.toString()));
          literal.setLength(0);
        }
        regex.append(c == '*' ? ".*" : ".");
      } else {
        literal.append(c);
      }
    }
    if (literal.length() > 0) {
      regex.append(Pattern.quote(literal.toString()));
    }
    return Pattern.compile(regex.toString());
  }
}
