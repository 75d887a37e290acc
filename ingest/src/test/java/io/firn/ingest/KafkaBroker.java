/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real KRaft broker started by a test (CONTRIBUTING.md, "Tests"): one combined node, replication
 * factors 1.
 */
final class KafkaBroker implements AutoCloseable {
  private final KafkaClusterTestKit kafka;

  private KafkaBroker(KafkaClusterTestKit kafka) {
    this.kafka = kafka;
  }

  static KafkaBroker start() throws Exception {
    KafkaClusterTestKit kafka =
        new KafkaClusterTestKit.Builder(
                new TestKitNodes.Builder()
                    .setCombined(true)
                    .setNumBrokerNodes(1)
                    .setNumControllerNodes(1)
                    .build())
            .setConfigProp("offsets.topic.replication.factor", "1")
            .setConfigProp("offsets.topic.num.partitions", "1")
            .setConfigProp("transaction.state.log.replication.factor", "1")
            .setConfigProp("transaction.state.log.min.isr", "1")
            .setConfigProp("share.coordinator.state.topic.replication.factor", "1")
            .setConfigProp("share.coordinator.state.topic.min.isr", "1")
            .build();
    kafka.format();
    kafka.startup();
    kafka.waitForReadyBrokers();
    return new KafkaBroker(kafka);
  }

  String bootstrapServers() {
    return kafka.bootstrapServers();
  }

  void createTopic(String name, int partitions) throws Exception {
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get();
    }
  }

  /** A producer of string keys and values that waits for all replicas. */
  KafkaProducer<String, String> producer() {
    return new KafkaProducer<>(
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrapServers(),
            ProducerConfig.ACKS_CONFIG,
            "all",
            ProducerConfig.LINGER_MS_CONFIG,
            "5"),
        new StringSerializer(),
        new StringSerializer());
  }

  @Override
  public void close() throws Exception {
    kafka.close();
  }

  /**
   * One broker for a test class ({@code @RegisterExtension static final}): started before its first
   * test, closed after its last.
   */
  static final class PerClass implements BeforeAllCallback, AfterAllCallback {
    private KafkaBroker broker;

    KafkaBroker broker() {
      return broker;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
      broker = start();
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
      if (broker != null) {
        broker.close();
      }
    }
  }
}
