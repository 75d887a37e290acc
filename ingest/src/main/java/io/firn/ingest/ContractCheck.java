/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.Serializable;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * One check of a table rule's data contract ({@code contract:}, ADR 0008 §11): a named condition on
 * one field of every upserted row image. A row that breaks a check goes to the dead-letter table as
 * {@code contract_violation}, its detail naming the check, and counts in {@code
 * firn_ingest_contract_violations_total{table, rule}}. Deletes are not checked (they carry only the
 * key). A check other than {@code required} holds for an absent or null field.
 *
 * @param name the check's name, {@code [a-z][a-z0-9_]*} (a metric label)
 * @param field the field it checks
 * @param kind what it checks
 * @param number the bound of {@code min} / {@code max}, the length of {@code max-length}
 * @param pattern the regular expression of {@code regex} (whole value)
 * @param values the allowed values of {@code enum} (compared as text)
 */
public record ContractCheck(
    String name,
    String field,
    Kind kind,
    @Nullable BigDecimal number,
    @Nullable String pattern,
    List<String> values)
    implements Serializable {
  private static final long serialVersionUID = 1L;

  /** What a check checks, with its YAML key. */
  public enum Kind {
    REQUIRED("required"),
    MIN("min"),
    MAX("max"),
    REGEX("regex"),
    ENUM("enum"),
    MAX_LENGTH("max-length");

    private final String key;

    Kind(String key) {
      this.key = key;
    }

    public String key() {
      return key;
    }
  }

  /** What a check's name must look like: it is a metric label value. */
  static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]{0,63}");

  private static final Map<String, Pattern> PATTERNS = new ConcurrentHashMap<>();

  /** Per bound: its value as a long, when it is a whole number within a long. */
  private static final Map<BigDecimal, java.util.Optional<Long>> EXACT_LONGS =
      new ConcurrentHashMap<>();

  /** Per bound: whether it is the shortest decimal text of a double. */
  private static final Map<BigDecimal, Boolean> EXACT_DOUBLES = new ConcurrentHashMap<>();

  public ContractCheck {
    values = values == null ? List.of() : List.copyOf(values);
    if (name == null || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("name '" + name + "' must match " + NAME.pattern());
    }
    if (field == null || field.isBlank()) {
      throw new IllegalArgumentException("field must be set");
    }
    if (kind == null) {
      throw new IllegalArgumentException("check '" + name + "' has no kind");
    }
    if ((kind == Kind.MIN || kind == Kind.MAX || kind == Kind.MAX_LENGTH) && number == null) {
      throw new IllegalArgumentException(
          "check '" + name + "' (" + kind.key() + ") needs a number");
    }
    if (kind == Kind.REGEX) {
      if (pattern == null) {
        throw new IllegalArgumentException("check '" + name + "' (regex) needs a pattern");
      }
      PATTERNS.computeIfAbsent(pattern, Pattern::compile); // a bad expression fails here
    }
  }

  /** Why {@code image} breaks this check, or null when it holds. */
  @Nullable String violation(JsonNode image) {
    JsonNode value = image.get(field);
    if (value == null || value.isNull()) {
      return kind == Kind.REQUIRED ? "field '" + field + "' is absent or null" : null;
    }
    // The value's text is made only for a message: a check that holds costs no serialization.
    switch (kind) {
      case REQUIRED:
        return null;
      case MIN:
      case MAX:
        if (!value.isNumber()) {
          return "field '" + field + "' = " + shown(value) + " is not a number";
        }
        int order = compareToNumber(value);
        if (kind == Kind.MIN && order < 0) {
          return "field '"
              + field
              + "' = "
              + shown(value)
              + " is below min "
              + bound().toPlainString();
        }
        if (kind == Kind.MAX && order > 0) {
          return "field '"
              + field
              + "' = "
              + shown(value)
              + " is above max "
              + bound().toPlainString();
        }
        return null;
      case REGEX:
        if (!value.isTextual()) {
          return "field '" + field + "' = " + shown(value) + " is not a string";
        }
        return PATTERNS.computeIfAbsent(pattern, Pattern::compile).matcher(value.asText()).matches()
            ? null
            : "field '" + field + "' = " + shown(value) + " does not match " + pattern;
      case ENUM:
        return values.contains(value.isTextual() ? value.asText() : value.toString())
            ? null
            : "field '" + field + "' = " + shown(value) + " is not one of " + values;
      case MAX_LENGTH:
        if (!value.isTextual()) {
          return "field '" + field + "' = " + shown(value) + " is not a string";
        }
        String text = value.asText();
        int limit = bound().intValue();
        // At most one char per code point: a text of no more chars than the limit holds.
        int length = text.length() <= limit ? text.length() : text.codePointCount(0, text.length());
        return length <= limit
            ? null
            : "field '" + field + "' is " + length + " characters long, above max-length " + limit;
      default:
        throw new IllegalStateException("unknown check " + kind);
    }
  }

  private static String shown(JsonNode value) {
    return TableRows.abbreviate(value.toString());
  }

  /**
   * {@code value} (a number) compared with {@link #number}, as its decimal text would compare
   * ({@code BigDecimal.valueOf} for a double): as longs or doubles when the bound is exact in that
   * type (the order of doubles is the order of their shortest decimal texts), else as decimals.
   */
  private int compareToNumber(JsonNode value) {
    BigDecimal number = bound();
    if (value.isIntegralNumber() && value.canConvertToLong()) {
      java.util.Optional<Long> bound =
          EXACT_LONGS.computeIfAbsent(number, ContractCheck::exactLong);
      if (bound.isPresent()) {
        return Long.compare(value.longValue(), bound.get());
      }
    } else if ((value.isDouble() || value.isFloat())
        && EXACT_DOUBLES.computeIfAbsent(
            number, n -> BigDecimal.valueOf(n.doubleValue()).compareTo(n) == 0)) {
      return Double.compare(value.doubleValue() + 0.0, number.doubleValue() + 0.0);
    }
    return value.decimalValue().compareTo(number);
  }

  /** The number of a {@code min}, {@code max} or {@code max-length} check. */
  private BigDecimal bound() {
    return Objects.requireNonNull(number, "the constructor rejects a bound check without a number");
  }

  private static java.util.Optional<Long> exactLong(BigDecimal number) {
    try {
      return java.util.Optional.of(number.longValueExact());
    } catch (ArithmeticException e) {
      return java.util.Optional.empty();
    }
  }
}
