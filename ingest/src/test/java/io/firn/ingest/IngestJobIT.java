/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.firn.core.catalog.CatalogSettings;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

class IngestJobIT {
  private static final long EVENTS = 300;

  /** Keeps the metrics of finished jobs, so that a bounded job's final counts can be checked. */
  private static final InMemoryReporter METRICS = InMemoryReporter.createWithRetainedMetrics();

  @RegisterExtension
  static final MiniClusterExtension CLUSTER =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setConfiguration(METRICS.addToConfiguration(new Configuration()))
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(4)
              .build());

  @TempDir Path dir;

  @Test
  void routesEventsToVersionTwoUpsertTablesAndDeadLettersBadOnes() throws Exception {
    // ~2 s of input, a checkpoint (= commit) every 200 ms: upserts cross many commits.
    runAndVerify(200, 150);
  }

  @Test
  void keysStayUniqueWhenTheSchemaWidensInsideOneCheckpoint() throws Exception {
    // All input before the first checkpoint: the new column of user_events arrives while rows of
    // the same keys in the old schema sit in the same, still uncommitted, checkpoint.
    runAndVerify(2_000, 3_000);
  }

  @Test
  void changeEventsLeaveTheLastRowPerKeyAndDeadLetterMalformedOnes() throws Exception {
    List<String> events = ChangeEvents.events(300);
    // ~2 s of input, a commit every 200 ms: updates and deletes hit rows of earlier commits, and
    // the new column arrives while the checkpoint in flight holds rows in the old schema.
    CatalogLoader loader =
        runListed(events, IngestSettings.defaults("events").withFormat(EventFormat.DEBEZIUM));

    Catalog catalog = loader.loadCatalog();
    Table table = catalog.loadTable(TableIdentifier.of("events", "customers"));
    assertThat(TableUtil.formatVersion(table)).isEqualTo(2);
    assertThat(table.schema().identifierFieldNames()).containsExactly("id");
    assertThat(table.schema().findField("tier")).as("column added mid-stream").isNotNull();
    assertThat(table.currentSnapshot().summary())
        .as("deletes of committed rows are equality deletes")
        .hasEntrySatisfying(
            "total-equality-deletes", v -> assertThat(Long.parseLong(v)).isPositive());
    Map<Long, JsonNode> expected = ChangeEvents.expected(events);
    assertThat(expected)
        .as("the stream deletes keys for good")
        .doesNotContainKeys(3L, 7L, 13L, 17L, 23L, 27L);
    List<List<Object>> wanted = new ArrayList<>();
    for (JsonNode row : expected.values()) {
      wanted.add(toRow(table, row));
    }
    assertThat(readRows(table))
        .as("last write per key wins, deleted keys are absent")
        .containsExactlyInAnyOrderElementsOf(wanted);

    List<Record> letters = readAll(catalog.loadTable(TableIdentifier.of("events", "dead_letters")));
    List<org.assertj.core.groups.Tuple> wantedLetters = new ArrayList<>();
    ChangeEvents.MALFORMED.forEach(
        (index, reason) -> wantedLetters.add(tuple(reason, events.get(index))));
    assertThat(letters)
        .extracting(r -> r.getField("reason"), r -> r.getField("payload"))
        .containsExactlyInAnyOrderElementsOf(wantedLetters);
  }

  @Test
  void tablesArePartitionedByTheirCandidatesAndTheSpecEvolvesWhenOneAppears() throws Exception {
    // Upserts into a table bucketed by its key; appends into a log whose candidate column
    // ('region') only appears halfway, so its spec evolves mid-run.
    List<String> events = new ArrayList<>();
    for (int i = 0; i < 240; i++) {
      if (i % 2 == 0) {
        events.add(
            String.format(
                Locale.ROOT,
                "{\"event_type\":\"order_events\",\"id\":%d,\"status\":\"v%d\"}",
                i % 50,
                i));
      } else {
        String region = i < 120 ? "" : ",\"region\":\"" + (i % 3 == 0 ? "eu" : "us") + "\"";
        // Ids repeat (every 8th click): an append table keeps every row of an id, also within
        // one checkpoint and one writer; only some clicks carry an id at all.
        events.add(
            String.format(
                Locale.ROOT,
                "{\"event_type\":\"click_logs\",%s\"at\":\"2026-11-%02dT12:00:00Z\"%s}",
                i % 5 == 0 ? "" : "\"id\":" + (i % 16) + ",",
                27 + i % 4 / 2,
                region));
      }
    }
    IngestSettings settings =
        IngestSettings.defaults("events")
            .withTables(
                List.of(
                    new TableRule(
                        "order_events",
                        List.of("id"),
                        List.of(PartitionCandidate.parse("bucket(4, id)")),
                        null,
                        true),
                    new TableRule(
                        "click_logs",
                        List.of("id"),
                        List.of(
                            PartitionCandidate.parse("region"),
                            PartitionCandidate.parse("day(at)")),
                        null,
                        false,
                        List.of("at"))));
    CatalogLoader loader = runListed(events, settings);

    Catalog catalog = loader.loadCatalog();
    Table orders = catalog.loadTable(TableIdentifier.of("events", "order_events"));
    assertThat(orders.spec().fields())
        .extracting(f -> f.transform().toString())
        .containsExactly("bucket[4]");
    Map<String, Map<Object, JsonNode>> expected =
        latestPerKey(events.stream().filter(e -> e.contains("\"order_events\"")).toList());
    List<List<Object>> wantedOrders = new ArrayList<>();
    for (JsonNode event : expected.get("order_events").values()) {
      wantedOrders.add(toRow(orders, event));
    }
    assertThat(readRows(orders))
        .as("partitioned upserts: the last event per key")
        .containsExactlyInAnyOrderElementsOf(wantedOrders);
    assertThat(partitionsOf(orders)).as("order files span several buckets").hasSizeGreaterThan(1);

    Table clicks = catalog.loadTable(TableIdentifier.of("events", "click_logs"));
    assertThat(clicks.schema().findField("at").type()).isEqualTo(Types.TimestampType.withZone());
    assertThat(clicks.specs()).as("by day first, region added when it appeared").hasSize(2);
    assertThat(clicks.spec().fields())
        .extracting(
            f -> f.transform().toString(), f -> clicks.schema().findColumnName(f.sourceId()))
        .containsExactly(tuple("day", "at"), tuple("identity", "region"));
    assertThat(readRows(clicks)).as("every click appended once").hasSize(120);
    assertThat(clicks.schema().identifierFieldIds())
        .as("an append table has no key: Iceberg's writer would replace rows of equal keys")
        .isEmpty();
    int day27 = (int) java.time.LocalDate.parse("2026-11-27").toEpochDay();
    assertThat(partitionsOf(clicks))
        .as("files of the first spec by day, of the second by day and region")
        .contains(
            "0:" + day27, "0:" + (day27 + 1), "1:" + day27 + "/eu", "1:" + (day27 + 1) + "/us");
  }

  @Test
  void anUpsertTableWithRowsKeepsItsSpecWhenItsRuleGainsCandidates() throws Exception {
    // A first job fills an unpartitioned upsert table; a second one, whose rule would bucket it,
    // updates the same keys. Equality deletes of a bucketed spec would not reach the first rows.
    List<String> first = new ArrayList<>();
    List<String> second = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      first.add(
          String.format(
              Locale.ROOT,
              "{\"event_type\":\"accounts\",\"id\":%d,\"status\":\"a%d\"}",
              i % 20,
              i));
      second.add(
          String.format(
              Locale.ROOT,
              "{\"event_type\":\"accounts\",\"id\":%d,\"status\":\"b%d\"}",
              i % 30,
              i));
    }
    runListed(first, accountsRule(List.of()));
    CatalogLoader loader =
        runListed(second, accountsRule(List.of(PartitionCandidate.parse("bucket(4, id)"))));

    Table accounts = loader.loadCatalog().loadTable(TableIdentifier.of("events", "accounts"));
    List<String> all = new ArrayList<>(first);
    all.addAll(second);
    List<List<Object>> wanted = new ArrayList<>();
    for (JsonNode event : latestPerKey(all).get("accounts").values()) {
      wanted.add(toRow(accounts, event));
    }
    assertThat(readRows(accounts))
        .as("the last event per key, once")
        .containsExactlyInAnyOrderElementsOf(wanted);
    assertThat(accounts.specs()).as("the spec stayed").hasSize(1);
    assertThat(accounts.spec().isUnpartitioned()).isTrue();
  }

  private static IngestSettings accountsRule(List<PartitionCandidate> candidates) {
    return IngestSettings.defaults("events")
        .withTables(List.of(new TableRule("accounts", List.of("id"), candidates, null, true)));
  }

  /**
   * Runs the job over {@code events} (one source subtask, 150 events/s, a checkpoint every 200 ms,
   * parallelism 2) to the end.
   */
  private CatalogLoader runListed(List<String> events, IngestSettings settings) throws Exception {
    CatalogLoader loader = IngestJob.catalogLoader(catalogSettings());
    runListed(events, settings, loader);
    return loader;
  }

  /** Runs the job over {@code events} into {@code loader}'s catalog, as above, to the end. */
  static void runListed(List<String> events, IngestSettings settings, CatalogLoader loader)
      throws Exception {
    ListedEvents.runJob(events, settings, loader, 150, "ingest-listed-it");
  }

  /** {@code specId:partition} of every live data file. */
  private static java.util.Set<String> partitionsOf(Table table) throws IOException {
    java.util.Set<String> partitions = new java.util.TreeSet<>();
    try (var tasks = table.newScan().planFiles()) {
      for (var task : tasks) {
        var file = task.file();
        StringBuilder values = new StringBuilder();
        for (int i = 0; i < file.partition().size(); i++) {
          values.append(i == 0 ? "" : "/").append(file.partition().get(i, Object.class));
        }
        partitions.add(file.specId() + ":" + values);
      }
    }
    return partitions;
  }

  private CatalogSettings catalogSettings() {
    return catalogSettings(dir);
  }

  /** A JDBC catalog on SQLite in {@code dir}. */
  static CatalogSettings catalogSettings(Path dir) {
    return new CatalogSettings(
        "firn",
        "jdbc",
        "jdbc:sqlite:" + dir.resolve("catalog.db"),
        dir.resolve("warehouse").toString(),
        Map.of());
  }

  static List<Record> readAll(Table table) throws IOException {
    List<Record> records = new ArrayList<>();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      rows.forEach(r -> records.add(r.copy()));
    }
    return records;
  }

  private void runAndVerify(long checkpointMillis, double eventsPerSecond) throws Exception {
    CatalogSettings settings = catalogSettings();
    CatalogLoader loader = IngestJob.catalogLoader(settings);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(2);
    env.enableCheckpointing(checkpointMillis);
    IngestJob.addSink(
        IngestJob.sampleEvents(env, EVENTS, eventsPerSecond),
        loader,
        IngestSettings.defaults("events"),
        Map.of());
    JobID job = env.execute("ingest-it").getJobID();

    Catalog catalog = loader.loadCatalog();
    Map<String, Map<Object, JsonNode>> expected = latestPerKey();
    assertMetrics(job);
    assertThat(expected).containsOnlyKeys("order_events", "user_events");
    for (String name : expected.keySet()) {
      Table table = catalog.loadTable(TableIdentifier.of("events", name));
      assertThat(TableUtil.formatVersion(table)).as(name).isEqualTo(2);
      assertThat(table.schema().identifierFieldNames()).as(name).containsExactly("id");
      assertThat(table.currentSnapshot().summary())
          .as(name + " has equality deletes")
          .hasEntrySatisfying(
              "total-equality-deletes", v -> assertThat(Long.parseLong(v)).isPositive());

      List<List<Object>> actual = readRows(table);
      List<List<Object>> wanted = new ArrayList<>();
      for (JsonNode event : expected.get(name).values()) {
        wanted.add(toRow(table, event));
      }
      assertThat(actual)
          .as(name + " holds the last event per key")
          .containsExactlyInAnyOrderElementsOf(wanted);
    }
    assertThat(
            catalog
                .loadTable(TableIdentifier.of("events", "user_events"))
                .schema()
                .findField("loyalty_tier"))
        .as("a field that appeared mid-run became a column")
        .isNotNull();
    assertThat(expected.get("user_events").get("u25").has("loyalty_tier"))
        .as("u25's last event predates the new field, so its row holds null there")
        .isFalse();

    List<Record> letters = readAll(catalog.loadTable(TableIdentifier.of("events", "dead_letters")));
    assertThat(letters)
        .extracting(
            r -> r.getField("reason"),
            r -> r.getField("payload"),
            r -> r.getField("source_position"))
        .containsExactlyInAnyOrder(
            tuple(
                "unparseable_json",
                SampleEvents.event(SampleEvents.malformedIndex(EVENTS), EVENTS),
                "generator/" + SampleEvents.malformedIndex(EVENTS)),
            tuple(
                "missing_key",
                SampleEvents.event(SampleEvents.missingKeyIndex(EVENTS), EVENTS),
                "generator/" + SampleEvents.missingKeyIndex(EVENTS)));
    assertThat(letters)
        .filteredOn(r -> "missing_key".equals(r.getField("reason")))
        .extracting(r -> r.getField("detail"))
        .containsExactly("key field 'id' is absent");
    assertThat(letters).allSatisfy(r -> assertThat(r.getField("received_at")).isNotNull());
  }

  /** The job's firn metrics match what it wrote (names and labels as docs/metrics.md lists). */
  private static void assertMetrics(JobID job) {
    Map<String, Double> metrics = firnMetrics(job);
    long orders = 0;
    long users = 0;
    for (long i = 0; i < EVENTS; i++) {
      if (i != SampleEvents.malformedIndex(EVENTS) && i != SampleEvents.missingKeyIndex(EVENTS)) {
        if (i % 2 == 0) {
          orders++;
        } else {
          users++;
        }
      }
    }
    assertThat(metrics)
        .as("records per table, dead letters per reason, tables created")
        .containsEntry(
            "ingest_records_total{catalog=firn,namespace=events,table=order_events}",
            (double) orders)
        .containsEntry(
            "ingest_records_total{catalog=firn,namespace=events,table=user_events}", (double) users)
        .containsEntry("ingest_dead_letters_total{reason=unparseable_json}", 1.0)
        .containsEntry("ingest_dead_letters_total{reason=missing_key}", 1.0)
        .containsEntry("ingest_dead_letters_total{reason=incompatible_type}", 0.0)
        // order_events, user_events and the dead-letter table
        .containsEntry("ingest_table_creations_total{catalog=firn}", 3.0)
        .containsEntry(
            "ingest_schema_changes_total{catalog=firn,namespace=events,table=user_events}", 1.0)
        .doesNotContainKey(
            "ingest_schema_changes_total{catalog=firn,namespace=events,table=order_events}")
        .containsKey("ingest_commit_lag_seconds{}");
  }

  /**
   * The job's metrics under the operator group {@code firn}, as {@code name{label=value,...}} (the
   * key/value groups below {@code firn}, in order) summed over subtasks.
   */
  static Map<String, Double> firnMetrics(JobID job) {
    Map<String, Double> values = new TreeMap<>();
    for (Map.Entry<MetricGroup, Map<String, Metric>> group :
        METRICS.getMetricsByGroup().entrySet()) {
      Map<String, String> variables = group.getKey().getAllVariables();
      String[] scope = group.getKey().getScopeComponents();
      int firn = Arrays.asList(scope).indexOf("firn");
      if (!job.toString().equals(variables.get("<job_id>")) || firn < 0) {
        continue;
      }
      List<String> labels = new ArrayList<>();
      for (int i = firn + 1; i + 1 < scope.length; i += 2) {
        labels.add(scope[i] + "=" + scope[i + 1]);
      }
      for (Map.Entry<String, Metric> metric : group.getValue().entrySet()) {
        double value =
            metric.getValue() instanceof Counter counter
                ? counter.getCount()
                : ((Number) ((Gauge<?>) metric.getValue()).getValue()).doubleValue();
        values.merge(metric.getKey() + "{" + String.join(",", labels) + "}", value, Double::sum);
      }
    }
    return values;
  }

  private static Map<String, Map<Object, JsonNode>> latestPerKey() throws IOException {
    List<String> good = new ArrayList<>();
    for (long i = 0; i < EVENTS; i++) {
      if (i != SampleEvents.malformedIndex(EVENTS) && i != SampleEvents.missingKeyIndex(EVENTS)) {
        good.add(SampleEvents.event(i, EVENTS));
      }
    }
    return latestPerKey(good);
  }

  /** The last of the (well-formed) plain JSON events per table and key, in order. */
  static Map<String, Map<Object, JsonNode>> latestPerKey(List<String> goodEvents)
      throws IOException {
    ObjectMapper mapper = new ObjectMapper();
    Map<String, Map<Object, JsonNode>> latest = new HashMap<>();
    for (String payload : goodEvents) {
      JsonNode event = mapper.readTree(payload);
      JsonNode id = event.get("id");
      Object key = id.isTextual() ? id.asText() : id.longValue();
      latest
          .computeIfAbsent(event.get("event_type").asText(), t -> new LinkedHashMap<>())
          .put(key, event);
    }
    return latest;
  }

  static List<List<Object>> readRows(Table table) throws IOException {
    List<List<Object>> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record record : records) {
        List<Object> row = new ArrayList<>();
        for (Types.NestedField column : table.schema().columns()) {
          row.add(record.getField(column.name()));
        }
        rows.add(row);
      }
    }
    return rows;
  }

  static List<Object> toRow(Table table, JsonNode event) {
    List<Object> row = new ArrayList<>();
    for (Types.NestedField column : table.schema().columns()) {
      JsonNode value = event.get(column.name());
      if (value == null || value.isNull()) {
        row.add(null);
        continue;
      }
      switch (column.type().typeId()) {
        case LONG -> row.add(value.longValue());
        case DOUBLE -> row.add(value.doubleValue());
        case BOOLEAN -> row.add(value.booleanValue());
        default -> row.add(value.asText());
      }
    }
    return row;
  }
}
