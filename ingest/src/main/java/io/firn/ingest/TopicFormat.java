/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import java.io.Serializable;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.jspecify.annotations.Nullable;

/**
 * How the events of some Kafka topics are read when one job reads several formats (a Debezium topic
 * per table next to a JSON log topic): the first entry whose {@code match} covers an event's topic
 * decides; events of other topics are read in the job's {@code format} (ADR 0008 §13).
 *
 * @param match a regular expression on the whole topic name
 * @param format how those events are read
 * @param routingField the field naming the table for those events; null: the format's default
 *     ({@code event_type} for JSON, {@code source.table} for change events)
 */
public record TopicFormat(String match, EventFormat format, @Nullable String routingField)
    implements Serializable {
  private static final long serialVersionUID = 1L;

  private static final Map<String, Pattern> PATTERNS = new ConcurrentHashMap<>();

  public TopicFormat {
    if (match == null || match.isEmpty()) {
      throw new IllegalArgumentException("a topic format needs match (a regular expression)");
    }
    try {
      Pattern.compile(match);
    } catch (PatternSyntaxException e) {
      throw new IllegalArgumentException(
          "match '" + match + "' is not a regular expression: " + e.getDescription(), e);
    }
    if (format == null) {
      throw new IllegalArgumentException("topic format '" + match + "' needs a format");
    }
    if (routingField != null && routingField.isBlank()) {
      routingField = null;
    }
  }

  /** Whether {@code topic} is one of this entry's topics. */
  public boolean matches(String topic) {
    return PATTERNS.computeIfAbsent(match, Pattern::compile).matcher(topic).matches();
  }

  /** The routing field its events use: the entry's, else the format's default. */
  @Nullable String effectiveRoutingField() {
    if (routingField != null) {
      return routingField;
    }
    return format == EventFormat.JSON ? "event_type" : null;
  }

  /**
   * The Kafka topic of an event's source position ({@code topic/partition/offset}); null for other
   * sources.
   */
  static @Nullable String topic(@Nullable String sourcePosition) {
    if (sourcePosition == null) {
      return null;
    }
    int slash = sourcePosition.indexOf('/');
    return slash < 0 ? sourcePosition : sourcePosition.substring(0, slash);
  }
}
