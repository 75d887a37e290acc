/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class EventStreamTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final EventStream.Settings JSON =
      EventStream.Settings.of(7, 1_000, 2_000, EventFormat.JSON);
  private static final EventStream.Settings CDC =
      EventStream.Settings.of(7, 1_000, 2_000, EventFormat.DEBEZIUM);

  @Test
  void eventsAreDeterministicAndRandomAccessMatchesSequentialReading() {
    EventStream sequential = new EventStream(JSON);
    List<String> events = new ArrayList<>();
    for (long i = 0; i < 3_000; i++) {
      events.add(sequential.event(i));
    }
    EventStream jumping = new EventStream(JSON);
    for (long i : new long[] {2_999, 5, 1_234, 0, 2_000, 1_999}) {
      assertThat(jumping.event(i)).as("event %d", i).isEqualTo(events.get((int) i));
    }
    assertThat(new EventStream(EventStream.Settings.of(8, 1_000, 2_000, EventFormat.JSON)).event(0))
        .as("another seed, another stream")
        .isNotEqualTo(events.get(0));
  }

  @Test
  void jsonStreamSwitchesToV2AddsTheFourthTypeAndOnlyUpserts() throws Exception {
    EventStream stream = new EventStream(JSON);
    Map<String, Long> firstIndex = new HashMap<>();
    Set<String> fieldsBeforeV2 = new HashSet<>();
    Set<String> fieldsAfterV2 = new HashSet<>();
    Map<String, Integer> ops = new HashMap<>();
    for (long i = 0; i < 3_000; i++) {
      EventStream.Event event = stream.at(i);
      JsonNode json = MAPPER.readTree(event.payload());
      assertThat(json.get("event_type").asText()).isEqualTo(event.table());
      assertThat(json.get("id").isTextual() ? json.get("id").asText() : json.get("id").asLong())
          .isEqualTo(event.key());
      firstIndex.putIfAbsent(event.table(), i);
      ops.merge(event.op(), 1, Integer::sum);
      json.fieldNames().forEachRemaining((i < 1_000 ? fieldsBeforeV2 : fieldsAfterV2)::add);
    }
    assertThat(firstIndex)
        .containsOnlyKeys(EventStream.TABLES)
        .allSatisfy((table, first) -> assertThat(first).as(table).isLessThan(2_100L));
    assertThat(firstIndex.get("payment_events")).isGreaterThanOrEqualTo(2_000L);
    assertThat(fieldsBeforeV2)
        .contains("region", "event_time", "amount", "visits")
        .doesNotContain("coupon_code", "user_agent", "scroll_depth", "loyalty_tier");
    assertThat(fieldsAfterV2).contains("coupon_code", "user_agent", "scroll_depth", "loyalty_tier");
    assertThat(ops).containsOnlyKeys("c", "u");
    assertThat(ops.get("u")).as("updates of existing keys are frequent").isGreaterThan(1_000);
  }

  @Test
  void referenceIsTheLastImagePerKeyOfTheRenderedEvents() throws Exception {
    for (EventStream.Settings settings : List.of(JSON, CDC.withBadEvery(97))) {
      EventStream stream = new EventStream(settings);
      Map<String, Map<Object, Map<String, Object>>> replayed = new LinkedHashMap<>();
      int deletes = 0;
      int malformed = 0;
      for (long i = 0; i < 3_000; i++) {
        EventStream.Event event = stream.at(i);
        if (event.malformed()) {
          malformed++;
          continue;
        }
        Map<String, Object> json = MAPPER.readValue(event.payload(), new TypeReference<>() {});
        Map<Object, Map<String, Object>> rows =
            replayed.computeIfAbsent(event.table(), t -> new LinkedHashMap<>());
        if (settings.format() == EventFormat.JSON) {
          rows.put(event.key(), json);
        } else if (event.op().equals("d")) {
          deletes++;
          assertThat(json.get("after")).isNull();
          assertThat(rows.remove(event.key())).as("deletes hit live keys").isNotNull();
        } else {
          @SuppressWarnings("unchecked")
          Map<String, Object> after = (Map<String, Object>) json.get("after");
          assertThat(json.get("before"))
              .as("before of %s is the current row", event.op())
              .isEqualTo(rows.get(event.key()));
          rows.put(event.key(), after);
        }
      }
      assertThat(normalize(EventStream.expectedRows(settings, 3_000)))
          .isEqualTo(normalize(replayed));
      if (settings.format() == EventFormat.DEBEZIUM) {
        assertThat(deletes).as("change data deletes keys").isGreaterThan(20);
        assertThat(malformed).isEqualTo(3_000 / 97);
      }
    }
  }

  /** Jackson reads small longs as Integer: compare by text. */
  private static Map<String, Map<String, String>> normalize(
      Map<String, Map<Object, Map<String, Object>>> tables) {
    Map<String, Map<String, String>> result = new HashMap<>();
    tables.forEach(
        (table, rows) -> {
          Map<String, String> byKey = new HashMap<>();
          rows.forEach((key, row) -> byKey.put(String.valueOf(key), String.valueOf(row)));
          result.put(table, byKey);
        });
    return result;
  }
}
