/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.jspecify.annotations.Nullable;

/**
 * Reads a change event's row images with the {@code schema} that Kafka Connect's JSON converter
 * puts next to the payload ({@code schemas.enable=true}): decodes Debezium's logical types in place
 * and tells each field's declared Iceberg type ({@link DeclaredColumn}). Without the schema the
 * encodings cannot be told from plain values, stay as they are, and types are inferred from the
 * values (ADR 0008 §1).
 *
 * <table>
 *   <caption>Connect schema → value → declared type</caption>
 *   <tr><th>schema</th><th>value becomes</th><th>column type</th></tr>
 *   <tr><td>{@code org.apache.kafka.connect.data.Decimal} (base64 of the unscaled big-endian
 *       integer, {@code parameters.scale}, {@code connect.decimal.precision})</td>
 *       <td>a JSON decimal</td><td>{@code decimal(p, s)}; p is 38 when not given</td></tr>
 *   <tr><td>{@code io.debezium.data.VariableScaleDecimal} ({@code {scale, value}})</td>
 *       <td>a JSON decimal</td><td>none declared: inferred ({@code double}), since an Iceberg
 *       decimal has one scale</td></tr>
 *   <tr><td>{@code io.debezium.time.Timestamp}, {@code org.apache.kafka.connect.data.Timestamp}
 *       (epoch ms), {@code io.debezium.time.MicroTimestamp} (µs), {@code
 *       io.debezium.time.NanoTimestamp} (ns)</td><td>an ISO-8601 instant ({@code ...Z})</td>
 *       <td>{@code timestamp} (the source's wall-clock time, no zone)</td></tr>
 *   <tr><td>{@code io.debezium.time.ZonedTimestamp} (ISO-8601 with offset)</td><td>unchanged</td>
 *       <td>{@code timestamptz}</td></tr>
 *   <tr><td>{@code io.debezium.time.Date}, {@code org.apache.kafka.connect.data.Date} (epoch
 *       days)</td><td>an ISO-8601 date</td><td>{@code date}</td></tr>
 *   <tr><td>{@code int8}, {@code int16}, {@code int32} / {@code int64}</td><td>unchanged</td>
 *       <td>{@code int} / {@code long} (time-of-day logical types too: their raw count)</td></tr>
 *   <tr><td>{@code float32} / {@code float64}, {@code boolean}, {@code string}</td>
 *       <td>unchanged</td><td>{@code float} / {@code double}, {@code boolean}, {@code string}</td></tr>
 *   <tr><td>{@code bytes}</td><td>unchanged (base64)</td><td>{@code binary}</td></tr>
 *   <tr><td>{@code struct}, {@code array}, {@code map} (string keys)</td><td>each field, element
 *       and value decoded as above</td><td>{@code struct}, {@code list}, {@code map<string, V>} of
 *       the declared types (JSON text in a {@code string} with the rule's {@code nested: json}); a
 *       field, element or value declaring none is inferred</td></tr>
 *   <tr><td>{@code map} with other keys (an array of {@code [key, value]} pairs in JSON)</td>
 *       <td>unchanged</td><td>{@code string}: JSON text</td></tr>
 * </table>
 *
 * <p>{@code optional: false} declares the field required: a column created for it with the table is
 * required, and becomes optional when the source later sends null with {@code optional: true}. A
 * field without the flag is optional. A value that does not have the announced encoding is left
 * alone.
 */
final class DebeziumLogicalTypes {
  private DebeziumLogicalTypes() {}

  /** The declared columns of an event's two images (empty maps without a schema). */
  record Declared(Map<String, DeclaredColumn> before, Map<String, DeclaredColumn> after) {
    static final Declared NONE = new Declared(DeclaredColumn.NONE, DeclaredColumn.NONE);
  }

  /**
   * Decodes, in place, the {@code before} and {@code after} images of {@code payload}.
   *
   * @return what the schema declares about each image's fields
   */
  static Declared decode(@Nullable JsonNode schema, JsonNode payload) {
    if (schema == null || !schema.isObject() || !payload.isObject()) {
      return Declared.NONE;
    }
    Map<String, DeclaredColumn> before = DeclaredColumn.NONE;
    Map<String, DeclaredColumn> after = DeclaredColumn.NONE;
    for (JsonNode envelopeField : schema.path("fields")) {
      String image = envelopeField.path("field").asText();
      if (!image.equals("before") && !image.equals("after")) {
        continue;
      }
      Map<String, DeclaredColumn> declared = decodeRow(envelopeField, payload.get(image));
      if (image.equals("before")) {
        before = declared;
      } else {
        after = declared;
      }
    }
    return new Declared(before, after);
  }

