/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import java.util.Locale;

/**
 * How a table rule's JSON objects and arrays become columns ({@code nested}, ADR 0008 §15): as
 * Iceberg {@code struct}, {@code list} and {@code map} columns (the default), or as their JSON text
 * in a {@code string} column (the behaviour before). Either way a column that exists keeps its
 * type: an object or array arriving for a {@code string} column is written as its JSON text.
 */
public enum NestedValues {
  /** Objects are structs (maps where the rule's {@code map-fields} says), arrays are lists. */
  COLUMNS,
  /** Objects and arrays are JSON text in a {@code string} column. */
  JSON;

  /** The YAML spelling: {@code columns}, {@code json}. */
  public String code() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * The value for a YAML spelling.
   *
   * @throws IllegalArgumentException naming the allowed values
   */
  static NestedValues parse(String text) {
    for (NestedValues value : values()) {
      if (value.code().equals(text)) {
        return value;
      }
    }
    throw new IllegalArgumentException("must be one of columns, json");
  }
}
