/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.config;

import io.firn.core.policy.Durations;
import io.firn.core.policy.Sizes;
import java.time.Duration;
import java.util.Collection;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Settings given as a flat map of key to text, read with the rules of {@link ConfigNode}'s
 * accessors: the server's {@code maintenance:} keys (bound by Dropwizard, so without lines) and a
 * policy's thresholds ({@code OptimizingPolicy.withOverrides}). Unknown keys are errors listing the
 * known ones; every other error names the key, the value as written and the rule, through the
 * format's own exception. Immutable.
 */
public final class TextSettings {
  /** Makes a format's exception for a value that breaks a rule. */
  @FunctionalInterface
  public interface Problem {
    /**
     * @param key the key, e.g. {@code orphan-files.min-age}
     * @param shown the value as the message shows it, quoted: {@code '10m'}
     * @param rule what is wrong
     */
    RuntimeException of(String key, String shown, String rule, @Nullable Throwable cause);
  }

  private final Map<String, String> values;
  private final Problem problem;

  /**
   * @param known the accepted keys
   * @param unknown makes the format's exception for unknown keys from the message
   * @param what the format's word for its keys in that message ({@code policy}, {@code
   *     maintenance})
   * @throws RuntimeException from {@code unknown} when a key is not in {@code known}
   */
  public TextSettings(
      Map<String, String> values,
      Collection<String> known,
      String what,
      Function<String, RuntimeException> unknown,
      Problem problem) {
    TreeSet<String> extra = new TreeSet<>(values.keySet());
    extra.removeAll(known);
    if (!extra.isEmpty()) {
      throw unknown.apply(
          "unknown " + what + " key(s) " + extra + "; known keys are " + new TreeSet<>(known));
    }
    this.values = Map.copyOf(values);
    this.problem = problem;
  }

  /** A whole number, or {@code fallback} when the key is not set. */
  public long number(String key, long fallback) {
    return read(key, fallback, "must be a whole number", text -> Long.parseLong(text.trim()));
  }

  /** A whole number that fits an {@code int}, or {@code fallback} when the key is not set. */
  public int integer(String key, int fallback) {
    return read(key, fallback, "must be a whole number", text -> Integer.parseInt(text.trim()));
  }

  /** A decimal number, or {@code fallback} when the key is not set. */
  public double decimal(String key, double fallback) {
    return read(key, fallback, "must be a decimal number", text -> Double.parseDouble(text.trim()));
  }

  /** {@code true} or {@code false} (any case), or {@code fallback} when the key is not set. */
  public boolean bool(String key, boolean fallback) {
    return read(
        key,
        fallback,
        "must be true or false",
        text ->
            switch (text.trim().toLowerCase(Locale.ROOT)) {
              case "true" -> true;
              case "false" -> false;
              default -> throw new IllegalArgumentException("must be true or false");
            });
  }

  /** A duration as {@link Durations} reads it, or {@code fallback} when the key is not set. */
  public Duration duration(String key, Duration fallback) {
    return read(key, fallback, null, Durations::parse);
  }

  /** A byte size as {@link Sizes} reads it, or {@code fallback} when the key is not set. */
  public long size(String key, long fallback) {
    return read(key, fallback, null, Sizes::parse);
  }

  /**
   * @param rule the message when {@code parse} fails; null: the failure's own message
   */
  private <T> T read(String key, T fallback, @Nullable String rule, Function<String, T> parse) {
    String value = values.get(key);
    if (value == null) {
      return fallback;
    }
    try {
      return parse.apply(value);
    } catch (IllegalArgumentException | ArithmeticException e) {
      throw problem.of(
          key, "'" + value + "'", rule != null ? rule : String.valueOf(e.getMessage()), e);
    }
  }
}
