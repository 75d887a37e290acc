/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The router of a job that reads several formats ({@code format-by-topic}, ADR 0008 §13): each
 * event is read by the router of the first {@link TopicFormat} matching its Kafka topic, else by
 * the job's own format. Every router writes through the same {@link TableRows}, so a table has one
 * schema cache whatever format its events come in.
 */
final class TopicFormatRouter implements EventRouter {
  private record Reader(EventFormat format, EventRouter router) {}

  private final IngestSettings settings;
  private final Reader fallback;
  private final List<TopicFormat> formats;
  private final List<Reader> readers = new ArrayList<>();

  /** The reader per topic seen (topics are few: bounded by the source's subscription). */
  private final Map<String, Reader> byTopic = new HashMap<>();

  TopicFormatRouter(IngestSettings settings, TableRows rows) {
    this.settings = settings;
    this.fallback = new Reader(settings.format(), settings.router(settings.format(), rows));
    this.formats = settings.topicFormats();
    for (TopicFormat format : formats) {
      IngestSettings own =
          settings.withFormat(format.format()).withRoutingField(format.effectiveRoutingField());
      readers.add(new Reader(format.format(), own.router(format.format(), rows)));
    }
  }

  @Override
  public List<Routing> route(String payload) {
    return fallback.router().route(payload);
  }

  @Override
  public List<Routing> route(IngestEvent event) {
    String topic = TopicFormat.topic(event.source());
    Reader reader = topic == null ? fallback : byTopic.computeIfAbsent(topic, this::reader);
    List<Routing> routings = reader.router().route(event.payload());
    // The event's own table comes first (a change-history row, appended, comes last).
    if (reader.format() == EventFormat.DEBEZIUM
        && !routings.isEmpty()
        && routings.get(0) instanceof Routing.Routed routed
        && !settings.table(routed.table().name()).upsert()) {
      return List.of(
          new Routing.Rejected(
              DeadLetterReason.INVALID_TABLE_NAME,
              "a change event of topic '"
                  + topic
                  + "' routes to "
                  + routed.table()
                  + ", an append table (its rule says upsert: false); change events need an"
                  + " upsert table"));
    }
    return routings;
  }

  private Reader reader(String topic) {
    for (int i = 0; i < formats.size(); i++) {
      if (formats.get(i).matches(topic)) {
        return readers.get(i);
      }
    }
    return fallback;
  }
}
