/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 15, item 3: change events in Kafka Connect's schema envelope keep their source types. A
 * real broker, one job, real Iceberg tables read back with Iceberg's generic reader: decimals keep
 * every digit, dates and timestamps are dates and timestamps, integers have their width, NOT NULL
 * columns are required; when the source widens a column (int to bigint, a decimal's precision,
 * float to double) or drops NOT NULL, the table follows; a table made before keeps its types;
 * add-only and freeze rules refuse what they do not allow.
 */
class DebeziumSchemaIT {
  private static final String TOPIC = "shop";
  private static final String DECIMAL = "org.apache.kafka.connect.data.Decimal";

  @RegisterExtension
  static final MiniClusterExtension CLUSTER =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(4)
              .build());

  @RegisterExtension static final KafkaBroker.PerClass KAFKA = new KafkaBroker.PerClass();

  @TempDir Path dir;

  /** The products table's source columns before the ALTER TABLE. */
  private static final String PRODUCTS_V1 =
      String.join(
          ",",
          field("id", "int32", null, false, null),
          field("price", "bytes", DECIMAL, true, decimal(2, 10)),
          field("qty", "int16", null, false, null),
          field("weight", "float32", null, true, null),
          field("updated", "int64", "io.debezium.time.MicroTimestamp", true, null),
          field("created", "int64", "io.debezium.time.Timestamp", false, null),
          field("born", "int32", "io.debezium.time.Date", true, null),
          field("zoned", "string", "io.debezium.time.ZonedTimestamp", true, null),
          field("label", "string", null, false, null),
          field("blob", "bytes", null, true, null));

  /**
   * After {@code ALTER TABLE products ALTER qty TYPE bigint, ALTER price TYPE numeric(14,2), ALTER
   * weight TYPE double precision, ALTER label DROP NOT NULL}.
   */
  private static final String PRODUCTS_V2 =
      String.join(
          ",",
          field("id", "int32", null, false, null),
          field("price", "bytes", DECIMAL, true, decimal(2, 14)),
          field("qty", "int64", null, false, null),
          field("weight", "float64", null, true, null),
          field("updated", "int64", "io.debezium.time.MicroTimestamp", true, null),
          field("created", "int64", "io.debezium.time.Timestamp", false, null),
          field("born", "int32", "io.debezium.time.Date", true, null),
          field("zoned", "string", "io.debezium.time.ZonedTimestamp", true, null),
          field("label", "string", null, true, null),
          field("blob", "bytes", null, true, null));

  private static final String LEGACY =
      field("id", "int64", null, false, null)
          + ","
          + field("amount", "bytes", DECIMAL, true, decimal(2, 16))
          + ","
          + field("day", "int32", "io.debezium.time.Date", true, null);

  @Test
  void changeEventsKeepTheirSourceTypesAndTheTableFollowsTheSourcesWidenings() throws Exception {
    List<String[]> events = new ArrayList<>();
    String first =
        "{\"id\":1,\"price\":\""
            + unscaled("12345678.91")
            + "\",\"qty\":7,\"weight\":1.5,"
            + "\"updated\":1764411330123456,\"created\":1764411330123,\"born\":20421,"
            + "\"zoned\":\"2026-11-29T10:15:30+01:00\",\"label\":\"one\",\"blob\":\"AQI=\"}";
    events.add(new String[] {"products", envelope(PRODUCTS_V1, "c", null, first, "products")});
    events.add(
        new String[] {
          "products",
          envelope(
              PRODUCTS_V1,
              "c",
              null,
              "{\"id\":2,\"price\":\""
                  + unscaled("0.10")
                  + "\",\"qty\":1,\"created\":0,\"label\":\"two\"}",
              "products")
        });
    events.add(
        new String[] {
          "products",
          envelope(
              PRODUCTS_V1,
              "d",
              "{\"id\":2,\"price\":null,\"qty\":1,\"created\":0,\"label\":\"two\"}",
              null,
              "products")
        });
    // The ALTER TABLE: a value beyond int, a price beyond the old precision, a null label.
    events.add(
        new String[] {
          "products",
          envelope(
              PRODUCTS_V2,
              "c",
              null,
              "{\"id\":3,\"price\":\""
                  + unscaled("123456789012.34")
                  + "\",\"qty\":5000000000,\"weight\":1.0E40,\"created\":86400000,"
                  + "\"label\":null}",
              "products")
        });
    events.add(
        new String[] {
          "products",
          envelope(
              PRODUCTS_V2,
              "u",
              first,
              first
                  .replace("\"qty\":7", "\"qty\":8")
                  .replace("\"label\":\"one\"", "\"label\":null"),
              "products")
        });
    // A value whose digits its declared decimal(4, 2) cannot hold, for a table not there yet.
    String poison =
        envelope(
            field("id", "int32", null, false, null)
                + ","
                + field("discount", "bytes", DECIMAL, true, decimal(2, 4)),
            "c",
            null,
            "{\"id\":4,\"discount\":\"" + unscaled("123.45") + "\"}",
            "coupons");
    events.add(new String[] {"coupons", poison});
    // Governance (ADR 0008 §6): frozen takes no change after its creation, limited only new
    // columns.
    String small =
        field("id", "int32", null, false, null) + "," + field("n", "int32", null, true, null);
    String wide =
        field("id", "int32", null, false, null) + "," + field("n", "int64", null, true, null);
    String withNote = small + "," + field("note", "string", null, true, null);
    events.add(new String[] {"frozen", envelope(small, "c", null, "{\"id\":1,\"n\":1}", "frozen")});
    String frozenNote =
        envelope(withNote, "c", null, "{\"id\":2,\"n\":2,\"note\":\"x\"}", "frozen");
    events.add(new String[] {"frozen", frozenNote});
    events.add(new String[] {"frozen", envelope(wide, "c", null, "{\"id\":3,\"n\":3}", "frozen")});
    events.add(
        new String[] {"limited", envelope(small, "c", null, "{\"id\":1,\"n\":1}", "limited")});
    events.add(
        new String[] {
          "limited", envelope(withNote, "c", null, "{\"id\":2,\"n\":2,\"note\":\"x\"}", "limited")
        });
    String limitedWide = envelope(wide, "c", null, "{\"id\":3,\"n\":5000000000}", "limited");
    events.add(new String[] {"limited", limitedWide});
    // A data contract (ADR 0008 §11): amounts not below 0, a known status.
    String payment =
        field("id", "int64", null, false, null)
            + ","
            + field("amount", "int64", null, true, null)
            + ","
            + field("status", "string", null, true, null);
    events.add(
        new String[] {
          "payments",
          envelope(payment, "c", null, "{\"id\":1,\"amount\":5,\"status\":\"paid\"}", "payments")
        });
    String negative =
        envelope(payment, "c", null, "{\"id\":2,\"amount\":-1,\"status\":\"paid\"}", "payments");
    events.add(new String[] {"payments", negative});
    String unknownStatus =
        envelope(payment, "c", null, "{\"id\":3,\"amount\":1,\"status\":\"lost\"}", "payments");
    events.add(new String[] {"payments", unknownStatus});
    // A table made before: amount is double and day a string; they stay so.
    events.add(
        new String[] {
          "legacy",
          envelope(
              LEGACY,
              "c",
              null,
              "{\"id\":1,\"amount\":\"" + unscaled("123.45") + "\",\"day\":20421}",
              "legacy")
        });

    KafkaBroker kafka = KAFKA.broker();
    kafka.createTopic(TOPIC, 2);
    IngestConfig config = config(kafka);
    Catalog catalog = IngestJob.catalogLoader(config.catalog()).loadCatalog();
    createLegacyTable(catalog);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(2);
    Configuration noRestarts = new Configuration();
    noRestarts.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    env.configure(noRestarts);
    IngestJob.build(env, config);
    try (KafkaProducer<String, String> producer = kafka.producer()) {
      for (String[] event : events) {
        producer.send(new ProducerRecord<>(TOPIC, event[0], event[1])).get();
      }
    }
    JobClient job = env.executeAsync("debezium-schema-it");
    try {
      Row one =
          new Row(
              1,
              new BigDecimal("12345678.91"),
              8L,
              1.5d,
              LocalDateTime.parse("2025-11-29T10:15:30.123456"),
              LocalDateTime.parse("2025-11-29T10:15:30.123"),
              LocalDate.ofEpochDay(20421),
              OffsetDateTime.parse("2026-11-29T09:15:30Z"),
              null,
              ByteBuffer.wrap(new byte[] {1, 2}));
      Row three =
          new Row(
              3,
              new BigDecimal("123456789012.34"),
              5_000_000_000L,
              1.0e40d,
              null,
              LocalDateTime.parse("1970-01-02T00:00:00"),
              null,
              null,
              null,
              null);
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(500))
          .ignoreExceptions()
          .untilAsserted(
              () -> {
                assertThat(rows(catalog.loadTable(id("products"))))
                    .containsExactlyInAnyOrder(one, three);
                assertThat(IngestJobIT.readAll(catalog.loadTable(id("legacy"))))
                    .extracting(
                        r -> r.getField("id"), r -> r.getField("amount"), r -> r.getField("day"))
                    .containsExactly(tuple(1L, 123.45d, "2025-11-29"));
                assertThat(IngestJobIT.readAll(catalog.loadTable(id("frozen"))))
                    .extracting(r -> r.getField("id"), r -> r.getField("n"))
                    .as("a value that fits int is taken although the source says int64")
                    .containsExactlyInAnyOrder(tuple(1, 1), tuple(3, 3));
                assertThat(IngestJobIT.readAll(catalog.loadTable(id("limited"))))
                    .extracting(r -> r.getField("id"), r -> r.getField("note"))
                    .containsExactlyInAnyOrder(tuple(1, null), tuple(2, "x"));
                assertThat(IngestJobIT.readAll(catalog.loadTable(id("dead_letters"))))
                    .extracting(r -> r.getField("reason"), r -> r.getField("payload"))
                    .containsExactlyInAnyOrder(
                        tuple("incompatible_type", poison),
                        tuple("schema_change_refused", frozenNote),
                        tuple("schema_change_refused", limitedWide),
                        tuple("contract_violation", negative),
                        tuple("contract_violation", unknownStatus));
                assertThat(IngestJobIT.readAll(catalog.loadTable(id("payments"))))
                    .extracting(r -> r.getField("id"))
                    .containsExactly(1L);
              });

      Table products = catalog.loadTable(id("products"));
      assertThat(products.schema().columns())
          .extracting(
              Types.NestedField::name, Types.NestedField::type, Types.NestedField::isRequired)
          .containsExactly(
              tuple("id", Types.IntegerType.get(), true),
              tuple("price", Types.DecimalType.of(14, 2), false),
              tuple("qty", Types.LongType.get(), true),
              tuple("weight", Types.DoubleType.get(), false),
              tuple("updated", Types.TimestampType.withoutZone(), false),
              tuple("created", Types.TimestampType.withoutZone(), true),
              tuple("born", Types.DateType.get(), false),
              tuple("zoned", Types.TimestampType.withZone(), false),
              tuple("label", Types.StringType.get(), false),
              tuple("blob", Types.BinaryType.get(), false));
      assertThat(products.schema().identifierFieldNames()).containsExactly("id");
      assertThat(catalog.tableExists(id("coupons"))).as("no table for the refused event").isFalse();
      assertThat(catalog.loadTable(id("frozen")).schema().columns())
          .extracting(Types.NestedField::name, Types.NestedField::type)
          .containsExactly(
              tuple("id", Types.IntegerType.get()), tuple("n", Types.IntegerType.get()));
      assertThat(catalog.loadTable(id("limited")).schema().columns())
          .extracting(Types.NestedField::name, Types.NestedField::type)
          .containsExactly(
              tuple("id", Types.IntegerType.get()),
              tuple("n", Types.IntegerType.get()),
              tuple("note", Types.StringType.get()));
      Table legacy = catalog.loadTable(id("legacy"));
      assertThat(legacy.schema().findType("amount")).isEqualTo(Types.DoubleType.get());
      assertThat(legacy.schema().findType("day")).isEqualTo(Types.StringType.get());
      assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
    } finally {
      job.cancel().get();
    }
  }

  @Test
  void aTopicPatternReadsEveryTablesTopicAlsoOnesCreatedWhileTheJobRuns() throws Exception {
    // Debezium writes one topic per table: <server>.<database>.<table>.
    KafkaBroker kafka = KAFKA.broker();
    kafka.createTopic("pg.shop.customers", 1);
    kafka.createTopic("pg.shop.orders", 1);
    kafka.createTopic("pg.other.ignored", 1);
    IngestConfig config =
        patternConfig(
            kafka,
            "pg\\.shop\\..*",
            "  properties: {partition.discovery.interval.ms: '1000'}",
            "format: debezium");
    Catalog catalog = IngestJob.catalogLoader(config.catalog()).loadCatalog();
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(1);
    IngestJob.build(env, config);
    String id = field("id", "int64", null, false, null);
    try (KafkaProducer<String, String> producer = kafka.producer()) {
      for (String table : List.of("customers", "orders", "ignored")) {
        String topic = table.equals("ignored") ? "pg.other.ignored" : "pg.shop." + table;
        producer
            .send(new ProducerRecord<>(topic, "1", envelope(id, "c", null, "{\"id\":1}", table)))
            .get();
      }
      JobClient job = env.executeAsync("topic-pattern-it");
      try {
        await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(500))
            .ignoreExceptions()
            .untilAsserted(
                () -> {
                  assertThat(IngestJobIT.readAll(catalog.loadTable(id("customers")))).hasSize(1);
                  assertThat(IngestJobIT.readAll(catalog.loadTable(id("orders")))).hasSize(1);
                });
        // A table created at the source while the job runs: its new topic is found.
        kafka.createTopic("pg.shop.items", 1);
        producer
            .send(
                new ProducerRecord<>(
                    "pg.shop.items", "7", envelope(id, "c", null, "{\"id\":7}", "items")))
            .get();
        await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(500))
            .ignoreExceptions()
            .untilAsserted(
                () ->
                    assertThat(IngestJobIT.readAll(catalog.loadTable(id("items"))))
                        .extracting(r -> r.getField("id"))
                        .containsExactly(7L));
        assertThat(catalog.tableExists(id("ignored"))).as("a topic outside the pattern").isFalse();
      } finally {
        job.cancel().get();
      }
    }
  }

  @Test
  void oneJobReadsChangeEventTopicsAndAJsonLogTopicIntoSharedTables() throws Exception {
    // Debezium's topic per table next to an application's JSON log topic, in one job
    // (format-by-topic); a JSON event may upsert the table change events keep too, and the
    // customers table keeps a change history of both.
    KafkaBroker kafka = KAFKA.broker();
    kafka.createTopic("pg.mix.customers", 1);
    kafka.createTopic("pg.mix.app_logs", 1);
    kafka.createTopic("app.logs", 1);
    IngestConfig config =
        patternConfig(
            kafka,
            "pg\\.mix\\..*|app\\.logs",
            "format: json",
            "format-by-topic:",
            "  - {match: 'pg\\.mix\\..*', format: debezium}",
            "tables:",
            "  - {match: app_logs, upsert: false}",
            "  - {match: customers, change-history: '{table}_changes'}");
    Catalog catalog = IngestJob.catalogLoader(config.catalog()).loadCatalog();
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(1);
    IngestJob.build(env, config);
    String customer =
        field("id", "int64", null, false, null) + "," + field("name", "string", null, true, null);
    String intoLogs = envelope(customer, "c", null, "{\"id\":5,\"name\":\"x\"}", "app_logs");
    List<String[]> events =
        List.of(
            new String[] {
              "pg.mix.customers",
              envelope(customer, "c", null, "{\"id\":1,\"name\":\"a\"}", "customers")
            },
            new String[] {
              "pg.mix.customers",
              envelope(customer, "c", null, "{\"id\":2,\"name\":\"c\"}", "customers")
            },
            new String[] {"app.logs", "{\"event_type\":\"app_logs\",\"id\":1,\"msg\":\"up\"}"},
            new String[] {
              "pg.mix.customers",
              envelope(
                  customer,
                  "u",
                  "{\"id\":1,\"name\":\"a\"}",
                  "{\"id\":1,\"name\":\"b\"}",
                  "customers")
            },
            new String[] {"app.logs", "{\"event_type\":\"app_logs\",\"id\":1,\"msg\":\"again\"}"},
            new String[] {
              "pg.mix.customers",
              envelope(customer, "d", "{\"id\":2,\"name\":\"c\"}", null, "customers")
            },
            new String[] {"app.logs", "{\"event_type\":\"customers\",\"id\":9,\"name\":\"json\"}"},
            new String[] {"pg.mix.app_logs", intoLogs},
            new String[] {"app.logs", "{\"event_type\":\"app_logs\",\"id\":2,\"msg\":\"down\"}"});
    try (KafkaProducer<String, String> producer = kafka.producer()) {
      for (String[] event : events) {
        producer.send(new ProducerRecord<>(event[0], "k", event[1])).get();
      }
    }
    JobClient job = env.executeAsync("mixed-formats-it");
    try {
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(500))
          .ignoreExceptions()
          .untilAsserted(
              () -> {
                assertThat(IngestJobIT.readAll(catalog.loadTable(id("customers"))))
                    .extracting(r -> r.getField("id"), r -> r.getField("name"))
                    .containsExactlyInAnyOrder(tuple(1L, "b"), tuple(9L, "json"));
                assertThat(IngestJobIT.readAll(catalog.loadTable(id("customers_changes"))))
                    .as("every change of customers, whatever its format, with its operation")
                    .extracting(
                        r -> r.getField("id"),
                        r -> r.getField("name"),
                        r -> r.getField(ChangeHistory.OP))
                    .containsExactlyInAnyOrder(
                        tuple(1L, "a", "c"),
                        tuple(2L, "c", "c"),
                        tuple(1L, "b", "u"),
                        tuple(2L, "c", "d"),
                        tuple(9L, "json", "u"));
                assertThat(IngestJobIT.readAll(catalog.loadTable(id("app_logs"))))
                    .extracting(r -> r.getField("id"), r -> r.getField("msg"))
                    .containsExactlyInAnyOrder(
                        tuple(1L, "up"), tuple(1L, "again"), tuple(2L, "down"));
                assertThat(IngestJobIT.readAll(catalog.loadTable(id("dead_letters"))))
                    .extracting(
                        r -> r.getField("reason"),
                        r -> r.getField("payload"),
                        r -> r.getField("source_position"))
                    .containsExactly(tuple("invalid_table_name", intoLogs, "pg.mix.app_logs/0/0"));
              });
      assertThat(
              IngestJobIT.readAll(catalog.loadTable(id("dead_letters"))).get(0).getField("detail"))
          .isEqualTo(
              "a change event of topic 'pg.mix.app_logs' routes to events.app_logs, an append"
                  + " table (its rule says upsert: false); change events need an upsert table");
      assertThat(catalog.loadTable(id("customers")).schema().identifierFieldNames())
          .containsExactly("id");
    } finally {
      job.cancel().get();
    }
  }

  /** A job reading the topics {@code pattern} names from the start, with {@code lines} added. */
  private IngestConfig patternConfig(KafkaBroker kafka, String pattern, String... lines) {
    List<String> yaml = new ArrayList<>();
    yaml.add("source:");
    yaml.add("  type: kafka");
    yaml.add("  bootstrap-servers: '" + kafka.bootstrapServers() + "'");
    yaml.add("  topic-pattern: '" + pattern + "'");
    yaml.add("  group-id: firn-" + Integer.toHexString(pattern.hashCode()));
    yaml.add("  starting-offsets: earliest");
    yaml.addAll(Arrays.asList(lines));
    yaml.add("catalog:");
    yaml.add("  uri: 'jdbc:sqlite:" + dir.resolve("catalog.db") + "'");
    yaml.add("  warehouse: '" + dir.resolve("warehouse") + "'");
    yaml.add("checkpoint-interval: 300ms");
    yaml.add("");
    return IngestConfigParser.parse(String.join("\n", yaml), "topic-pattern-it.yaml");
  }

  /** A row of products as Iceberg's generic reader returns it (binary as a ByteBuffer). */
  private record Row(
      int id,
      BigDecimal price,
      long qty,
      Double weight,
      LocalDateTime updated,
      LocalDateTime created,
      LocalDate born,
      OffsetDateTime zoned,
      String label,
      ByteBuffer blob) {
    @Override
    public boolean equals(Object other) {
      return other instanceof Row row && Arrays.deepEquals(values(), row.values());
    }

    @Override
    public int hashCode() {
      return Arrays.deepHashCode(values());
    }

    private Object[] values() {
      return new Object[] {
        id,
        price,
        qty,
        weight,
        updated,
        created,
        born,
        zoned == null ? null : zoned.toInstant(),
        label,
        blob == null ? null : blob.duplicate()
      };
    }
  }

  private static List<Row> rows(Table table) throws Exception {
    List<Row> rows = new ArrayList<>();
    for (Record r : IngestJobIT.readAll(table)) {
      rows.add(
          new Row(
              (Integer) r.getField("id"),
              (BigDecimal) r.getField("price"),
              (Long) r.getField("qty"),
              (Double) r.getField("weight"),
              (LocalDateTime) r.getField("updated"),
              (LocalDateTime) r.getField("created"),
              (LocalDate) r.getField("born"),
              (OffsetDateTime) r.getField("zoned"),
              (String) r.getField("label"),
              (ByteBuffer) r.getField("blob")));
    }
    return rows;
  }

  private static String decimal(int scale, int precision) {
    return "{\"scale\":\"" + scale + "\",\"connect.decimal.precision\":\"" + precision + "\"}";
  }

  /** Kafka Connect's JSON form of a decimal: base64 of the unscaled big-endian integer. */
  private static String unscaled(String value) {
    return Base64.getEncoder().encodeToString(new BigDecimal(value).unscaledValue().toByteArray());
  }

  private static String field(
      String name, String type, String logical, boolean optional, String parameters) {
    return "{\"field\":\""
        + name
        + "\",\"type\":\""
        + type
        + "\",\"optional\":"
        + optional
        + (logical == null ? "" : ",\"name\":\"" + logical + "\"")
        + (parameters == null ? "" : ",\"parameters\":" + parameters)
        + "}";
  }

  private static String envelope(
      String columns, String op, String before, String after, String table) {
    return "{\"schema\":{\"type\":\"struct\",\"fields\":["
        + "{\"field\":\"before\",\"type\":\"struct\",\"optional\":true,\"fields\":["
        + columns
        + "]},{\"field\":\"after\",\"type\":\"struct\",\"optional\":true,\"fields\":["
        + columns
        + "]},{\"field\":\"op\",\"type\":\"string\",\"optional\":false}]},"
        + "\"payload\":{\"op\":\""
        + op
        + "\",\"before\":"
        + before
        + ",\"after\":"
        + after
        + ",\"source\":{\"db\":\"shop\",\"table\":\""
        + table
        + "\"}}}";
  }

  private static TableIdentifier id(String table) {
    return TableIdentifier.of("events", table);
  }

  /** legacy(id long key, amount double, day string), as an ingest job before item 3 made it. */
  private static void createLegacyTable(Catalog catalog) {
    if (catalog instanceof SupportsNamespaces namespaces
        && !namespaces.namespaceExists(Namespace.of("events"))) {
      namespaces.createNamespace(Namespace.of("events"));
    }
    Schema schema =
        new Schema(
            List.of(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "amount", Types.DoubleType.get()),
                Types.NestedField.optional(3, "day", Types.StringType.get())),
            Set.of(1));
    catalog.buildTable(id("legacy"), schema).withProperty("format-version", "2").create();
  }

  private IngestConfig config(KafkaBroker kafka) {
    return IngestConfigParser.parse(
        String.join(
            "\n",
            "source:",
            "  type: kafka",
            "  bootstrap-servers: '" + kafka.bootstrapServers() + "'",
            "  topics: " + TOPIC,
            "  group-id: firn-debezium-schema-it",
            "  starting-offsets: earliest",
            "  parallelism: 2",
            "format: debezium",
            "catalog:",
            "  uri: 'jdbc:sqlite:" + dir.resolve("catalog.db") + "'",
            "  warehouse: '" + dir.resolve("warehouse") + "'",
            "tables:",
            "  - {match: frozen, schema-changes: freeze}",
            "  - {match: limited, schema-changes: add-only}",
            "  - match: payments",
            "    contract:",
            "      - {name: not_negative, field: amount, min: 0}",
            "      - {name: known_status, field: status, enum: [new, paid]}",
            "checkpoint-interval: 300ms",
            ""),
        "debezium-schema-it.yaml");
  }
}
