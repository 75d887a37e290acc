/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

class IngestEventTest {

  @Test
  void flinkSerializesEventsAsPojosNotWithKryo() {
    assertThat(TypeInformation.of(IngestEvent.class)).isInstanceOf(PojoTypeInfo.class);
  }

  @Test
  void kafkaRecordBecomesItsTextWithTopicPartitionOffsetAndTombstonesAreSkipped() {
    List<IngestEvent> out = new ArrayList<>();
    Collector<IngestEvent> collector =
        new Collector<>() {
          @Override
          public void collect(IngestEvent record) {
            out.add(record);
          }

          @Override
          public void close() {}
        };
    KafkaEvents events = new KafkaEvents();

    events.deserialize(
        new ConsumerRecord<>("orders", 3, 42L, null, "{\"id\":1}".getBytes(StandardCharsets.UTF_8)),
        collector);
    events.deserialize(
        new ConsumerRecord<>("orders", 3, 43L, "k".getBytes(StandardCharsets.UTF_8), null),
        collector);

    assertThat(out).containsExactly(IngestEvent.of("{\"id\":1}", "orders/3/42"));
    assertThat(events.getProducedType()).isEqualTo(TypeInformation.of(IngestEvent.class));
  }
}
