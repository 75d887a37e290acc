/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import java.util.Locale;
import org.apache.flink.connector.datagen.source.GeneratorFunction;

/**
 * The built-in bounded event set: {@code order_events} (long keys) and {@code user_events} (string
 * keys) that update existing keys again and again, a field ({@code loyalty_tier}) that appears
 * halfway, one malformed event and one without a key. Deterministic: event {@code i} is always the
 * same.
 */
public final class SampleEvents implements GeneratorFunction<Long, IngestEvent> {
  private static final long serialVersionUID = 1L;

  private final long count;

  /**
   * @param count how many events the source produces (the bad ones are at {@code count/3} and
   *     {@code count/3 + 2})
   */
  public SampleEvents(long count) {
    this.count = count;
  }

  @Override
  public IngestEvent map(Long index) {
    return IngestEvent.of(event(index, count), "generator/" + index);
  }

  /** The index of the malformed event among {@code count} events. */
  public static long malformedIndex(long count) {
    return count / 3;
  }

  /** The index of the event without a key among {@code count} events. */
  public static long missingKeyIndex(long count) {
    return count / 3 + 2;
  }

  public static String event(long i, long count) {
    if (i == malformedIndex(count)) {
      return "{\"event_type\": \"order_events\", \"id\": 7, \"amount\": ";
    }
    if (i == missingKeyIndex(count)) {
      return "{\"event_type\":\"order_events\",\"status\":\"no key\"}";
    }
    if (i % 2 == 0) {
      long id = (i / 2) % 40 + 1;
      return String.format(
          Locale.ROOT,
          "{\"event_type\":\"order_events\",\"id\":%d,\"status\":\"v%d\",\"amount\":%.2f,"
              + "\"region\":\"%s\",\"paid\":%b}",
          id,
          i,
          i * 1.25 + 0.5,
          i % 3 == 0 ? "eu" : "us",
          i % 4 == 0);
    }
    // From halfway on only u1..u20 are updated (with the new field): u21..u30 keep their v1 rows.
    String id = "u" + ((i / 2) % (i >= count / 2 ? 20 : 30) + 1);
    String tier =
        i >= count / 2 ? ",\"loyalty_tier\":\"" + (i % 5 == 0 ? "gold" : "silver") + "\"" : "";
    return String.format(
        Locale.ROOT,
        "{\"event_type\":\"user_events\",\"id\":\"%s\",\"name\":\"user-%d\",\"visits\":%d%s}",
        id,
        i,
        i,
        tier);
  }
}
