package io.firn.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Base64;

/**
 * Decodes Debezium's logical types in a change event's row images, using the {@code schema} that
 * Kafka Connect's JSON converter puts next to the payload ({@code schemas.enable=true}). Without it
 * the encodings cannot be told from plain values and stay as they are (ADR 0008 §1).
 *
 * <ul>
 *   <li>{@code org.apache.kafka.connect.data.Decimal} (base64 of the unscaled big-endian integer,
 *       {@code parameters.scale}) and {@code io.debezium.data.VariableScaleDecimal} ({@code {scale,
 *       value}}) → a JSON decimal, so the column is a {@code double} like every JSON decimal;
 *   <li>{@code io.debezium.time.Timestamp} and {@code org.apache.kafka.connect.data.Timestamp}
 *       (epoch milliseconds), {@code io.debezium.time.MicroTimestamp} (microseconds), {@code
 *       io.debezium.time.NanoTimestamp} (nanoseconds) → an ISO-8601 instant ({@code ...Z}), which a
 *       rule's {@code timestamp-fields} turns into {@code timestamptz} ({@code ZonedTimestamp}
 *       already is such a string);
 *   <li>{@code io.debezium.time.Date} and {@code org.apache.kafka.connect.data.Date} (days since
 *       the epoch) → an ISO-8601 date string.
 * </ul>
 *
 * A value that does not have the announced encoding is left alone.
 */
final class DebeziumLogicalTypes {
  private DebeziumLogicalTypes() {}

  /** Decodes, in place, the {@code before} and {@code after} images of {@code payload}. */
  static void decode(JsonNode schema, JsonNode payload) {
    if (schema == null || !schema.isObject() || !payload.isObject()) {
      return;
    }
    for (JsonNode envelopeField : schema.path("fields")) {
      String image = envelopeField.path("field").asText();
      if ((image.equals("before") || image.equals("after"))
          && payload.get(image) instanceof ObjectNode row) {
        for (JsonNode column : envelopeField.path("fields")) {
          String name = column.path("field").asText();
          JsonNode value = row.get(name);
          if (value != null && !value.isNull()) {
            JsonNode decoded = decodeValue(column, value);
            if (decoded != null) {
              row.set(name, decoded);
            }
          }
        }
      }
    }
  }

  /** The decoded value, or null to keep {@code value}. */
  private static JsonNode decodeValue(JsonNode column, JsonNode value) {
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
