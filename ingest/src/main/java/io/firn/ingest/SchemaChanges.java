/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import java.util.Locale;

/**
 * Which changes of an existing table's schema the job may make for its events, per table rule
 * ({@code schema-changes}, ADR 0008 §6). An event that needs a change its rule does not allow goes
 * to the dead-letter table as {@code schema_change_refused}; the table is not changed. Creating a
 * table is no schema change.
 */
public enum SchemaChanges {
  /** New columns, widened types, required columns made optional (the default). */
  EVOLVE,
  /** New (optional) columns only; no column changes its type or nullability. */
  ADD_ONLY,
  /** No change: an event with a field the table lacks, or that needs a wider type, is refused. */
  FREEZE;

  /** The YAML spelling: {@code evolve}, {@code add-only}, {@code freeze}. */
  public String code() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /**
   * The value for a YAML spelling.
   *
   * @throws IllegalArgumentException naming the allowed values
   */
  static SchemaChanges parse(String text) {
    for (SchemaChanges value : values()) {
      if (value.code().equals(text)) {
        return value;
      }
    }
    throw new IllegalArgumentException("must be one of evolve, add-only, freeze");
  }
}
