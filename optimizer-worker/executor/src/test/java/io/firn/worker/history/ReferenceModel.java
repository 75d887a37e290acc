/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.history;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * What the table must contain: key → the full row (every column), and the columns with their types.
 * It is derived only from what the writer meant to do and changes only after the writer's commit
 * succeeded; Firn's steps never touch it, so "the table equals the model" is independent of how
 * Firn plans, rewrites or commits.
 */
final class ReferenceModel {
  private final Map<String, String> columns = new LinkedHashMap<>(Rows.INITIAL_COLUMNS);
  private final NavigableMap<Long, Map<String, Object>> rows = new TreeMap<>();

  void upsert(long key, int version, int occurrence) {
    rows.put(key, Rows.row(columns, key, version, occurrence));
  }

  void delete(long key) {
    rows.remove(key);
  }

  /** A new optional column: null in every existing row. */
  void addColumn(String name, String type) {
    columns.put(name, type);
    rows.values().forEach(row -> row.put(name, null));
  }

  /** int → long: every existing value reads as a long now. */
  void widen(String name) {
    columns.put(name, "long");
    for (Map<String, Object> row : rows.values()) {
      if (row.get(name) instanceof Integer i) {
        row.put(name, i.longValue());
      }
    }
  }

  boolean contains(long key) {
    return rows.containsKey(key);
  }

  Map<String, Object> row(long key) {
    return rows.get(key);
  }

  NavigableMap<Long, Map<String, Object>> rows() {
    return Collections.unmodifiableNavigableMap(rows);
  }

  Map<String, String> columns() {
    return Collections.unmodifiableMap(columns);
  }

  int size() {
    return rows.size();
  }
}
