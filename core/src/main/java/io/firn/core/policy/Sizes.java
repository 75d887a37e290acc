/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.policy;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses and prints byte sizes ({@code 134217728}, {@code 128MiB}, {@code 128MB}, {@code 1g}). */
public final class Sizes {
  private static final Pattern SIZE =
      Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*([kmgt]?)(i?b?)", Pattern.CASE_INSENSITIVE);

  private Sizes() {}

  /**
   * Parses a size. Unit prefixes are binary (KiB, KB and K all mean 1024 bytes), as in Iceberg's
   * and Amoro's table properties.
   *
   * @throws IllegalArgumentException when the text is not a size, or one of 8 EiB or more
   */
  public static long parse(String text) {
    Matcher m = SIZE.matcher(text.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "must be a size in bytes, optionally with a unit (e.g. 134217728, 128MiB, 1GB)");
    }
    double number = Double.parseDouble(m.group(1));
    int shift =
        switch (m.group(2).toLowerCase(Locale.ROOT)) {
          case "k" -> 10;
          case "m" -> 20;
          case "g" -> 30;
          case "t" -> 40;
          default -> 0;
        };
    double bytes = number * (1L << shift);
    if (bytes >= 0x1p63) {
      throw new IllegalArgumentException(
          "too large: a size is at most " + Long.MAX_VALUE + " bytes (8 EiB)");
    }
    return (long) bytes;
  }

  /** Formats bytes for people: {@code 1.5 MiB}. */
  public static String format(long bytes) {
    if (bytes < 1024) {
      return bytes + " B";
    }
    String[] units = {"KiB", "MiB", "GiB", "TiB"};
    double value = bytes;
    int unit = -1;
    while (value >= 1024 && unit < units.length - 1) {
      value /= 1024;
      unit++;
    }
    return String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
  }
}
