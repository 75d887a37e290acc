/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import java.nio.charset.StandardCharsets;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Kafka records to {@link IngestEvent}s: the value as UTF-8 text, the position as {@code
 * topic/partition/offset}. A record without a value (a tombstone) is no event. The record key is
 * not used: the event's own fields name its table and key.
 */
public final class KafkaEvents implements KafkaRecordDeserializationSchema<IngestEvent> {
  private static final long serialVersionUID = 1L;

  @Override
  public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<IngestEvent> out) {
    if (record.value() == null) {
      return;
    }
    out.collect(
        IngestEvent.of(new String(record.value(), StandardCharsets.UTF_8), position(record)));
  }

  /** {@code topic/partition/offset}: where a dead letter came from. */
  public static String position(ConsumerRecord<?, ?> record) {
    return record.topic() + "/" + record.partition() + "/" + record.offset();
  }

  @Override
  public TypeInformation<IngestEvent> getProducedType() {
    return TypeInformation.of(IngestEvent.class);
  }
}
