/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.store;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * A database's schema as lines of text, read from the driver's metadata: each table with its
 * columns in order (type, size, nullability, default), primary key and other indexes, then the rows
 * the migrations themselves write ({@code schema_version} without its times, {@code firn_leader}).
 * Names are lower case; what else differs between H2 and PostgreSQL (type names, how a default is
 * spelled) stays as the driver says it, so each database has its own expected text.
 */
final class SchemaSnapshot {
  private SchemaSnapshot() {}

  static List<String> of(Connection c) throws SQLException {
    DatabaseMetaData meta = c.getMetaData();
    String schema = c.getSchema();
    List<String> tables = new ArrayList<>();
    try (ResultSet rs = meta.getTables(null, schema, "%", new String[] {"TABLE"})) {
      while (rs.next()) {
        tables.add(rs.getString("TABLE_NAME"));
      }
    }
    tables.sort(String.CASE_INSENSITIVE_ORDER);
    List<String> lines = new ArrayList<>();
    for (String table : tables) {
      lines.add("table " + lower(table));
      try (ResultSet rs = meta.getColumns(null, schema, table, "%")) {
        while (rs.next()) {
          String def = rs.getString("COLUMN_DEF");
          lines.add(
              "  column "
                  + lower(rs.getString("COLUMN_NAME"))
                  + " "
                  + rs.getString("TYPE_NAME")
                  + "("
                  + rs.getInt("COLUMN_SIZE")
                  + ")"
                  + ("NO".equals(rs.getString("IS_NULLABLE")) ? " not null" : " null")
                  + (def == null ? "" : " default " + def));
        }
      }
      Map<Integer, String> key = new TreeMap<>();
      try (ResultSet rs = meta.getPrimaryKeys(null, schema, table)) {
        while (rs.next()) {
          key.put(rs.getInt("KEY_SEQ"), lower(rs.getString("COLUMN_NAME")));
        }
      }
      lines.add("  primary key " + key.values());
      Map<String, Map<Integer, String>> indexes = new TreeMap<>();
      Map<String, Boolean> unique = new TreeMap<>();
      try (ResultSet rs = meta.getIndexInfo(null, schema, table, false, false)) {
        while (rs.next()) {
          String name = rs.getString("INDEX_NAME");
          if (name == null || isPrimaryKeyIndex(lower(name))) {
            continue;
          }
          indexes
              .computeIfAbsent(lower(name), n -> new TreeMap<>())
              .put(rs.getInt("ORDINAL_POSITION"), lower(rs.getString("COLUMN_NAME")));
          unique.put(lower(name), !rs.getBoolean("NON_UNIQUE"));
        }
      }
      indexes.forEach(
          (name, columns) ->
              lines.add(
                  "  index "
                      + name
                      + " "
                      + columns.values()
                      + (unique.get(name) ? " unique" : "")));
    }
    lines.addAll(rows(c, "SELECT version, description FROM schema_version ORDER BY version"));
    lines.addAll(rows(c, "SELECT * FROM firn_leader ORDER BY id"));
    return lines;
  }

  private static boolean isPrimaryKeyIndex(String name) {
    return name.startsWith("primary_key") || name.endsWith("_pkey");
  }

  private static List<String> rows(Connection c, String sql) throws SQLException {
    List<String> rows = new ArrayList<>();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      String table = lower(rs.getMetaData().getTableName(1));
      int columns = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        List<String> values = new ArrayList<>();
        for (int i = 1; i <= columns; i++) {
          values.add(lower(rs.getMetaData().getColumnLabel(i)) + "=" + rs.getString(i));
        }
        rows.add("row " + table + " " + String.join(" ", values));
      }
    }
    return rows;
  }

  private static String lower(String name) {
    return name.toLowerCase(Locale.ROOT);
  }
}
