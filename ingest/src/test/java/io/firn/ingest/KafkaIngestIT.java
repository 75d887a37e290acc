package io.firn.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The ingest job reading a real KRaft broker started by the test (DESIGN.md §6). */
class KafkaIngestIT {
  private static final String TOPIC = "events";
  private static final long EVENTS = 240;

  @RegisterExtension
  static final MiniClusterExtension CLUSTER =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(4)
              .build());

  private static KafkaClusterTestKit kafka;

  @TempDir Path dir;

  @BeforeAll
  static void startBroker() throws Exception {
    kafka =
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
  }

  @AfterAll
  static void stopBroker() throws Exception {
    if (kafka != null) {
      kafka.close();
    }
  }

  @Test
  void eventsFromKafkaLandOnceAndBadOnesAreDeadLetteredWithTopicPartitionOffset() throws Exception {
    try (Admin admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1))).all().get();
    }
    List<String> good = new ArrayList<>();
    List<Tuple> bad = new ArrayList<>();
    // The job as `IngestJob --config FILE` builds it.
    IngestConfig config =
        IngestConfigParser.parse(
            String.join(
                "\n",
                "source:",
                "  type: kafka",
                "  bootstrap-servers: '" + kafka.bootstrapServers() + "'",
                "  topics: " + TOPIC,
                "  group-id: firn-ingest-it",
                "  starting-offsets: earliest",
                "catalog:",
                "  uri: 'jdbc:sqlite:" + dir.resolve("catalog.db") + "'",
                "  warehouse: '" + dir.resolve("warehouse") + "'",
                "checkpoint-interval: 300ms",
                ""),
            "kafka-it.yaml");
    CatalogLoader loader = IngestJob.catalogLoader(config.catalog());
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(2);
    IngestJob.build(env, config);

    try (KafkaProducer<String, String> producer = producer()) {
      // Half before the job starts (read as a backlog), half while it runs.
      produce(producer, 0, EVENTS / 2, good, bad);
      JobClient job = env.executeAsync("kafka-ingest-it");
      try {
        produce(producer, EVENTS / 2, EVENTS, good, bad);
        Catalog catalog = loader.loadCatalog();
        Map<String, Map<Object, JsonNode>> expected = IngestJobIT.latestPerKey(good);
        await()
            .atMost(Duration.ofMinutes(2))
            .pollInterval(Duration.ofMillis(500))
            .ignoreExceptions()
            .untilAsserted(() -> assertLanded(catalog, expected, bad));
        // One more commit after the rows matched: a late duplicate would show now.
        long snapshots =
            snapshotCount(catalog.loadTable(TableIdentifier.of("events", "order_events")));
        produce(producer, EVENTS, EVENTS + 2, good, bad);
        Map<String, Map<Object, JsonNode>> after = IngestJobIT.latestPerKey(good);
        await()
            .atMost(Duration.ofMinutes(1))
            .pollInterval(Duration.ofMillis(500))
            .ignoreExceptions()
            .untilAsserted(() -> assertLanded(catalog, after, bad));
        assertThat(snapshotCount(catalog.loadTable(TableIdentifier.of("events", "order_events"))))
            .isGreaterThan(snapshots);
      } finally {
        job.cancel().get();
      }
    }
  }

  private static long snapshotCount(Table table) {
    long count = 0;
    for (var ignored : table.snapshots()) {
      count++;
    }
    return count;
  }

  private static void assertLanded(
      Catalog catalog, Map<String, Map<Object, JsonNode>> expected, List<Tuple> bad)
      throws Exception {
    for (Map.Entry<String, Map<Object, JsonNode>> tableRows : expected.entrySet()) {
      Table table = catalog.loadTable(TableIdentifier.of("events", tableRows.getKey()));
      List<List<Object>> wanted = new ArrayList<>();
      for (JsonNode event : tableRows.getValue().values()) {
        wanted.add(IngestJobIT.toRow(table, event));
      }
      assertThat(IngestJobIT.readRows(table))
          .as(tableRows.getKey() + " holds the last event per key, once")
          .containsExactlyInAnyOrderElementsOf(wanted);
    }
    List<Record> letters =
        IngestJobIT.readAll(catalog.loadTable(TableIdentifier.of("events", "dead_letters")));
    assertThat(letters)
        .extracting(
            r -> r.getField("reason"),
            r -> r.getField("payload"),
            r -> r.getField("source_position"))
        .containsExactlyInAnyOrderElementsOf(bad);
  }

  private static KafkaProducer<String, String> producer() {
    return new KafkaProducer<>(
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            kafka.bootstrapServers(),
            ProducerConfig.ACKS_CONFIG,
            "all",
            ProducerConfig.LINGER_MS_CONFIG,
            "5"),
        new StringSerializer(),
        new StringSerializer());
  }

  /**
   * Sends events {@code from..to-1} of {@link SampleEvents} (each key to one partition, like a
   * keyed producer would) and notes what must land where.
   */
  private static void produce(
      KafkaProducer<String, String> producer,
      long from,
      long to,
      List<String> good,
      List<Tuple> bad)
      throws Exception {
    ObjectMapper mapper = new ObjectMapper();
    for (long i = from; i < to; i++) {
      String event = SampleEvents.event(i, EVENTS);
      String key = null;
      try {
        JsonNode id = mapper.readTree(event).get("id");
        key = id == null ? null : id.asText();
      } catch (java.io.IOException unparseable) {
        // no key: any partition
      }
      RecordMetadata sent = producer.send(new ProducerRecord<>(TOPIC, key, event)).get();
      if (i == SampleEvents.malformedIndex(EVENTS)) {
        bad.add(tuple("unparseable_json", event, position(sent)));
      } else if (i == SampleEvents.missingKeyIndex(EVENTS)) {
        bad.add(tuple("missing_key", event, position(sent)));
      } else {
        good.add(event);
      }
    }
  }

  private static String position(RecordMetadata sent) {
    return sent.topic() + "/" + sent.partition() + "/" + sent.offset();
  }
}
