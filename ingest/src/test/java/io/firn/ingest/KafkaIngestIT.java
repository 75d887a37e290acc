/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
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
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ingest job reading a real KRaft broker started by the test (CONTRIBUTING.md, "Tests"; {@link
 * KafkaBroker}).
 */
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

  private static KafkaBroker kafka;

  @TempDir Path dir;

  @BeforeAll
  static void startBroker() throws Exception {
    kafka = KafkaBroker.start();
  }

  @AfterAll
  static void stopBroker() throws Exception {
    if (kafka != null) {
      kafka.close();
    }
  }

  @Test
  void eventsFromKafkaLandOnceAndBadOnesAreDeadLetteredWithTopicPartitionOffset() throws Exception {
    kafka.createTopic(TOPIC, 2);
    List<String> good = new ArrayList<>();
    List<Tuple> bad = new ArrayList<>();
    // The job as `IngestJob --config FILE` builds it.
    IngestConfig config = config(TOPIC, "json");
    CatalogLoader loader = IngestJob.catalogLoader(config.catalog());
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(2);
    IngestJob.build(env, config);

    try (KafkaProducer<String, String> producer = kafka.producer()) {
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

  /**
   * Issue 6's acceptance: one job (never restarted) reads a stream of three event types that
   * switches from v1 to v2 payloads and gains a fourth type while the job runs; four tables hold
   * exactly the reference rows, the v2 columns null where a row's last event was v1.
   */
  @Test
  void aStreamSwitchingToV2AndGainingAFourthTypeLandsInFourTablesWithoutRestart(
      @InjectMiniCluster MiniCluster cluster) throws Exception {
    EventStream.Settings settings = EventStream.Settings.of(11, 1_000, 1_800, EventFormat.JSON);
    Map<String, Map<Object, Map<String, Object>>> expected =
        EventStream.expectedRows(settings, 2_400);
    Catalog catalog = ingestWithoutRestart(cluster, "stream-events", settings, 2_400, 600);

    Map<String, List<String>> newColumns =
        Map.of(
            "order_events", List.of("coupon_code"),
            "interaction_events", List.of("user_agent", "scroll_depth"),
            "user_events", List.of("loyalty_tier"));
    for (Map.Entry<String, List<String>> table : newColumns.entrySet()) {
      Table loaded = catalog.loadTable(TableIdentifier.of("events", table.getKey()));
      for (String column : table.getValue()) {
        assertThat(loaded.schema().findField(column))
            .as(table.getKey() + "." + column + " added mid-run")
            .isNotNull();
        long v1Rows =
            expected.get(table.getKey()).values().stream()
                .filter(row -> !row.containsKey(column))
                .count();
        long nulls =
            IngestJobIT.readAll(loaded).stream().filter(r -> r.getField(column) == null).count();
        assertThat(nulls)
            .as(table.getKey() + "." + column + " is null in rows whose last event was v1")
            .isEqualTo(v1Rows)
            .isPositive()
            .isLessThan(expected.get(table.getKey()).size());
      }
    }
  }

  /**
   * The change-event rendering of the same stream: deletes of committed rows become equality
   * deletes and deleted keys are gone.
   */
  @Test
  void changeEventsOfTheStreamLeaveTheReferenceRows(@InjectMiniCluster MiniCluster cluster)
      throws Exception {
    EventStream.Settings settings = EventStream.Settings.of(12, 400, 800, EventFormat.DEBEZIUM);
    Catalog catalog = ingestWithoutRestart(cluster, "stream-changes", settings, 1_200, 300);

    long deletes = 0;
    EventStream stream = new EventStream(settings);
    for (long i = 0; i < 1_200; i++) {
      deletes += "d".equals(stream.at(i).op()) ? 1 : 0;
    }
    assertThat(deletes).as("the stream deletes keys").isGreaterThan(10);
    long equalityDeletes = 0;
    for (String table : EventStream.TABLES) {
      Map<String, String> summary =
          catalog.loadTable(TableIdentifier.of("events", table)).currentSnapshot().summary();
      equalityDeletes += Long.parseLong(summary.getOrDefault("total-equality-deletes", "0"));
    }
    assertThat(equalityDeletes).as("deletes of committed rows are equality deletes").isPositive();
  }

  /**
   * Produces events {@code 0..backlog-1} of {@code settings}' stream to a new 2-partition topic,
   * keyed by the primary key, starts one job on it (restarts disabled) with two source subtasks,
   * one per partition, so that two routers write every table and each widens its schema on its own
   * (ADR 0008 §2), waits until it committed {@code user_events}, produces the rest while it runs,
   * waits until all four tables hold exactly the reference rows and checks that no task ever
   * restarted. The job is cancelled before returning.
   *
   * @return the job's catalog
   */
  private Catalog ingestWithoutRestart(
      MiniCluster cluster, String topic, EventStream.Settings settings, long total, long backlog)
      throws Exception {
    kafka.createTopic(topic, 2);
    EventStream stream = new EventStream(settings);
    Map<String, Map<Object, Map<String, Object>>> expected =
        EventStream.expectedRows(settings, total);
    assertThat(expected).containsOnlyKeys(EventStream.TABLES);
    assertThat(settings.newTypeFrom()).isGreaterThan(backlog);

    IngestConfig config = config(topic, settings.format().configName(), 2);
    Catalog catalog = IngestJob.catalogLoader(config.catalog()).loadCatalog();
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(2);
    // Any failure fails the job instead of restarting it (checked again below).
    Configuration noRestarts = new Configuration();
    noRestarts.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    env.configure(noRestarts);
    IngestJob.build(env, config);

    try (KafkaProducer<String, String> producer = kafka.producer()) {
      produce(producer, topic, stream, 0, backlog);
      JobClient job = env.executeAsync("kafka-stream-it");
      try {
        // The first tables are committed by the running job before the fourth type arrives.
        await()
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(200))
            .until(() -> catalog.tableExists(TableIdentifier.of("events", "user_events")));
        assertThat(catalog.tableExists(TableIdentifier.of("events", "payment_events"))).isFalse();
        for (long from = backlog; from < total; from += 150) {
          produce(producer, topic, stream, from, Math.min(total, from + 150));
          Thread.sleep(150);
        }
        await()
            .atMost(Duration.ofSeconds(40))
            .pollInterval(Duration.ofMillis(500))
            .ignoreExceptions()
            .untilAsserted(() -> assertReferenceRows(catalog, expected));

        assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
        assertThat(cluster.getExecutionGraph(job.getJobID()).get().getAllExecutionVertices())
            .as("no task ever restarted: every task runs its first attempt")
            .allSatisfy(
                vertex ->
                    assertThat(vertex.getCurrentExecutionAttempt().getAttemptNumber()).isZero());
      } finally {
        job.cancel().get();
      }
    }
    return catalog;
  }

  /** Every table of {@code expected} holds exactly its rows (a multiset: no duplicates). */
  static void assertReferenceRows(
      Catalog catalog, Map<String, Map<Object, Map<String, Object>>> expected) throws Exception {
    for (Map.Entry<String, Map<Object, Map<String, Object>>> rows : expected.entrySet()) {
      Table table = catalog.loadTable(TableIdentifier.of("events", rows.getKey()));
      List<List<Object>> wanted = new ArrayList<>();
      for (Map<String, Object> row : rows.getValue().values()) {
        List<Object> values = new ArrayList<>();
        table.schema().columns().forEach(column -> values.add(row.get(column.name())));
        wanted.add(values);
      }
      assertThat(IngestJobIT.readRows(table))
          .as(rows.getKey() + " holds the reference rows")
          .containsExactlyInAnyOrderElementsOf(wanted);
    }
  }

  /** Sends events {@code from..to-1} of {@code stream}, keyed by the key they change. */
  private static void produce(
      KafkaProducer<String, String> producer, String topic, EventStream stream, long from, long to)
      throws Exception {
    for (long i = from; i < to; i++) {
      EventStream.Event event = stream.at(i);
      producer.send(
          new ProducerRecord<>(
              topic, event.key() == null ? null : event.key().toString(), event.payload()));
    }
    producer.flush();
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

  /** The job as {@code IngestJob --config FILE} builds it from {@code topic}, from the start. */
  private IngestConfig config(String topic, String format) {
    return config(topic, format, 1);
  }

  private IngestConfig config(String topic, String format, int sourceParallelism) {
    return IngestConfigParser.parse(
        String.join(
            "\n",
            "source:",
            "  type: kafka",
            "  bootstrap-servers: '" + kafka.bootstrapServers() + "'",
            "  topics: " + topic,
            "  group-id: firn-ingest-it",
            "  starting-offsets: earliest",
            "  parallelism: " + sourceParallelism,
            "format: " + format,
            "catalog:",
            "  uri: 'jdbc:sqlite:" + dir.resolve("catalog.db") + "'",
            "  warehouse: '" + dir.resolve("warehouse") + "'",
            "checkpoint-interval: 300ms",
            ""),
        "kafka-it.yaml");
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
