/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;

/**
 * JSON values and the values of Iceberg's generic reader as the same plain Java values (maps of the
 * non-null fields, lists, longs, doubles, strings), so that rows read back compare with the events
 * that wrote them.
 */
final class PlainValues {
  private PlainValues() {}

  /** A JSON value as plain Java values: objects without their null fields, longs, doubles. */
  static Object of(JsonNode node) {
    if (node.isObject()) {
      Map<String, Object> fields = new TreeMap<>();
      node.fields()
          .forEachRemaining(
              field -> {
                if (!field.getValue().isNull()) {
                  fields.put(field.getKey(), of(field.getValue()));
                }
              });
      return fields;
    }
    if (node.isArray()) {
      List<Object> elements = new ArrayList<>();
      node.forEach(element -> elements.add(element.isNull() ? null : of(element)));
      return elements;
    }
    if (node.isIntegralNumber()) {
      return node.longValue();
    }
    if (node.isNumber()) {
      return node.doubleValue();
    }
    if (node.isBoolean()) {
      return node.booleanValue();
    }
    return node.asText();
  }

  /** A value of Iceberg's generic reader as plain Java values, like {@link #of(JsonNode)}. */
  static Object of(Object value) {
    if (value instanceof Record record) {
      Map<String, Object> fields = new TreeMap<>();
      for (Types.NestedField field : record.struct().fields()) {
        if (MetadataColumns.isMetadataColumn(field.name())) {
          continue; // the reader's _pos, with position deletes
        }
        Object fieldValue = record.getField(field.name());
        if (fieldValue != null) {
          fields.put(field.name(), of(fieldValue));
        }
      }
      return fields;
    }
    if (value instanceof List<?> list) {
      List<Object> elements = new ArrayList<>();
      list.forEach(element -> elements.add(element == null ? null : of(element)));
      return elements;
    }
    if (value instanceof Map<?, ?> map) {
      Map<String, Object> entries = new TreeMap<>();
      map.forEach((key, entry) -> entries.put(key.toString(), of(entry)));
      return entries;
    }
    if (value instanceof CharSequence text) {
      return text.toString();
    }
    return value;
  }
}
