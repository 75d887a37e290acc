/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.policy;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses durations: ISO-8601 ({@code PT1H}), {@code 30s}, {@code 15m}, {@code 1h}, {@code 2d}. */
public final class Durations {
  private static final Pattern SHORT = Pattern.compile("(-?\\d+)\\s*(ms|s|m|h|d)");

  private static final String TOO_LONG =
      "too long: a duration is at most about 292 billion years (e.g. 30s, 15m, 1h, 2d, or 'off')";

  private Durations() {}

  /**
   * @throws IllegalArgumentException when the text is not a duration, or one too long for {@link
   *     Duration} (more than about 292 billion years; {@code 200000000000000d} is)
   */
  public static Duration parse(String text) {
    String value = text.trim().toLowerCase(Locale.ROOT);
    Matcher m = SHORT.matcher(value);
    if (m.matches()) {
      try {
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
          case "ms" -> Duration.ofMillis(n);
          case "s" -> Duration.ofSeconds(n);
          case "m" -> Duration.ofMinutes(n);
          case "h" -> Duration.ofHours(n);
          default -> Duration.ofDays(n);
        };
      } catch (ArithmeticException | NumberFormatException e) {
        throw new IllegalArgumentException(TOO_LONG, e);
      }
    }
    if (value.equals("-1") || value.equals("off") || value.equals("never")) {
      return Duration.ofMillis(-1);
    }
    try {
      return Duration.parse(text.trim().toUpperCase(Locale.ROOT));
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException(TOO_LONG, e);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          "must be a duration such as 30s, 15m, 1h, 2d, PT1H, or 'off'", e);
    }
  }
}