  /**
   * Decodes, in place, a row image whose Connect struct schema is {@code struct} (an envelope's
   * {@code before}/{@code after}, or the whole value of a record flattened by Debezium's {@code
   * ExtractNewRecordState}).
   *
   * @return what the schema declares about each of the row's fields
   */
  static Map<String, DeclaredColumn> decodeRow(@Nullable JsonNode struct, @Nullable JsonNode row) {
    if (struct == null || !struct.isObject()) {
      return DeclaredColumn.NONE;
    }
    Map<String, DeclaredColumn> declared = new HashMap<>();
    ObjectNode object = row instanceof ObjectNode node ? node : null;
    for (JsonNode column : struct.path("fields")) {
      String name = column.path("field").asText();
      declared.put(name, declare(column));
      JsonNode value = object != null ? object.get(name) : null;
      if (object != null && value != null && !value.isNull()) {
        JsonNode decoded = decodeValue(column, value);
        if (decoded != null) {
          object.set(name, decoded);
        }
      }
    }
    return declared;
  }

  /** What a Connect schema field declares (the table in the class comment). */
  static DeclaredColumn declare(JsonNode column) {
    boolean optional = column.path("optional").asBoolean(true);
    return new DeclaredColumn(type(column, new int[1], 1), optional);
  }

  /**
   * The declared type of a Connect schema, or null when it declares none Firn keeps. Nested types
   * carry placeholder field ids ({@code ids}): only their shape and names guide new columns.
   */
  private static @Nullable Type type(JsonNode column, int[] ids, int depth) {
    Type nested = nestedType(column, ids, depth);
    if (nested != null) {
      return nested;
    }
    switch (column.path("name").asText("")) {
      case "org.apache.kafka.connect.data.Decimal":
        return decimalType(column.path("parameters"));
      case "io.debezium.data.VariableScaleDecimal":
        return null;
      case "io.debezium.time.Timestamp",
      "org.apache.kafka.connect.data.Timestamp",
      "io.debezium.time.MicroTimestamp",
      "io.debezium.time.NanoTimestamp":
        return Types.TimestampType.withoutZone();
      case "io.debezium.time.ZonedTimestamp":
        return Types.TimestampType.withZone();
      case "io.debezium.time.Date", "org.apache.kafka.connect.data.Date":
        return Types.DateType.get();
      default:
        break;
    }
    return switch (column.path("type").asText("")) {
      case "int8", "int16", "int32" -> Types.IntegerType.get();
      case "int64" -> Types.LongType.get();
      case "float32" -> Types.FloatType.get();
      case "float64" -> Types.DoubleType.get();
      case "boolean" -> Types.BooleanType.get();
      case "string" -> Types.StringType.get();
      case "bytes" -> Types.BinaryType.get();
      default -> null;
    };
  }

  /**
   * A Connect {@code struct}, {@code array} or {@code map} as the matching Iceberg type (every
   * nested field optional; a field whose type is not declared left out, to be inferred), a {@code
   * string} for a map with non-string keys (the JSON converter writes it as an array of pairs),
   * null for anything else or beyond {@link NestedColumns#MAX_DEPTH} levels.
   */
  private static @Nullable Type nestedType(JsonNode column, int[] ids, int depth) {
    String kind = column.path("type").asText("");
    if (!kind.equals("struct") && !kind.equals("array") && !kind.equals("map")) {
      return null;
    }
    if (depth > NestedColumns.MAX_DEPTH) {
      return null;
    }
    switch (kind) {
      case "struct":
        {
          List<Types.NestedField> fields = new ArrayList<>();
          for (JsonNode field : column.path("fields")) {
            Type type = type(field, ids, depth + 1);
            String name = field.path("field").asText("");
            if (type != null && fields.stream().noneMatch(f -> f.name().equals(name))) {
              fields.add(Types.NestedField.optional(++ids[0], name, type));
            }
          }
          return Types.StructType.of(fields);
        }
      case "array":
        {
          Type element = type(column.path("items"), ids, depth + 1);
          return element == null ? null : Types.ListType.ofOptional(++ids[0], element);
        }
      default:
        {
          if (!column.path("keys").path("type").asText("").equals("string")) {
            return Types.StringType.get();
          }
          Type value = type(column.path("values"), ids, depth + 1);
          int keyId = ++ids[0];
          return value == null
              ? null
              : Types.MapType.ofOptional(keyId, ++ids[0], Types.StringType.get(), value);
        }
    }
  }

