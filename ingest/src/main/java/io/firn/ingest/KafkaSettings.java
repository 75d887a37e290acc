/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import java.io.Serializable;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Where the Kafka source reads.
 *
 * @param bootstrapServers {@code host:port[,host:port...]}
 * @param topics the topics to read (at least one, unless {@code topicPattern} is set)
 * @param groupId the consumer group; offsets are committed to it on each checkpoint for monitoring
 *     only — the job's own offsets live in its checkpoints
 * @param startingOffsets where a job without checkpoint or savepoint starts
 * @param properties further Kafka consumer properties (security, fetch sizes, ...)
 * @param parallelism source readers (and routers); more than one keeps every key's order when the
 *     topic is partitioned by the primary key, as Debezium's topics are (ADR 0008 §2)
 * @param topicPattern instead of {@code topics}: a Java regular expression every topic to read
 *     matches whole (Debezium writes one topic per table); topics created later are found at the
 *     source's partition discovery ({@code partition.discovery.interval.ms}); null when {@code
 *     topics} names them
 */
public record KafkaSettings(
    String bootstrapServers,
    List<String> topics,
    String groupId,
    StartingOffsets startingOffsets,
    Map<String, String> properties,
    int parallelism,
    @Nullable String topicPattern)
    implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Where a fresh job starts reading. */
  public enum StartingOffsets {
    /** The oldest retained record of each partition. */
    EARLIEST,
    /** Only records produced after the job started. */
    LATEST,
    /** The group's committed offsets, the oldest record where the group has none. */
    COMMITTED;

    public String configName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** Settings reading the topics {@code topics} names. */
  public KafkaSettings(
      String bootstrapServers,
      List<String> topics,
      String groupId,
      StartingOffsets startingOffsets,
      Map<String, String> properties,
      int parallelism) {
    this(bootstrapServers, topics, groupId, startingOffsets, properties, parallelism, null);
  }

  public KafkaSettings {
    topics = List.copyOf(topics);
    properties = Map.copyOf(properties);
    if (bootstrapServers == null || bootstrapServers.isBlank()) {
      throw new IllegalArgumentException("kafka bootstrap servers must be set (host:port)");
    }
    if (topics.isEmpty() == (topicPattern == null)) {
      throw new IllegalArgumentException(
          "kafka topics must name at least one topic, or a topic pattern them all (not both)");
    }
    if (topicPattern != null) {
      java.util.regex.Pattern.compile(topicPattern); // PatternSyntaxException names the problem
    }
    if (groupId == null || groupId.isBlank()) {
      throw new IllegalArgumentException("kafka group id must be set");
    }
    if (parallelism < 1) {
      throw new IllegalArgumentException(
          "kafka source parallelism " + parallelism + " must be at least 1");
    }
  }
}
