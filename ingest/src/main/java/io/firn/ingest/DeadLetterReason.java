/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

/** Why an event went to the dead-letter table; {@link #code()} is what the table stores. */
public enum DeadLetterReason {
  /** The payload is not JSON. */
  UNPARSEABLE_JSON("unparseable_json"),
  /** The payload is JSON but not an object. */
  NOT_AN_OBJECT("not_an_object"),
  /** The routing field is absent, null or not a string. */
  MISSING_ROUTING_FIELD("missing_routing_field"),
  /** The routing field's value is not a valid table name. */
  INVALID_TABLE_NAME("invalid_table_name"),
  /** A primary-key field is absent or null. */
  MISSING_KEY("missing_key"),
  /**
   * A primary-key field is not a string or an integer that fits a {@code long} (e.g. {@code 1.5},
   * {@code 1e10}, {@code true}, a 30-digit number): Iceberg takes no floating-point or boolean key
   * column.
   */
  INVALID_KEY("invalid_key"),
  /** A CDC event's {@code op} is absent or not one of c, r, u, d. */
  UNKNOWN_OPERATION("unknown_operation"),
  /**
   * A CDC event lacks the row image its op needs ({@code after} for c/r/u, {@code before} for d).
   */
  MISSING_ROW_IMAGE("missing_row_image"),
  /**
   * A value does not fit its column's type without a disallowed change (e.g. a decimal into a
   * {@code long} column), or a timestamp is outside the range of Iceberg's microseconds.
   */
  INCOMPATIBLE_TYPE("incompatible_type"),
  /**
   * A field would become a column whose name readers or writers cannot use: empty or blank (Flink's
   * writers refuse it), reserved for an Iceberg metadata column ({@code _pos}, {@code _file}, ...),
   * or equal to another column's name but for case (case-insensitive engines cannot tell them
   * apart).
   */
  INVALID_FIELD_NAME("invalid_field_name"),
  /**
   * Iceberg refused the table creation, schema change or partition spec change the event needs
   * (e.g. a column named like a partition field, {@code id_bucket} next to {@code bucket(4, id)}).
   * The refused change is not applied and the job's caches keep nothing of it.
   */
  TABLE_CHANGE_REFUSED("table_change_refused"),
  /**
   * The event needs a change of its table's schema (a new column, a wider type, a required column
   * made optional) that the table's rule does not allow ({@code schema-changes: add-only |
   * freeze}). The detail names the field, the change and the rule.
   */
  SCHEMA_CHANGE_REFUSED("schema_change_refused"),
  /**
   * A CDC truncate ({@code op: t}): Firn never empties a table from a stream (ADR 0008 §8). The
   * operator empties the table when the truncate must reach it.
   */
  TRUNCATE_NOT_APPLIED("truncate_not_applied"),
  /**
   * An upserted row breaks a check of its table rule's data contract ({@code contract:}, ADR 0008
   * §11); the detail names the check, the field and the value.
   */
  CONTRACT_VIOLATION("contract_violation"),
  /**
   * The event's nested values would exceed a bound of the table's schema (ADR 0008 §12): objects
   * and arrays nested deeper than 16 levels, or more than 1,000 fields added by one event. The
   * detail names the field and the bound.
   */
  SCHEMA_LIMIT_EXCEEDED("schema_limit_exceeded"),
  /**
   * Handling the event failed in a way no other reason covers (an unexpected exception while
   * reading or converting it, no catalog or storage failure): a defect in Firn, to be reported with
   * the payload. The detail names the exception.
   */
  ROUTING_FAILED("routing_failed");

  private final String code;

  DeadLetterReason(String code) {
    this.code = code;
  }

  public String code() {
    return code;
  }

  /** Every code, in declaration order. */
  public static java.util.List<String> codes() {
    return java.util.Arrays.stream(values()).map(DeadLetterReason::code).toList();
  }
}
