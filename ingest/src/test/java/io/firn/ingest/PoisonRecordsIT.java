package io.firn.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
import org.apache.iceberg.types.Types;
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
 * Issue 15, item 1: one poison record must not stop the job. A corpus of change events that no
 * table can take, mixed into good ones for new and existing tables, is read from a real KRaft
 * broker by one job that may not restart; every poison event lands in the dead-letter table with
 * its reason, and every table holds exactly the rows of the good events.
 */
class PoisonRecordsIT {
  private static final String TOPIC = "poison";

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
  void poisonEventsAreDeadLetteredWhileEveryGoodRecordIsCommitted(
      @InjectMiniCluster MiniCluster cluster) throws Exception {
    Corpus backlog = new Corpus();
    // The case: a create for a table not created yet, whose key is 1.5.
    backlog.poison("invalid_key", "key field 'id' of 'after' = 1.5", c("orders", "{\"id\":1.5}"));
    backlog.good(c("orders", "{\"id\":1,\"name\":\"first\",\"amount\":10.5}"));
    backlog.good(c("orders", "{\"id\":2,\"name\":\"second\",\"amount\":3}"));
    Corpus live = new Corpus();
    live.good(c("orders", "{\"id\":3,\"name\":\"third\",\"amount\":1}"));

    kafka.createTopic(TOPIC, 2);
    IngestConfig config = config();
    Catalog catalog = IngestJob.catalogLoader(config.catalog()).loadCatalog();
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(2);
    // A record-caused failure must not restart the job: any failure fails it (checked below).
    Configuration noRestarts = new Configuration();
    noRestarts.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    env.configure(noRestarts);
    IngestJob.build(env, config);

    List<Tuple> deadLetters = new ArrayList<>();
    Map<Tuple, String> details = new LinkedHashMap<>();
    try (KafkaProducer<String, String> producer = kafka.producer()) {
      backlog.produce(producer, deadLetters, details);
      JobClient job = env.executeAsync("poison-records-it");
      try {
        live.produce(producer, deadLetters, details);
        List<String> good = new ArrayList<>(backlog.good);
        good.addAll(live.good);
        Map<String, Map<Long, JsonNode>> expected = reference(good);
        await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(500))
            .ignoreExceptions()
            .untilAsserted(() -> assertLanded(catalog, expected, deadLetters));

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
  }

  /** Events to produce, in order, keyed by their table, and what each must become. */
  private static final class Corpus {
    private final List<String> payloads = new ArrayList<>();
    private final List<String> keys = new ArrayList<>();
    private final List<String[]> poisons = new ArrayList<>();
    final List<String> good = new ArrayList<>();

    void good(Event event) {
      payloads.add(event.payload());
      keys.add(event.table());
      poisons.add(null);
      good.add(event.payload());
    }

    /**
     * An event the job must dead-letter with {@code reason} and a detail containing {@code detail}.
     */
    void poison(String reason, String detail, Event event) {
      poison(reason, detail, event.table(), event.payload());
    }

    void poison(String reason, String detail, String key, String payload) {
      payloads.add(payload);
      keys.add(key);
      poisons.add(new String[] {reason, detail});
    }

    void produce(
        KafkaProducer<String, String> producer, List<Tuple> deadLetters, Map<Tuple, String> details)
        throws Exception {
      for (int i = 0; i < payloads.size(); i++) {
        RecordMetadata sent =
            producer.send(new ProducerRecord<>(TOPIC, keys.get(i), payloads.get(i))).get();
        String[] poison = poisons.get(i);
        if (poison != null) {
          Tuple letter =
              tuple(
                  poison[0],
                  payloads.get(i),
                  sent.topic() + "/" + sent.partition() + "/" + sent.offset());
          deadLetters.add(letter);
          details.put(letter, poison[1]);
        }
      }
    }
  }

  /** A change event of {@code table} (its Kafka key: a table's events stay in order). */
  private record Event(String table, String payload) {}

  private static Event c(String table, String after) {
    return change(table, "c", null, after);
  }

  private static Event change(String table, String op, String before, String after) {
    return new Event(
        table,
        "{\"op\":\""
            + op
            + "\",\"before\":"
            + before
            + ",\"after\":"
            + after
            + ",\"source\":{\"db\":\"shop\",\"table\":\""
            + table
            + "\"}}");
  }

  /** Per table, the last after image per key of the good events (deletes remove the key). */
  private static Map<String, Map<Long, JsonNode>> reference(List<String> good) throws Exception {
    ObjectMapper mapper = new ObjectMapper();
    Map<String, Map<Long, JsonNode>> tables = new LinkedHashMap<>();
    for (String payload : good) {
      JsonNode event = mapper.readTree(payload);
      Map<Long, JsonNode> rows =
          tables.computeIfAbsent(
              event.path("source").path("table").asText(), t -> new LinkedHashMap<>());
      JsonNode before = event.get("before");
      JsonNode after = event.get("after");
      if (before != null && before.isObject()) {
        rows.remove(before.get("id").longValue());
      }
      if (!"d".equals(event.get("op").asText())) {
        rows.put(after.get("id").longValue(), after);
      }
    }
    return tables;
  }

  private static void assertLanded(
      Catalog catalog, Map<String, Map<Long, JsonNode>> expected, List<Tuple> deadLetters)
      throws Exception {
    for (Map.Entry<String, Map<Long, JsonNode>> rows : expected.entrySet()) {
      Table table = catalog.loadTable(TableIdentifier.of("events", rows.getKey()));
      List<List<Object>> wanted = new ArrayList<>();
      for (JsonNode image : rows.getValue().values()) {
        wanted.add(row(table, image));
      }
      List<List<Object>> actual = new ArrayList<>();
      for (Record record : IngestJobIT.readAll(table)) {
        List<Object> values = new ArrayList<>();
        for (Types.NestedField column : table.schema().columns()) {
          Object value = record.getField(column.name());
          values.add(value instanceof OffsetDateTime time ? time.toInstant() : value);
        }
        actual.add(values);
      }
      assertThat(actual)
          .as(rows.getKey() + " holds the last good image per key, once")
          .containsExactlyInAnyOrderElementsOf(wanted);
    }
    assertThat(IngestJobIT.readAll(catalog.loadTable(TableIdentifier.of("events", "dead_letters"))))
        .extracting(
            r -> r.getField("reason"),
            r -> r.getField("payload"),
            r -> r.getField("source_position"))
        .containsExactlyInAnyOrderElementsOf(deadLetters);
  }

  /** {@code image} in {@code table}'s columns, as Iceberg's generic reader returns them. */
  private static List<Object> row(Table table, JsonNode image) {
    List<Object> row = new ArrayList<>();
    for (Types.NestedField column : table.schema().columns()) {
      JsonNode value = image.get(column.name());
      if (value == null || value.isNull()) {
        row.add(null);
        continue;
      }
      switch (column.type().typeId()) {
        case LONG -> row.add(value.longValue());
        case DOUBLE -> row.add(value.doubleValue());
        case BOOLEAN -> row.add(value.booleanValue());
        case TIMESTAMP ->
            row.add(
                value.isNumber()
                    ? Instant.ofEpochMilli(value.longValue())
                    : OffsetDateTime.parse(value.asText()).toInstant());
        default -> row.add(value.isContainerNode() ? value.toString() : value.asText());
      }
    }
    return row;
  }

  private IngestConfig config() {
    return IngestConfigParser.parse(
        String.join(
            "\n",
            "source:",
            "  type: kafka",
            "  bootstrap-servers: '" + kafka.bootstrapServers() + "'",
            "  topics: " + TOPIC,
            "  group-id: firn-poison-it",
            "  starting-offsets: earliest",
            "  parallelism: 2",
            "format: debezium",
            "catalog:",
            "  uri: 'jdbc:sqlite:" + dir.resolve("catalog.db") + "'",
            "  warehouse: '" + dir.resolve("warehouse") + "'",
            "tables:",
            "  - match: orders",
            "    timestamp-fields: [paid_at]",
            "  - match: accounts",
            "    partition-candidates: ['bucket(4, id)']",
            "  - match: ledger",
            "    partition-candidates: ['bucket(4, id)']",
            "checkpoint-interval: 300ms",
            ""),
        "poison-it.yaml");
  }
}
