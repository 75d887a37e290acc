/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import java.util.Locale;

/**
 * How an upsert table's rule writes the rows of keys the table cannot hold yet ({@code inserts},
 * ADR 0008 §14).
 */
public enum Inserts {
  /** Every row is an upsert: an equality delete of its key next to the row (the default). */
  UPSERT,
  /**
   * A key the job has never written to a table it created itself is appended without an equality
   * delete; every other row upserts. Needs a router of parallelism 1 and the job as the table's
   * only writer of rows (Firn's optimizer aside); anything else falls back to upserts.
   */
  APPEND_NEW_KEYS;

  /** The YAML spelling: {@code upsert}, {@code append-new-keys}. */
  public String code() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /**
   * The value for a YAML spelling.
   *
   * @throws IllegalArgumentException naming the allowed values
   */
  static Inserts parse(String text) {
    for (Inserts value : values()) {
      if (value.code().equals(text)) {
        return value;
      }
    }
    throw new IllegalArgumentException("must be one of upsert, append-new-keys");
  }
}
