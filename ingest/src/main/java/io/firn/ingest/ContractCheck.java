package io.firn.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.Serializable;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

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
    String name, String field, Kind kind, BigDecimal number, String pattern, List<String> values)
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

  public ContractCheck {
    values = values == null ? List.of() : List.copyOf(values);
    if (name == null || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("name '" + name + "' must match " + NAME.pattern());
    }
    if (field == null || field.isBlank()) {
      throw new IllegalArgumentException("field must be set");
    }
    if (kind == Kind.REGEX) {
      PATTERNS.computeIfAbsent(pattern, Pattern::compile); // a bad expression fails here
    }
  }

  /** Why {@code image} breaks this check, or null when it holds. */
  String violation(JsonNode image) {
    JsonNode value = image.get(field);
    if (value == null || value.isNull()) {
      return kind == Kind.REQUIRED ? "field '" + field + "' is absent or null" : null;
    }
    String shown = TableRows.abbreviate(value.toString());
    switch (kind) {
      case REQUIRED:
        return null;
      case MIN:
      case MAX:
        if (!value.isNumber()) {
          return "field '" + field + "' = " + shown + " is not a number";
        }
        int order = value.decimalValue().compareTo(number);
        if (kind == Kind.MIN && order < 0) {
          return "field '" + field + "' = " + shown + " is below min " + number.toPlainString();
        }
        if (kind == Kind.MAX && order > 0) {
          return "field '" + field + "' = " + shown + " is above max " + number.toPlainString();
        }
        return null;
      case REGEX:
        if (!value.isTextual()) {
          return "field '" + field + "' = " + shown + " is not a string";
        }
        return PATTERNS.computeIfAbsent(pattern, Pattern::compile).matcher(value.asText()).matches()
            ? null
            : "field '" + field + "' = " + shown + " does not match " + pattern;
      case ENUM:
        return values.contains(value.isTextual() ? value.asText() : value.toString())
            ? null
            : "field '" + field + "' = " + shown + " is not one of " + values;
      case MAX_LENGTH:
        if (!value.isTextual()) {
          return "field '" + field + "' = " + shown + " is not a string";
        }
        int length = value.asText().codePointCount(0, value.asText().length());
        return length <= number.intValue()
            ? null
            : "field '"
                + field
                + "' is "
                + length
                + " characters long, above max-length "
                + number.intValue();
      default:
        throw new IllegalStateException("unknown check " + kind);
    }
  }
}
