/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.history;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The values of every row the writer writes: a pure function of the key, the writer's commit
 * version, how often the key was touched before in that commit, and the column's name and type. The
 * writer and the reference model both compute rows here, so a schedule prints as keys and versions
 * only and replays to the same rows.
 *
 * <p>Columns: {@code id} (long, the key), {@code cat} (string, one of three values; the identity
 * partition source; changes on some updates, so rows move between partitions), {@code n} (int,
 * widened to long by a schema change), {@code p} (string) and the optional columns added later.
 * Optional columns are sometimes null.
 */
final class Rows {
  static final String[] CATS = {"a", "b", "c"};

  /** The table's columns at creation, in order, with the writer's type names. */
  static final Map<String, String> INITIAL_COLUMNS = initialColumns();

  static final Schema INITIAL_SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.required(2, "cat", Types.StringType.get()),
          Types.NestedField.optional(3, "n", Types.IntegerType.get()),
          Types.NestedField.optional(4, "p", Types.StringType.get()));

  private Rows() {}

  private static Map<String, String> initialColumns() {
    Map<String, String> columns = new LinkedHashMap<>();
    columns.put("id", "long");
    columns.put("cat", "string");
    columns.put("n", "int");
    columns.put("p", "string");
    return java.util.Collections.unmodifiableMap(columns);
  }

  /** The value of one column of the row of {@code key} at {@code version}. */
  static Object value(String column, String type, long key, int version, int occurrence) {
    long mix = mix(key, version, occurrence);
    switch (column) {
      case "id":
        return key;
      case "cat":
        // Mostly stable per key; about one update in four moves the row to another category.
        return CATS[(int) Math.floorMod(key + (Math.floorMod(mix, 4) == 0 ? 1 : 0), CATS.length)];
      case "p":
        return Math.floorMod(mix >>> 8, 13) == 0
            ? null
            : "k" + key + "v" + version + (occurrence > 0 ? "o" + occurrence : "");
      default:
        break;
    }
    // n and the added columns; the salt keeps their nulls independent of each other.
    if (Math.floorMod((mix >>> 16) + column.hashCode(), 11) == 0) {
      return null;
    }
    long number = key * 1000 + version * 10L + occurrence;
    return switch (type) {
      case "int" -> (int) number;
      case "long" -> number;
      case "string" -> column + ":" + number;
      default -> throw new IllegalArgumentException("unknown column type " + type);
    };
  }

  /** Every column of the row of {@code key} at {@code version}. */
  static Map<String, Object> row(
      Map<String, String> columns, long key, int version, int occurrence) {
    Map<String, Object> row = new LinkedHashMap<>();
    columns.forEach((name, type) -> row.put(name, value(name, type, key, version, occurrence)));
    return row;
  }

  /** The row as a record of the table's current schema, to be written. */
  static Record record(Schema schema, long key, int version, int occurrence) {
    Record record = GenericRecord.create(schema);
    for (Types.NestedField field : schema.columns()) {
      record.setField(
          field.name(), value(field.name(), typeName(field.type()), key, version, occurrence));
    }
    return record;
  }

  /** A record of the schema with the key and a category, other columns null: a deleted key. */
  static Record keyOnly(Schema schema, long key, String cat) {
    Record record = GenericRecord.create(schema);
    record.setField("id", key);
    record.setField("cat", cat);
    return record;
  }

  static String typeName(Type type) {
    return switch (type.typeId()) {
      case INTEGER -> "int";
      case LONG -> "long";
      case STRING -> "string";
      default -> throw new IllegalArgumentException("unexpected column type " + type);
    };
  }

  static Type icebergType(String name) {
    return switch (name) {
      case "int" -> Types.IntegerType.get();
      case "long" -> Types.LongType.get();
      case "string" -> Types.StringType.get();
      default -> throw new IllegalArgumentException("unknown column type " + name);
    };
  }

  /** A record's columns as name → value, in schema order. */
  static Map<String, Object> asMap(Schema schema, Record record) {
    Map<String, Object> values = new LinkedHashMap<>();
    for (Types.NestedField field : schema.columns()) {
      Object value = record.getField(field.name());
      values.put(field.name(), value instanceof CharSequence cs ? cs.toString() : value);
    }
    return values;
  }

  static boolean sameRow(Map<String, Object> expected, Map<String, Object> actual) {
    if (!expected.keySet().equals(actual.keySet())) {
      return false;
    }
    for (Map.Entry<String, Object> e : expected.entrySet()) {
      Object a = actual.get(e.getKey());
      Object x = e.getValue();
      // Types must match too: an int where a long is expected is a wrong row.
      if (!Objects.equals(x, a) || (x != null && !x.getClass().equals(a.getClass()))) {
        return false;
      }
    }
    return true;
  }

  private static long mix(long key, int version, int occurrence) {
    long z = key * 0x9E3779B97F4A7C15L + version * 0xBF58476D1CE4E5B9L + occurrence * 0x94D049BBL;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
