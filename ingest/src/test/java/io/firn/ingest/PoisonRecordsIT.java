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
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
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
    // Read as a backlog when the job starts: orders, coupons and ledger do not exist yet.
    Corpus backlog = new Corpus();
    // The case: a create for a table not created yet, whose key is 1.5.
    backlog.poison("invalid_key", "key field 'id' of 'after' = 1.5", c("orders", "{\"id\":1.5}"));
    backlog.poison("invalid_key", "= true must be", c("orders", "{\"id\":true}"));
    backlog.poison(
        "invalid_key",
        "= 123456789012345678901234567890 must be",
        c("orders", "{\"id\":123456789012345678901234567890}"));
    backlog.poison("invalid_key", "= 1.0E10 must be", c("orders", "{\"id\":1e10}"));
    backlog.poison(
        "missing_key", "key field 'id' of 'after' is null", c("orders", "{\"id\":null}"));
    backlog.poison(
        "invalid_field_name",
        "field 'Code' of events.coupons differs only by case from field 'code'",
        c("coupons", "{\"id\":1,\"code\":\"A\",\"Code\":\"B\"}"));
    // Iceberg refuses the new table's spec: bucket(4, id) is named like the column id_bucket.
    backlog.poison(
        "table_change_refused",
        "Iceberg refused to derive the partition spec of events.ledger: Cannot create partition"
            + " from name that exists in schema: id_bucket",
        c("ledger", "{\"id\":1,\"id_bucket\":3,\"amount\":5}"));
    // Later good events create the tables the poison events could not.
    backlog.good(
        c(
            "orders",
            "{\"id\":1,\"name\":\"first\",\"amount\":10.5,\"note\":{\"gift\":true},"
                + "\"paid_at\":\"2026-11-29T10:00:00Z\"}"));
    backlog.good(
        c(
            "orders",
            "{\"id\":2,\"name\":\"second\",\"amount\":3,"
                + "\"paid_at\":\"2026-11-29T11:00:00+01:00\"}"));
    backlog.good(c("coupons", "{\"id\":1,\"code\":\"A\"}"));
    backlog.good(c("ledger", "{\"id\":1,\"amount\":5}"));
    backlog.good(c("ledger", "{\"id\":2,\"amount\":7}"));
    backlog.poison(
        "invalid_table_name", "source.table = 'Bad-Name' must match", c("Bad-Name", "{\"id\":1}"));
    backlog.poison(
        "invalid_table_name",
        "source.table = 'dead_letters' must match",
        c("dead_letters", "{\"id\":1}"));
    backlog.poison(
        "unparseable_json",
        "nesting depth",
        c("orders", "{\"id\":3,\"deep\":" + nested(1_000) + "}"));
    backlog.good(c("orders", "{\"id\":3,\"name\":\"deep\",\"deep\":" + nested(200) + "}"));
    backlog.poison(
        "invalid_field_name",
        "field 'Name' of events.orders differs only by case from column 'name'",
        u("orders", null, "{\"id\":1,\"name\":\"first\",\"Name\":\"shadow\"}"));
    backlog.poison(
        "invalid_field_name",
        "field '' of events.orders is empty or blank",
        c("orders", "{\"id\":4,\"\":\"empty\"}"));
    backlog.poison(
        "invalid_field_name",
        "field ' ' of events.orders is empty or blank",
        c("orders", "{\"id\":4,\" \":\"blank\"}"));
    backlog.poison(
        "invalid_field_name",
        "field '_pos' of events.orders is the name of an Iceberg metadata column",
        c("orders", "{\"id\":4,\"_pos\":7}"));
    backlog.good(c("orders", "{\"id\":4,\"name\":\"fourth\",\"amount\":1}"));
    // profiles: nested values as struct and list columns (ADR 0008 §15), and nested poison.
    backlog.good(
        c(
            "profiles",
            "{\"id\":1,\"prefs\":{\"lang\":\"en\",\"tags\":[\"a\",\"b\"]},\"scores\":[1,2]}"));
    backlog.poison(
        "schema_limit_exceeded",
        "field 'prefs.x' of events.profiles nests objects and arrays deeper than 16 levels",
        c("profiles", "{\"id\":2,\"prefs\":{\"x\":" + nested(16) + "}}"));
    backlog.poison(
        "incompatible_type",
        "field 'scores' = \"two\" (STRING) does not fit type long of events.profiles",
        c("profiles", "{\"id\":2,\"scores\":[1,\"two\"]}"));
    backlog.poison(
        "incompatible_type",
        "field 'mixed' = 1 mixes boolean and number values",
        c("profiles", "{\"id\":2,\"mixed\":[true,1]}"));
    backlog.poison(
        "incompatible_type",
        "field 'prefs' = \"en\" (STRING) does not fit type struct<",
        c("profiles", "{\"id\":2,\"prefs\":\"en\"}"));
    backlog.poison(
        "invalid_field_name",
        "field 'prefs.Lang' of events.profiles differs only by case from field 'lang'",
        c("profiles", "{\"id\":2,\"prefs\":{\"Lang\":\"de\"}}"));
    backlog.poison(
        "invalid_field_name",
        "field 'prefs.a.b' of events.profiles has a '.' in its name",
        c("profiles", "{\"id\":2,\"prefs\":{\"a.b\":1}}"));
    backlog.poison(
        "invalid_field_name",
        "field 'prefs.' of events.profiles is empty or blank",
        c("profiles", "{\"id\":2,\"prefs\":{\"\":1}}"));
    backlog.poison(
        "invalid_key",
        "key field 'id' of 'after' = {\"n\":2}",
        c("profiles", "{\"id\":{\"n\":2}}"));

    // Produced while the job runs: accounts and legacy exist before the job starts.
    Corpus live = new Corpus();
    live.poison(
        "incompatible_type",
        "field 'amount' = \"ten\" (STRING) does not fit column type double of events.orders",
        u("orders", null, "{\"id\":2,\"amount\":\"ten\"}"));
    live.poison(
        "incompatible_type",
        "field 'note' = 5 (NUMBER) does not fit column type string of events.orders",
        u("orders", null, "{\"id\":2,\"note\":5}"));
    live.poison(
        "incompatible_type",
        "field 'paid_at' = \"+999999999-12-31T23:59:59Z\" (STRING) does not fit column type"
            + " timestamptz",
        u("orders", null, "{\"id\":2,\"paid_at\":\"+999999999-12-31T23:59:59Z\"}"));
    live.poison(
        "incompatible_type",
        "field 'paid_at' = 9000000000000000000 (NUMBER) does not fit column type timestamptz",
        u("orders", null, "{\"id\":2,\"paid_at\":9000000000000000000}"));
    live.poison("invalid_key", "= 2.5 must be", u("orders", null, "{\"id\":2.5}"));
    live.poison("missing_key", "of 'after' is null", u("orders", null, "{\"id\":null}"));
    live.poison(
        "invalid_key",
        "key field 'id' of 'before' = 1.5",
        change("orders", "d", "{\"id\":1.5}", null));
    live.poison(
        "truncate_not_applied",
        "CDC op 't' (truncate of source table 'orders') is not applied",
        "orders",
        "{\"op\":\"t\",\"source\":{\"table\":\"orders\"}}");
    live.poison("unparseable_json", "not JSON", "orders", "{\"op\":\"c\",\"after\":");
    // accounts: created before the job (bucket(4, id), as its rule says).
    live.poison(
        "table_change_refused",
        "Iceberg refused to derive the partition spec of events.accounts: Cannot create partition"
            + " from name that exists in schema: id_bucket",
        c("accounts", "{\"id\":1,\"id_bucket\":1}"));
    live.poison("invalid_key", "= 1.5 must be", c("accounts", "{\"id\":1.5}"));
    live.poison(
        "invalid_key",
        "= 99999999999999999999 must be",
        c("accounts", "{\"id\":99999999999999999999}"));
    live.poison(
        "incompatible_type",
        "field 'id' = \"abc\" (STRING) does not fit column type long of events.accounts",
        c("accounts", "{\"id\":\"abc\",\"name\":\"x\"}"));
    live.poison(
        "missing_key",
        "key field 'id' of 'after' is absent",
        c("accounts", "{\"name\":\"nobody\"}"));
    live.good(c("accounts", "{\"id\":1,\"name\":\"ann\"}"));
    live.good(c("accounts", "{\"id\":2,\"name\":\"bob\",\"tier\":\"gold\"}"));
    // legacy: created before the job, bucketed by id, under the default rule (no candidates):
    // Iceberg refuses the schema change itself.
    live.poison(
        "table_change_refused",
        "Iceberg refused to evolve events.legacy: Cannot create identity partition sourced from"
            + " different field in schema: id_bucket",
        u("legacy", null, "{\"id\":1,\"id_bucket\":9}"));
    live.good(c("legacy", "{\"id\":1,\"label\":\"L1\"}"));
    live.good(u("legacy", null, "{\"id\":1,\"label\":\"L1b\",\"extra\":true}"));
    live.good(c("legacy", "{\"id\":2,\"label\":\"L2\"}"));
    // A key change 1 -> 5; one whose new row is refused deletes nothing.
    live.good(u("orders", "{\"id\":1}", "{\"id\":5,\"name\":\"renumbered\",\"amount\":11}"));
    live.poison(
        "incompatible_type",
        "field 'amount' = \"bad\" (STRING)",
        u("orders", "{\"id\":3}", "{\"id\":6,\"amount\":\"bad\"}"));
    live.good(change("orders", "d", "{\"id\":4}", null));
    live.good(
        u(
            "orders",
            null,
            "{\"id\":2,\"name\":\"second v2\",\"amount\":4,\"paid_at\":1764410400000}"));
    live.poison(
        "table_change_refused",
        "Iceberg refused to derive the partition spec of events.ledger",
        c("ledger", "{\"id\":3,\"id_bucket\":1}"));
    live.good(c("ledger", "{\"id\":3,\"amount\":9,\"memo\":\"late column\"}"));
    live.poison("invalid_key", "= 1.5 must be", c("coupons", "{\"id\":1.5,\"code\":\"Z\"}"));
    live.poison("invalid_key", "= false must be", c("coupons", "{\"id\":false}"));
    live.poison(
        "invalid_field_name",
        "field 'CODE' of events.coupons differs only by case from column 'code'",
        u("coupons", null, "{\"id\":2,\"code\":\"B\",\"CODE\":\"c\"}"));
    live.good(u("coupons", null, "{\"id\":1,\"code\":\"A2\"}"));
    live.good(c("coupons", "{\"id\":2,\"code\":\"B\"}"));
    // A nested field added mid-stream; an empty list.
    live.good(
        u(
            "profiles",
            null,
            "{\"id\":1,\"prefs\":{\"lang\":\"de\",\"theme\":\"dark\",\"tags\":[]},\"scores\":[3]}"));
    live.good(c("profiles", "{\"id\":2,\"prefs\":{\"lang\":\"fr\"}}"));
    // The last events of two tables: good records still flow after every poison.
    live.good(c("orders", "{\"id\":7,\"name\":\"last\"}"));
    live.good(c("accounts", "{\"id\":3,\"name\":\"cy\"}"));

    kafka.createTopic(TOPIC, 2);
    IngestConfig config = config();
    Catalog catalog = IngestJob.catalogLoader(config.catalog()).loadCatalog();
    createBucketedTable(catalog, "accounts", "name");
    createBucketedTable(catalog, "legacy", "label");
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
            .untilAsserted(() -> assertLanded(catalog, expected, deadLetters, details));

        // No column, spec or key of a poison event reached a table.
        Map<String, List<String>> columns =
            Map.of(
                "orders", List.of("id", "name", "amount", "note", "paid_at", "deep"),
                "coupons", List.of("id", "code"),
                "ledger", List.of("id", "amount", "memo"),
                "accounts", List.of("id", "name", "tier"),
                "legacy", List.of("id", "label", "extra"),
                "profiles", List.of("id", "prefs", "scores"));
        assertThat(expected).containsOnlyKeys(columns.keySet());
        for (Map.Entry<String, List<String>> table : columns.entrySet()) {
          Table loaded = catalog.loadTable(TableIdentifier.of("events", table.getKey()));
          assertThat(loaded.schema().columns())
              .as(table.getKey() + "'s columns")
              .extracting(Types.NestedField::name)
              .containsExactlyElementsOf(table.getValue());
          assertThat(loaded.schema().identifierFieldNames()).containsExactly("id");
          assertThat(loaded.schema().findType("id")).isEqualTo(Types.LongType.get());
        }
        for (String bucketed : List.of("ledger", "accounts", "legacy")) {
          Table loaded = catalog.loadTable(TableIdentifier.of("events", bucketed));
          assertThat(loaded.specs()).as(bucketed + " keeps its one spec").hasSize(1);
          assertThat(loaded.spec().fields())
              .extracting(f -> f.transform().toString(), PartitionField::name)
              .containsExactly(tuple("bucket[4]", "id_bucket"));
        }
        assertThat(catalog.listTables(Namespace.of("events")))
            .as("no table for a refused name")
            .extracting(TableIdentifier::name)
            .containsExactlyInAnyOrder(
                "orders", "coupons", "ledger", "accounts", "legacy", "profiles", "dead_letters");
        assertThat(
                catalog
                    .loadTable(TableIdentifier.of("events", "profiles"))
                    .schema()
                    .findType("prefs")
                    .asStructType()
                    .fields())
            .extracting(Types.NestedField::name)
            .as("the nested field a later event brought")
            .containsExactly("lang", "tags", "theme");
        assertThat(expected.get("orders")).containsOnlyKeys(2L, 3L, 5L, 7L);
        assertThat(expected.get("orders").get(2L).has("note"))
            .as("order 2's last image has no note: its row holds null there")
            .isFalse();

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

  private static Event u(String table, String before, String after) {
    return change(table, "u", before, after);
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
      Catalog catalog,
      Map<String, Map<Long, JsonNode>> expected,
      List<Tuple> deadLetters,
      Map<Tuple, String> details)
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
          values.add(
              value instanceof OffsetDateTime time
                  ? time.toInstant()
                  : column.type().isNestedType() ? PlainValues.of(value) : value);
        }
        actual.add(values);
      }
      assertThat(actual)
          .as(rows.getKey() + " holds the last good image per key, once")
          .containsExactlyInAnyOrderElementsOf(wanted);
    }
    List<Record> letters =
        IngestJobIT.readAll(catalog.loadTable(TableIdentifier.of("events", "dead_letters")));
    assertThat(letters)
        .extracting(
            r -> r.getField("reason"),
            r -> r.getField("payload"),
            r -> r.getField("source_position"))
        .as("each poison event once, with its reason and position")
        .containsExactlyInAnyOrderElementsOf(deadLetters);
    for (Record letter : letters) {
      Tuple key =
          tuple(
              letter.getField("reason"),
              letter.getField("payload"),
              letter.getField("source_position"));
      assertThat((String) letter.getField("detail"))
          .as("detail of " + key)
          .contains(details.get(key));
    }
  }

  /** An existing upsert table {@code id, column}, bucketed by id, without rows. */
  private static void createBucketedTable(Catalog catalog, String name, String column) {
    if (catalog instanceof SupportsNamespaces namespaces
        && !namespaces.namespaceExists(Namespace.of("events"))) {
      namespaces.createNamespace(Namespace.of("events"));
    }
    Schema schema =
        new Schema(
            List.of(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, column, Types.StringType.get())),
            Set.of(1));
    catalog
        .buildTable(TableIdentifier.of("events", name), schema)
        .withPartitionSpec(PartitionSpec.builderFor(schema).bucket("id", 4).build())
        .withProperty("format-version", "2")
        .create();
  }

  /** {@code depth} nested JSON arrays around a 1. */
  private static String nested(int depth) {
    return "[".repeat(depth) + "1" + "]".repeat(depth);
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
        case STRUCT, LIST, MAP -> row.add(PlainValues.of(value));
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
            "    nested: json                 # objects and arrays as JSON text, as before",
            "  - match: accounts",
            "    partition-candidates: ['bucket(4, id)']",
            "  - match: ledger",
            "    partition-candidates: ['bucket(4, id)']",
            "checkpoint-interval: 300ms",
            ""),
        "poison-it.yaml");
  }
}