  /** {@code decimal(p, s)} from a Decimal's parameters, or null when they make none Iceberg has. */
  private static @Nullable Type decimalType(JsonNode parameters) {
    try {
      int scale = Integer.parseInt(parameters.path("scale").asText("0"));
      int precision = Integer.parseInt(parameters.path("connect.decimal.precision").asText("38"));
      return scale >= 0 && precision >= 1 && scale <= precision && precision <= 38
          ? Types.DecimalType.of(precision, scale)
          : null;
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /**
   * The decoded value, or null to keep {@code value} (the fields, elements and values of a struct,
   * array or map are decoded in place).
   */
  private static @Nullable JsonNode decodeValue(JsonNode column, JsonNode value) {
    switch (column.path("type").asText("")) {
      case "struct":
        decodeRow(column, value);
        return null;
      case "array":
        if (value instanceof ArrayNode array) {
          for (int i = 0; i < array.size(); i++) {
            JsonNode element = array.get(i);
            JsonNode decoded = element.isNull() ? null : decodeValue(column.path("items"), element);
            if (decoded != null) {
              array.set(i, decoded);
            }
          }
        }
        return null;
      case "map":
        if (value instanceof ObjectNode map
            && column.path("keys").path("type").asText("").equals("string")) {
          for (String key :
              new ArrayList<>(map.properties().stream().map(Map.Entry::getKey).toList())) {
            JsonNode element = map.get(key);
            JsonNode decoded =
                element.isNull() ? null : decodeValue(column.path("values"), element);
            if (decoded != null) {
              map.set(key, decoded);
            }
          }
        }
        return null;
      default:
        break;
    }
    try {
      switch (column.path("name").asText()) {
        case "org.apache.kafka.connect.data.Decimal":
          if (value.isTextual()) {
            int scale = Integer.parseInt(column.path("parameters").path("scale").asText("0"));
            return decimal(value.asText(), scale);
          }
          return null;
        case "io.debezium.data.VariableScaleDecimal":
          if (value.isObject() && value.path("value").isTextual()) {
            return decimal(value.path("value").asText(), value.path("scale").asInt());
          }
          return null;
        case "io.debezium.time.Timestamp", "org.apache.kafka.connect.data.Timestamp":
          return value.canConvertToLong()
              ? TextNode.valueOf(Instant.ofEpochMilli(value.longValue()).toString())
              : null;
        case "io.debezium.time.MicroTimestamp":
          return value.canConvertToLong() ? instant(value.longValue(), 1_000_000L) : null;
        case "io.debezium.time.NanoTimestamp":
          return value.canConvertToLong() ? instant(value.longValue(), 1_000_000_000L) : null;
        case "io.debezium.time.Date", "org.apache.kafka.connect.data.Date":
          return value.canConvertToLong()
              ? TextNode.valueOf(LocalDate.ofEpochDay(value.longValue()).toString())
              : null;
        default:
          return null;
      }
    } catch (IllegalArgumentException | java.time.DateTimeException e) {
      return null;
    }
  }

  private static JsonNode decimal(String base64, int scale) {
    return DecimalNode.valueOf(
        new BigDecimal(new BigInteger(Base64.getDecoder().decode(base64)), scale));
  }

  private static JsonNode instant(long value, long perSecond) {
    long seconds = Math.floorDiv(value, perSecond);
    long fraction = Math.floorMod(value, perSecond);
    return TextNode.valueOf(
        Instant.ofEpochSecond(seconds, fraction * (1_000_000_000L / perSecond)).toString());
  }
}
