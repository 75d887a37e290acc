/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A deterministic Debezium-style change stream for table {@code customers}: snapshot reads of 30
 * keys, then updates, deletes, re-creates, key changes and events in Kafka Connect's payload
 * envelope; a {@code tier} field appears halfway; four malformed events. {@link #expected} is the
 * reference: last write per key wins, deleted keys are absent.
 */
final class ChangeEvents {
  private ChangeEvents() {}

  /** Index of each malformed event and the reason it must be dead-lettered with. */
  static final Map<Integer, String> MALFORMED =
      Map.of(
          50,
          "unknown_operation",
          90,
          "missing_row_image",
          130,
          "missing_row_image",
          170,
          "missing_key");

  static List<String> events(int count) {
    List<String> events = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      events.add(event(i, count));
    }
    return events;
  }

  private static String event(int i, int count) {
    String source = ",\"source\":{\"table\":\"customers\",\"db\":\"shop\"}";
    if (i == 50) {
      return "{\"op\":\"x\",\"after\":" + row(1, i, count) + source + "}";
    }
    if (i == 90) {
      return "{\"op\":\"c\",\"before\":null" + source + "}";
    }
    if (i == 130) {
      return "{\"op\":\"d\",\"after\":null" + source + "}";
    }
    if (i == 170) {
      return "{\"op\":\"u\",\"after\":{\"name\":\"keyless\"}" + source + "}";
    }
    if (i < 30) {
      return change("r", null, row(i + 1, i, count), source);
    }
    long key = (i * 7L) % 30 + 1;
    return switch (i % 10) {
      case 6 -> change("d", row(key, i, count), null, source);
      case 7 -> change("c", null, row(key, i, count), source);
      case 8 -> change("u", row(key, i, count), row(100 + i, i, count), source);
      case 9 ->
          "{\"schema\":{\"type\":\"struct\",\"name\":\"shop.customers.Envelope\"},\"payload\":"
              + change("u", null, row(key, i, count), source)
              + "}";
      default -> change("u", null, row(key, i, count), source);
    };
  }

  private static String change(String op, String before, String after, String source) {
    return "{\"op\":\"" + op + "\",\"before\":" + before + ",\"after\":" + after + source + "}";
  }

  private static String row(long key, int i, int count) {
    String tier = i >= count / 2 ? ",\"tier\":\"" + (i % 3 == 0 ? "gold" : "silver") + "\"" : "";
    return String.format(
        Locale.ROOT,
        "{\"id\":%d,\"name\":\"c%d-v%d\",\"visits\":%d,\"score\":%.1f%s}",
        key,
        key,
        i,
        i,
        i * 0.5,
        tier);
  }

  /** The rows a correct sink holds after {@code events}: the last after image per live key. */
  static Map<Long, JsonNode> expected(List<String> events) {
    ObjectMapper mapper = new ObjectMapper();
    Map<Long, JsonNode> rows = new LinkedHashMap<>();
    for (int i = 0; i < events.size(); i++) {
      if (MALFORMED.containsKey(i)) {
        continue;
      }
      JsonNode event;
      try {
        event = mapper.readTree(events.get(i));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      if (event.has("payload")) {
        event = event.get("payload");
      }
      JsonNode before = event.get("before");
      JsonNode after = event.get("after");
      switch (event.get("op").asText()) {
        case "d" -> rows.remove(before.get("id").longValue());
        case "u" -> {
          if (before != null && !before.isNull()) {
            rows.remove(before.get("id").longValue());
          }
          rows.put(after.get("id").longValue(), after);
        }
        default -> rows.put(after.get("id").longValue(), after);
      }
    }
    return rows;
  }
}
