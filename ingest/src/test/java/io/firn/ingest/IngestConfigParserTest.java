/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IngestConfigParserTest {

  @Test
  void fullKafkaConfigurationIsRead(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("ingest.yaml");
    Files.writeString(
        file,
        """
        source:
          type: kafka
          bootstrap-servers: broker-1:9092,broker-2:9092
          topics: [orders, users]
          group-id: lake-ingest
          starting-offsets: earliest
          parallelism: 2
          properties:
            security.protocol: SSL
        format: debezium
        catalog:
          name: lake
          uri: jdbc:postgresql://db/iceberg
          warehouse: s3://bucket/warehouse
          properties:
            jdbc.user: firn
        namespace: shop
        routing:
          field: kind
        tables:
          - match: "order_*"
            primary-key: [order_id, line]
            partition-candidates: ["bucket(8, order_id)", line]
            target-file-size: 64MiB
          - match: "*"
            primary-key: id
        checkpoint-interval: 30s
        dead-letter-table: rejects
        write-parallelism: 4
        """);

    IngestConfig config = IngestConfigParser.parse(file);

    assertThat(config.source())
        .isEqualTo(
            new IngestConfig.KafkaSource(
                new KafkaSettings(
                    "broker-1:9092,broker-2:9092",
                    List.of("orders", "users"),
                    "lake-ingest",
                    KafkaSettings.StartingOffsets.EARLIEST,
                    Map.of("security.protocol", "SSL"),
                    2)));
    assertThat(config.catalog().name()).isEqualTo("lake");
    assertThat(config.catalog().type()).isEqualTo("jdbc");
    assertThat(config.catalog().properties()).containsEntry("jdbc.user", "firn");
    assertThat(config.checkpointInterval()).isEqualTo(Duration.ofSeconds(30));
    IngestSettings settings = config.settings();
    assertThat(settings)
        .extracting(
            IngestSettings::namespace,
            IngestSettings::routingField,
            IngestSettings::fixedTable,
            IngestSettings::deadLetterTable,
            IngestSettings::writeParallelism,
            IngestSettings::format)
        .containsExactly("shop", "kind", null, "rejects", 4, EventFormat.DEBEZIUM);
    assertThat(settings.table("order_lines"))
        .isEqualTo(
            new TableRule(
                "order_*",
                List.of("order_id", "line"),
                List.of(
                    new PartitionCandidate("bucket", 8, "order_id"),
                    new PartitionCandidate("identity", 0, "line")),
                64L << 20,
                true));
    assertThat(settings.table("users").primaryKey()).containsExactly("id");
    assertThat(settings.table("users").match()).isEqualTo("*");
  }

  @Test
  void emptyFileMeansTheEmbeddedDefaults() {
    assertThat(IngestConfigParser.parse("", "empty.yaml")).isEqualTo(IngestConfig.embedded());
    IngestConfig defaults = IngestConfigParser.parse("format: json\n", "f.yaml");
    assertThat(defaults.source()).isEqualTo(IngestConfig.GeneratorSource.stream(1_000, 100));
    assertThat(defaults.catalog().uri()).isEqualTo("jdbc:sqlite:firn-data/catalog.db");
    assertThat(defaults.settings()).isEqualTo(IngestSettings.defaults("events"));
  }

  @Test
  void checkpointDirectoryAndRetentionAreReadAndDefaultUnderTheDataDirectory() {
    assertThat(IngestConfigParser.parse("format: json\n", "f.yaml").checkpoints())
        .isEqualTo(new IngestConfig.Checkpoints(Path.of("firn-data", "checkpoints"), 3));
    assertThat(IngestConfig.embedded().checkpoints())
        .isEqualTo(IngestConfig.Checkpoints.defaults());
    assertThat(
            IngestConfigParser.parse(
                    "checkpoint-directory: /var/lib/firn/ckpt\ncheckpoints-retained: 5\n", "f.yaml")
                .checkpoints())
        .isEqualTo(new IngestConfig.Checkpoints(Path.of("/var/lib/firn/ckpt"), 5));
    assertThat(
            IngestConfigParser.parse("checkpoint-directory: run/ckpt\n", "f.yaml")
                .checkpoints()
                .directory())
        .isEqualTo(Path.of("run/ckpt"));
  }

  @Test
  void badCheckpointDirectoryOrRetentionIsAnErrorNamingKeyAndLine() {
    assertError("format: json\ncheckpoint-directory: s3://bucket/ckpt\n")
        .hasMessage(
            "f.yaml line 2: checkpoint-directory = 's3://bucket/ckpt': must be a local directory"
                + " (a path, not a URI): a local run keeps its checkpoints on this machine's file"
                + " system; a cluster keeps them where its Flink configuration says");
    assertError("checkpoint-directory: 'file:/tmp/ckpt'\n")
        .hasMessageStartingWith(
            "f.yaml line 1: checkpoint-directory = 'file:/tmp/ckpt': must be a local directory");
    assertError("checkpoint-directory: '  '\n")
        .hasMessage("f.yaml line 1: checkpoint-directory = '  ': must not be empty");
    assertError("checkpoint-directory: [a, b]\n")
        .hasMessage("f.yaml line 1: checkpoint-directory: must be a single value, not a list");
    assertError("checkpoint-directory: \"a\\0b\"\n")
        .hasMessageStartingWith(
            "f.yaml line 1: checkpoint-directory = 'a\u0000b': not a valid path");
    assertError("\ncheckpoints-retained: 0\n")
        .hasMessage(
            "f.yaml line 2: checkpoints-retained = '0': must be a whole number from 1 to 100");
    assertError("checkpoints-retained: 101\n")
        .hasMessage(
            "f.yaml line 1: checkpoints-retained = '101': must be a whole number from 1 to 100");
    assertError("checkpoints-retained: two\n")
        .hasMessage(
            "f.yaml line 1: checkpoints-retained = 'two': must be a whole number from 1 to 100");
  }

  @Test
  void generatorAndFixedTableAreRead() {
    IngestConfig config =
        IngestConfigParser.parse(
            "source: {type: generator, events: 50, rate: 2.5}\nrouting: {table: everything}\n",
            "f.yaml");

    assertThat(config.source()).isEqualTo(IngestConfig.GeneratorSource.stream(50, 2.5));
    assertThat(config.settings().fixedTable()).isEqualTo("everything");
  }

  @Test
  void generatorStreamKeysAreRead() {
    IngestConfig config =
        IngestConfigParser.parse(
            """
            source:
              type: generator
              profile: stream
              events: 3000
              rate: 2000
              v2-after: 1000
              new-type-after: 2000
              seed: 42
              bad-every: 500
            format: debezium
            """,
            "f.yaml");

    assertThat(config.source())
        .isEqualTo(
            new IngestConfig.GeneratorSource(
                IngestConfig.Profile.STREAM, 3_000, 2_000, 42, 1_000, 2_000, 500));
    assertThat(
            ((IngestConfig.GeneratorSource) config.source()).streamSettings(EventFormat.DEBEZIUM))
        .isEqualTo(
            EventStream.Settings.of(42, 1_000, 2_000, EventFormat.DEBEZIUM).withBadEvery(500));
  }

  @Test
  void generatorWithoutEventsOrUnboundedRunsUntilCancelled() {
    IngestConfig.GeneratorSource endless =
        IngestConfig.GeneratorSource.stream(IngestConfig.GeneratorSource.UNBOUNDED, 100);
    assertThat(IngestConfigParser.parse("source: {type: generator}\n", "f.yaml").source())
        .isEqualTo(endless);
    assertThat(
            IngestConfigParser.parse("source: {type: generator, events: unbounded}\n", "f.yaml")
                .source())
        .isEqualTo(endless);
    assertThat(endless.v2After()).isEqualTo(5_000);
    assertThat(endless.newTypeAfter()).isEqualTo(10_000);
  }

  @Test
  void sampleProfileKeepsTheSampleEvents() {
    assertThat(
            IngestConfigParser.parse("source: {type: generator, profile: sample}\n", "f.yaml")
                .source())
        .isEqualTo(IngestConfig.GeneratorSource.sample(1_000, 100));
    assertError("source: {type: generator, profile: sample, seed: 3}\n")
        .hasMessage("f.yaml line 1: source.seed = '3': only for profile: stream");
    assertError("source: {type: generator, profile: sample, events: unbounded}\n")
        .hasMessage(
            "f.yaml line 1: source.events = 'unbounded': must be a whole number of at least 1"
                + " (profile: sample is bounded)");
    assertError("source: {type: generator, profile: sample}\nformat: debezium\n")
        .hasMessage(
            "f.yaml line 1: source.profile = 'sample': the sample events are plain JSON: needs format:"
                + " json (or profile: stream)");
  }

  @Test
  void badGeneratorValuesAreErrorsNamingKeyValueAndRule() {
    assertError("source: {type: generator, profile: random}\n")
        .hasMessage("f.yaml line 1: source.profile = 'random': must be one of stream, sample");
    assertError("source: {type: generator, events: forever}\n")
        .hasMessage(
            "f.yaml line 1: source.events = 'forever': must be a whole number of at least 1, or"
                + " unbounded");
    assertError("source: {type: generator, v2-after: -1}\n")
        .hasMessage(
            "f.yaml line 1: source.v2-after = '-1': must be a whole number from 0 to"
                + " 9223372036854775807");
    assertError("source: {type: generator, new-type-after: soon}\n")
        .hasMessage(
            "f.yaml line 1: source.new-type-after = 'soon': must be a whole number from 0 to"
                + " 9223372036854775807");
    assertError("source: {type: generator, bad-every: 1.5}\n")
        .hasMessage(
            "f.yaml line 1: source.bad-every = '1.5': must be a whole number from 0 to"
                + " 9223372036854775807");
    assertError("source: {type: generator, rate: 0}\n")
        .hasMessage("f.yaml line 1: source.rate = '0': must be a number greater than 0");
  }

  @Test
  void unknownKeysAreErrorsNamingTheKey() {
    assertError("sourc: {}\n")
        .hasMessage(
            "f.yaml line 1: sourc: unknown key; known keys here are [source, format,"
                + " format-by-topic, catalog, namespace, routing, tables, checkpoint-interval,"
                + " checkpoint-directory, checkpoints-retained, dead-letter-table, write-parallelism,"
                + " metrics-port]");
    assertError("source: {type: generator, topics: [a]}\n")
        .hasMessage(
            "f.yaml line 1: source.topics: unknown key for a generator source; known keys here are"
                + " [type, profile, events, rate, v2-after, new-type-after, seed, bad-every]");
    assertError("tables:\n  - match: a\n    primary_key: [id]\n")
        .hasMessage(
            "f.yaml line 3: tables[0].primary_key: unknown key; known keys here are [match,"
                + " primary-key, partition-candidates, target-file-size, upsert, timestamp-fields,"
                + " schema-changes, nested, map-fields, contract, change-history, inserts]");
    assertError("format: json\nformat: debezium\n")
        .hasMessage("f.yaml line 2: format: duplicate key (first at line 1)");
  }

  @Test
  void badValuesAreErrorsNamingKeyValueAndRule() {
    assertError("format: avro\n")
        .hasMessage("f.yaml line 1: format = 'avro': must be one of json, debezium");
    assertError("source: {type: pulsar}\n")
        .hasMessage("f.yaml line 1: source.type = 'pulsar': must be one of generator, kafka");
    assertError("source: {type: kafka, topics: [a]}\n")
        .hasMessage(
            "f.yaml line 1: source.bootstrap-servers: required for a kafka source (host:port)");
    assertError("source: {type: kafka, bootstrap-servers: 'b:9092'}\n")
        .hasMessage(
            "f.yaml line 1: source.topics: required for a kafka source (a topic or a list), or"
                + " source.topic-pattern");
    assertError("source: {type: kafka, bootstrap-servers: 'b:9092', topics: a, topic-pattern: b}\n")
        .hasMessage("f.yaml line 1: source: set either topics or topic-pattern, not both");
    assertError("source: {type: kafka, bootstrap-servers: 'b:9092', topic-pattern: 'shop\\.('}\n")
        .hasMessageStartingWith(
            "f.yaml line 1: source.topic-pattern = 'shop\\.(': not a regular expression:");
    assertThat(
            ((IngestConfig.KafkaSource)
                    IngestConfigParser.parse(
                            "source: {type: kafka, bootstrap-servers: 'b:9092',"
                                + " topic-pattern: 'shop\\..*'}\n",
                            "f.yaml")
                        .source())
                .kafka()
                .topicPattern())
        .isEqualTo("shop\\..*");
    assertError(
            "source: {type: kafka, bootstrap-servers: 'b:9092', topics: t, starting-offsets: newest}\n")
        .hasMessage(
            "f.yaml line 1: source.starting-offsets = 'newest': must be one of earliest, latest,"
                + " committed");
    assertError("source: {type: generator, events: 0}\n")
        .hasMessage(
            "f.yaml line 1: source.events = '0': must be a whole number of at least 1, or unbounded");
    assertError("checkpoint-interval: soon\n")
        .hasMessage(
            "f.yaml line 1: checkpoint-interval = 'soon': must be a duration such as 30s, 15m, 1h, 2d,"
                + " PT1H, or 'off'");
    assertError("checkpoint-interval: 1ms\n")
        .hasMessage("f.yaml line 1: checkpoint-interval = '1ms': must be at least 10ms");
    assertError("checkpoint-interval: 200000000000000d\n")
        .as("too long for java.time: a message, not an ArithmeticException")
        .hasMessageStartingWith(
            "f.yaml line 1: checkpoint-interval = '200000000000000d': too long: a duration is at"
                + " most about 292 billion years");
    assertError("tables: [{match: a, target-file-size: 99999999TiB}]\n")
        .hasMessageStartingWith(
            "f.yaml line 1: tables[0].target-file-size = '99999999TiB': too large: a size is at"
                + " most");
    assertError("tables:\n  - primary-key: id\n")
        .hasMessage(
            "f.yaml line 2: tables[0].match: required (a glob on the table name, e.g. order_*)");
    assertError("tables:\n  - {match: a, target-file-size: 1KiB}\n")
        .hasMessage("f.yaml line 2: tables[0].target-file-size = '1KiB': must be at least 1MiB");
    assertError("tables:\n  - {match: a, schema-changes: sometimes}\n")
        .hasMessage(
            "f.yaml line 2: tables[0].schema-changes = 'sometimes': must be one of evolve,"
                + " add-only, freeze");
    assertError("tables:\n  - {match: a, nested: text}\n")
        .hasMessage("f.yaml line 2: tables[0].nested = 'text': must be one of columns, json");
    assertError("tables:\n  - {match: a, nested: json, map-fields: [labels]}\n")
        .hasMessage(
            "f.yaml line 2: tables[0]: map field 'labels' needs nested: columns (nested: json keeps"
                + " objects as text)");
    assertError("tables:\n  - {match: a, map-fields: [id]}\n")
        .hasMessage(
            "f.yaml line 2: tables[0]: map field 'id' is a primary-key field: keys are top-level"
                + " primitive values");
    assertThat(
            IngestConfigParser.parse(
                    "tables:\n  - {match: a, nested: json}\n  - {match: b, map-fields: [x, y.z]}\n",
                    "f.yaml")
                .settings())
        .satisfies(
            settings -> {
              assertThat(settings.table("a").nested()).isEqualTo(NestedValues.JSON);
              assertThat(settings.table("a").mapFields()).isEmpty();
              assertThat(settings.table("b").nested()).isEqualTo(NestedValues.COLUMNS);
              assertThat(settings.table("b").mapFields()).containsExactly("x", "y.z");
            });
    assertError("tables:\n  - {match: a, upsert: maybe}\n")
        .hasMessage("f.yaml line 2: tables[0].upsert = 'maybe': must be true or false");
    assertError("format: debezium\ntables:\n  - {match: a, upsert: false}\n")
        .hasMessage(
            "f.yaml line 3: tables[0].upsert = 'false': debezium change events need upserts (format:"
                + " debezium, and no json topic in format-by-topic)");
    assertError("routing: {field: kind, table: t}\n")
        .hasMessage("f.yaml line 1: routing: set either field or table, not both");
    assertError("routing: {table: Bad}\n")
        .hasMessage(
            "f.yaml line 1: routing.table = 'Bad': must be a table name matching [a-z][a-z0-9_]{0,127}"
                + " other than the dead-letter table");
    assertError("dead-letter-table: dead-letters\n")
        .hasMessage(
            "f.yaml line 1: dead-letter-table = 'dead-letters': must be a table name matching"
                + " [a-z][a-z0-9_]{0,127}");
    assertError("write-parallelism: 0\n")
        .hasMessage(
            "f.yaml line 1: write-parallelism = '0': must be a whole number from 1 to 1024");
    assertError("catalog: {type: nessie, uri: 'http://x'}\n")
        .hasMessage(
            "f.yaml line 1: catalog: catalog 'firn': type 'nessie' is not one of jdbc, hadoop,"
                + " rest, hive, glue, custom");
  }

  /** Every catalog type the configuration takes makes a loader for the job (ADR 0025). */
  @Test
  void everyCatalogTypeMakesTheJobsCatalogLoader() {
    for (String yaml :
        List.of(
            "catalog: {uri: 'jdbc:sqlite:/tmp/c.db', warehouse: /tmp/w}\n",
            "catalog: {type: hadoop, warehouse: /tmp/w}\n",
            "catalog: {type: rest, uri: 'http://127.0.0.1:1/'}\n",
            "catalog: {uri: 'thrift://127.0.0.1:1', warehouse: /tmp/w}\n",
            "catalog: {type: glue, warehouse: 's3://b/w', properties: {client.region: eu-west-1}}\n",
            "catalog: {type: custom, properties: {catalog-impl: org.example.Cat}}\n")) {
      IngestConfig config = IngestConfigParser.parse(yaml, "f.yaml");
      assertThat(IngestJob.catalogLoader(config.catalog())).as(yaml).isNotNull();
    }
  }

  @Test
  void commandLineTakesAConfigFileOrNothing(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("i.yaml");
    Files.writeString(file, "namespace: lake\n");

    assertThat(IngestJob.config(new String[0])).isEqualTo(IngestConfig.embedded());
    assertThat(IngestJob.config(new String[] {"--config", file.toString()}).settings().namespace())
        .isEqualTo("lake");
    assertThatThrownBy(() -> IngestJob.config(new String[] {"--conf", "x"}))
        .hasMessage("usage: IngestJob [--config FILE] (got: --conf x)");
    assertThatThrownBy(
            () -> IngestJob.config(new String[] {"--config", dir.resolve("no.yaml").toString()}))
        .isInstanceOf(InvalidIngestConfigException.class)
        .hasMessageContaining("no.yaml: cannot read the file");
  }

  @Test
  void partitionCandidatesMustParseAndUseKeyColumnsInUpsertTables() {
    assertError("tables:\n  - match: a\n    partition-candidates: [\"days(ts)\"]\n")
        .hasMessage(
            "f.yaml line 3: tables[0].partition-candidates = 'days(ts)': must be a column name,"
                + " bucket(N, column), truncate(W, column) or year|month|day|hour(column) of a"
                + " timestamp field");
    assertError("tables:\n  - match: a\n    partition-candidates: [\"bucket(0, id)\"]\n")
        .hasMessage(
            "f.yaml line 3: tables[0].partition-candidates = 'bucket(0, id)': bucket width must be at"
                + " least 1");
    assertError("tables:\n  - match: orders\n    partition-candidates: region\n")
        .hasMessage(
            "f.yaml line 2: tables[0]: table rule 'orders': partition candidate region must use a"
                + " primary-key column [id] in an upsert table (an upsert that moved a key to"
                + " another partition would leave its old row behind); partition by a key"
                + " column, e.g. bucket(16, id), or set upsert: false");
    assertThat(
            IngestConfigParser.parse(
                    "tables:\n  - match: logs\n    upsert: false\n"
                        + "    timestamp-fields: [at]\n"
                        + "    partition-candidates: [region, \"TRUNCATE(4, Sku)\", \"Day(at)\"]\n",
                    "f.yaml")
                .settings()
                .table("logs")
                .partitionCandidates())
        .containsExactly(
            new PartitionCandidate("identity", 0, "region"),
            new PartitionCandidate("truncate", 4, "Sku"),
            new PartitionCandidate("day", 0, "at"));
  }

  @Test
  void errorsNameTheLineOfTheKeyOrOfTheRuleThatLacksIt() {
    assertError(
            String.join(
                "\n",
                "# a kafka job",
                "source:",
                "  type: kafka",
                "  bootstrap-servers: b:9092",
                "  topics: t",
                "  starting-offsets: newest",
                ""))
        .hasMessageStartingWith("f.yaml line 6: source.starting-offsets = 'newest'");
    assertError(
            String.join(
                "\n",
                "tables:",
                "  - match: a",
                "  - match: b",
                "    upsert: maybe",
                "  - primary-key: [id]",
                ""))
        .hasMessage("f.yaml line 4: tables[1].upsert = 'maybe': must be true or false");
    assertError("format: json\n---\nformat: debezium\n")
        .as("one document per file")
        .hasMessage("f.yaml line 3: only one YAML document per file");
    assertError(String.join("\n", "tables:", "  - match: a", "  - primary-key: [id]", ""))
        .hasMessage(
            "f.yaml line 3: tables[1].match: required (a glob on the table name, e.g. order_*)");
  }

  private static org.assertj.core.api.AbstractThrowableAssert<?, ? extends Throwable> assertError(
      String yaml) {
    return assertThatThrownBy(() -> IngestConfigParser.parse(yaml, "f.yaml"))
        .isInstanceOf(InvalidIngestConfigException.class);
  }

  @Test
  void aChangeHistoryNamesItsTableAndAMistakeNamesTheRule() {
    IngestConfig config =
        IngestConfigParser.parse(
            "tables:\n  - {match: 'order*', change-history: 'hist_{table}'}\n", "f.yaml");
    assertThat(config.settings().table("orders").historyTable("orders")).isEqualTo("hist_orders");
    assertThat(config.settings().table("hist_orders").upsert()).isFalse();
    assertError("tables:\n  - {match: a, upsert: false, change-history: '{table}_c'}\n")
        .hasMessage(
            "f.yaml line 2: tables[0]: table rule 'a': change-history needs an upsert table (an"
                + " append table keeps every event already)");
  }

  @Test
  void insertsAppendNewKeysIsARuleOfUpsertTablesReadByOneRouter() {
    IngestConfig config =
        IngestConfigParser.parse(
            "tables:\n  - {match: 'order*', inserts: append-new-keys}\n", "f.yaml");
    assertThat(config.settings().table("orders").inserts()).isEqualTo(Inserts.APPEND_NEW_KEYS);
    assertThat(config.settings().table("customers").inserts()).isEqualTo(Inserts.UPSERT);
    assertError("tables:\n  - {match: a, inserts: append}\n")
        .hasMessage(
            "f.yaml line 2: tables[0].inserts = 'append': must be one of upsert, append-new-keys");
    assertError("tables:\n  - {match: a, upsert: false, inserts: append-new-keys}\n")
        .hasMessage(
            "f.yaml line 2: tables[0]: table rule 'a': inserts: append-new-keys needs an upsert"
                + " table (an append table appends every row already)");
    assertError(
            "source: {type: kafka, bootstrap-servers: 'k:9092', topics: [a], parallelism: 2}\n"
                + "tables:\n  - {match: a, inserts: append-new-keys}\n")
        .hasMessage(
            "f.yaml line 3: tables[0].inserts = 'append-new-keys': needs source.parallelism 1 (it"
                + " is 2): one router must see every key of the table (ADR 0008 §14)");
  }

  @Test
  void formatByTopicReadsSomeTopicsInAnotherFormat() {
    IngestConfig mixed =
        IngestConfigParser.parse(
            "source: {type: kafka, bootstrap-servers: 'k:9092', topic-pattern: '.*'}\n"
                + "format: json\n"
                + "format-by-topic:\n"
                + "  - {match: 'pg\\.shop\\..*', format: debezium}\n"
                + "  - {match: audit, format: json, routing-field: kind}\n"
                + "tables:\n  - {match: '*_logs', upsert: false}\n",
            "f.yaml");
    assertThat(mixed.settings().topicFormats())
        .extracting(TopicFormat::match, TopicFormat::format, TopicFormat::effectiveRoutingField)
        .containsExactly(
            org.assertj.core.api.Assertions.tuple("pg\\.shop\\..*", EventFormat.DEBEZIUM, null),
            org.assertj.core.api.Assertions.tuple("audit", EventFormat.JSON, "kind"));
    assertThat(mixed.settings().topicFormats().get(0).matches("pg.shop.customers")).isTrue();
    assertThat(mixed.settings().topicFormats().get(0).matches("pg.shopx")).isFalse();
    // An append rule is fine in a CDC job once a JSON topic can route there.
    assertThat(
            IngestConfigParser.parse(
                    "source: {type: kafka, bootstrap-servers: 'k:9092', topics: [a, b]}\n"
                        + "format: debezium\n"
                        + "format-by-topic: [{match: b, format: json}]\n"
                        + "tables:\n  - {match: '*_logs', upsert: false}\n",
                    "f.yaml")
                .settings()
                .table("app_logs")
                .upsert())
        .isFalse();

    assertError("format-by-topic: [{match: a, format: json}]\n")
        .hasMessage(
            "f.yaml line 1: format-by-topic: chooses a format per Kafka topic; the source is not"
                + " Kafka");
    String kafka = "source: {type: kafka, bootstrap-servers: 'k:9092', topics: [a]}\n";
    assertError(kafka + "format-by-topic: [{match: a}]\n")
        .hasMessage(
            "f.yaml line 2: format-by-topic[0]: needs match (a regular expression on the whole"
                + " topic name) and format (json or debezium)");
    assertError(kafka + "format-by-topic: [{match: a, format: avro}]\n")
        .hasMessage(
            "f.yaml line 2: format-by-topic[0].format = 'avro': must be one of json, debezium");
    assertError(kafka + "format-by-topic: [{match: 'a(', format: json}]\n")
        .hasMessageStartingWith(
            "f.yaml line 2: format-by-topic[0].match = 'a(': not a regular expression:");
    assertError(kafka + "format-by-topic: [{match: a, format: json, table: t}]\n")
        .hasMessage(
            "f.yaml line 2: format-by-topic[0].table: unknown key; known keys here are [match,"
                + " format, routing-field]");
    assertError(kafka + "format-by-topic: {match: a}\n")
        .hasMessage(
            "f.yaml line 2: format-by-topic: must be a list of {match, format, routing-field}, not"
                + " a map");
  }

  @Test
  void changeEventsRouteBySourceTableUnlessAFieldIsNamedAndNamesMapAsConfigured() {
    IngestConfig debezium = IngestConfigParser.parse("format: debezium\n", "f.yaml");
    assertThat(debezium.settings().routingField()).isNull();
    assertThat(IngestConfigParser.parse("format: json\n", "f.yaml").settings().routingField())
        .isEqualTo("event_type");
    IngestConfig mapped =
        IngestConfigParser.parse(
            "format: debezium\nrouting:\n  field: kind\n  lower-case: true\n  rename:\n"
                + "    - {match: 'order_\\d+', table: orders}\n",
            "f.yaml");
    assertThat(mapped.settings().routingField()).isEqualTo("kind");
    assertThat(mapped.settings().tableNames().map("ORDER_7")).isEqualTo("orders");
    assertThat(mapped.settings().tableNames().map("Users")).isEqualTo("users");

    assertError("routing:\n  rename:\n    - {match: 'order_(', table: orders}\n")
        .hasMessageStartingWith(
            "f.yaml line 3: routing.rename[0].match = 'order_(': not a regular expression:");
    assertError("routing:\n  rename:\n    - {match: 'a'}\n")
        .hasMessage(
            "f.yaml line 3: routing.rename[0]: needs match (a regular expression on the whole"
                + " name) and table (the name, $1 for a group)");
    assertError("routing:\n  lower-case: maybe\n")
        .hasMessage("f.yaml line 2: routing.lower-case = 'maybe': must be true or false");
  }

  @Test
  void contractChecksParseAndBadOnesAreErrorsNamingTheKey() {
    IngestConfig config =
        IngestConfigParser.parse(
            "tables:\n  - match: pay*\n    contract:\n"
                + "      - {name: positive, field: amount, min: 0}\n"
                + "      - {name: known, field: status, enum: [new, paid]}\n"
                + "      - {name: has_amount, field: amount, required: true}\n",
            "f.yaml");
    assertThat(config.settings().table("payments").contract())
        .extracting(ContractCheck::name, ContractCheck::kind)
        .containsExactly(
            org.assertj.core.api.Assertions.tuple("positive", ContractCheck.Kind.MIN),
            org.assertj.core.api.Assertions.tuple("known", ContractCheck.Kind.ENUM),
            org.assertj.core.api.Assertions.tuple("has_amount", ContractCheck.Kind.REQUIRED));

    assertError(
            "tables:\n  - match: a\n    contract:\n      - {name: x, field: f, min: 0, max: 1}\n")
        .hasMessage(
            "f.yaml line 4: tables[0].contract[0]: needs name, field and exactly one of required,"
                + " min, max, regex, enum, max-length");
    assertError("tables:\n  - match: a\n    contract:\n      - {name: x, field: f, min: zero}\n")
        .hasMessage("f.yaml line 4: tables[0].contract[0].min = 'zero': must be a number");
    assertError("tables:\n  - match: a\n    contract:\n      - {name: X-1, field: f, min: 0}\n")
        .hasMessage(
            "f.yaml line 4: tables[0].contract[0]: name 'X-1' must match [a-z][a-z0-9_]{0,63}");
    assertError(
            "tables:\n  - match: a\n    contract:\n      - {name: x, field: f, min: 0}\n"
                + "      - {name: x, field: g, max: 1}\n")
        .hasMessage(
            "f.yaml line 5: tables[0].contract[1].name = 'x': is the name of another check of this"
                + " rule");
    assertError("tables:\n  - match: a\n    contract:\n      - {name: x, field: f, regex: '('}\n")
        .hasMessageStartingWith(
            "f.yaml line 4: tables[0].contract[0].regex = '(': not a regular expression:");
  }
}
