/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code bin/firn dead-letters}: a fixed configuration replays what an earlier one refused, each
 * dead letter exactly once, also when the replay is interrupted between any two of its commits (ADR
 * 0008 §12). Real Iceberg tables in a SQLite JDBC catalog, the job's routing in a real Flink
 * MiniCluster, the command's own entry point.
 */
class DeadLetterReplayIT {
  @RegisterExtension
  static final MiniClusterExtension CLUSTER =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(2)
              .build());

  private static final String UNPARSEABLE = "{\"event_type\":\"clicks\",";
  private static final String NOT_AN_OBJECT = "[1, 2]";

  @TempDir Path dir;

  @Test
  void aFixedConfigurationReplaysEachDeadLetterOnceAndKeepsWhatItStillRefuses() throws Exception {
    List<String> events = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      events.add(click(i));
      if (i < 40) {
        events.add(payment(i + 1, i + 1));
      }
      if (i < 5) {
        events.add(payment(101 + i, -(101 + i)));
      }
    }
    events.add(UNPARSEABLE);
    events.add(NOT_AN_OBJECT);
    Path strict = config("strict.yaml", true);
    runJob(events, IngestConfigParser.parse(strict));

    Catalog catalog = catalog(strict);
    assertThat(reasons(catalog))
        .as("what the strict configuration refused")
        .containsEntry("contract_violation", 11L)
        .containsEntry("unparseable_json", 1L)
        .containsEntry("not_an_object", 1L)
        .hasSize(3);
    Run list = command("--config", strict.toString(), "list", "--reason", "contract_violation");
    assertThat(list.code).isZero();
    assertThat(list.out)
        .contains("11 dead letters in events.dead_letters: {contract_violation=11}")
        .contains("contract check 'has_page' of events.clicks");

    Path fixed = config("fixed.yaml", false);
    Run replay = command("--config", fixed.toString(), "replay");
    assertThat(replay.code).as(replay.err).isZero();
    assertThat(replay.out)
        .contains(": 13 dead letters, 11 rows written")
        .contains("2 refused again {not_an_object=1, unparseable_json=1}");

    assertThat(payments(catalog))
        .as("every payment once, the replayed ones too")
        .containsExactlyInAnyOrderElementsOf(expectedPayments(40, true));
    assertThat(clicks(catalog))
        .as("every click once")
        .containsExactlyInAnyOrderElementsOf(range(0, 60));
    assertThat(deadLetters(catalog))
        .as("only what the fixed configuration refuses too, once, unclaimed")
        .extracting(r -> r.getField("payload"), r -> r.getField(DeadLetterTable.REPLAY_ID))
        .containsExactlyInAnyOrder(tuple(UNPARSEABLE, null), tuple(NOT_AN_OBJECT, null));
    for (String table : List.of("payments", "clicks")) {
      assertThat(catalog.loadTable(id(table)).currentSnapshot().summary())
          .as("the replay's commit of %s names it", table)
          .containsKey(DeadLetterReplay.REPLAY_PROPERTY);
    }

    Run again = command("--config", fixed.toString(), "replay", "--reason", "contract_violation");
    assertThat(again.code).isZero();
    assertThat(again.out).contains("nothing to replay");
  }

  /**
   * A replay stopped after its claim, or after its commit of one table, or of both, leaves its
   * claimed dead letters behind; the next replay finishes it: each table gets the replay's rows
   * once, and the dead letters leave the table once.
   */
  @ParameterizedTest
  @ValueSource(strings = {"claimed", "committed events.payments", "committed events.clicks"})
  void anInterruptedReplayIsFinishedByTheNextWithoutLosingOrRepeatingARow(String point)
      throws Exception {
    Path fixed = config("fixed.yaml", false);
    Catalog catalog = catalog(fixed);
    Table deadLetters = createDeadLetters(catalog);
    List<Record> letters = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      String payload = i % 2 == 0 ? payment(101 + i, -(101 + i)) : click(i);
      letters.add(letter(payload, "contract_violation", i));
    }
    letters.add(letter(UNPARSEABLE, "unparseable_json", 12));
    DeadLetterTable.replace(deadLetters, null, List.of(), letters, Map.of());

    Run interrupted =
        command(
            p -> {
              if (p.equals(point)) {
                throw new IllegalStateException("interrupted at " + p);
              }
            },
            "--config",
            fixed.toString(),
            "replay");
    assertThat(interrupted.code).as(interrupted.out).isEqualTo(2);
    assertThat(interrupted.err)
        .contains("interrupted at " + point)
        .contains("the next 'bin/firn dead-letters replay' finishes it");
    assertThat(deadLetters(catalog))
        .as("every dead letter still there, claimed")
        .hasSize(13)
        .allSatisfy(r -> assertThat(r.getField(DeadLetterTable.REPLAY_ID)).isNotNull());

    Run otherConfiguration = command("--config", config("other.yaml", true).toString(), "replay");
    assertThat(otherConfiguration.code).isEqualTo(1);
    assertThat(otherConfiguration.err).contains("was started with another ingest configuration");

    Run resumed = command("--config", fixed.toString(), "replay");
    assertThat(resumed.code).as(resumed.err).isZero();
    assertThat(resumed.out).contains("(interrupted earlier, now finished): 13 dead letters");
    if (!point.equals("claimed")) {
      assertThat(resumed.out)
          .contains("already committed before the interruption: [events.payments");
    }
    assertThat(payments(catalog))
        .containsExactlyInAnyOrderElementsOf(
            List.of(
                List.of(101L, -101L),
                List.of(103L, -103L),
                List.of(105L, -105L),
                List.of(107L, -107L),
                List.of(109L, -109L),
                List.of(111L, -111L)));
    assertThat(clicks(catalog)).containsExactlyInAnyOrder(1L, 3L, 5L, 7L, 9L, 11L);
    assertThat(deadLetters(catalog))
        .extracting(r -> r.getField("payload"), r -> r.getField(DeadLetterTable.REPLAY_ID))
        .containsExactly(tuple(UNPARSEABLE, null));
    Snapshot last = catalog.loadTable(id("dead_letters")).currentSnapshot();
    assertThat(last.summary()).containsKey(DeadLetterTable.DONE_PROPERTY);
  }

  /**
   * A table that appends new keys takes replayed rows only when the operator says the job is
   * stopped: a running job would not know the replayed keys (ADR 0008 §14).
   */
  @Test
  void aTableThatAppendsNewKeysTakesAReplayOnlyWithTheJobStopped() throws Exception {
    List<String> events = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      events.add(payment(i + 1, i + 1));
    }
    for (int i = 0; i < 5; i++) {
      events.add(payment(101 + i, -(101 + i)));
    }
    Path strict = config("strict.yaml", true, true);
    runJob(events, IngestConfigParser.parse(strict));
    Catalog catalog = catalog(strict);
    assertThat(payments(catalog)).containsExactlyInAnyOrderElementsOf(expectedPayments(40, false));
    long equalityDeletes =
        catalog.loadTable(id("payments")).currentSnapshot().summary().entrySet().stream()
            .filter(e -> e.getKey().equals("total-equality-deletes"))
            .mapToLong(e -> Long.parseLong(e.getValue()))
            .sum();
    assertThat(equalityDeletes).as("40 new keys appended").isZero();

    Path fixed = config("fixed.yaml", false, true);
    Run refused = command("--config", fixed.toString(), "replay");
    assertThat(refused.code).as(refused.out).isEqualTo(1);
    assertThat(refused.err)
        .contains("routes rows to table events.payments, whose rule appends new keys")
        .contains("Stop the ingest job, then run the replay again with --job-stopped");
    assertThat(payments(catalog)).hasSize(40);

    Run replay = command("--config", fixed.toString(), "replay", "--job-stopped");
    assertThat(replay.code).as(replay.err).isZero();
    assertThat(payments(catalog)).containsExactlyInAnyOrderElementsOf(expectedPayments(40, true));
    assertThat(command("--config", fixed.toString(), "list", "--job-stopped").err)
        .contains("--job-stopped is an option of replay");
  }

  @Test
  void badArgumentsAreRefusedNamingTheArgument() {
    assertThat(command("list", "--reason", "nope").err)
        .contains("--reason 'nope' is not one of [unparseable_json");
    assertThat(command("list", "--limit", "0").err)
        .contains("--limit '0' is not a positive whole number");
    assertThat(command("list", "--since", "yesterday").err)
        .contains("--since 'yesterday' is not an ISO-8601 instant");
    assertThat(command("replay", "--json").err).contains("--json is an option of list");
    assertThat(command().err).contains("name a command: list or replay");
    assertThat(command("list", "replay").code).isEqualTo(1);
  }

  // --- the stream and the configurations

  private static String click(int seq) {
    return String.format(
        Locale.ROOT,
        "{\"event_type\":\"clicks\",\"seq\":%d%s}",
        seq,
        seq % 10 == 0 ? "" : ",\"page\":\"/p" + seq % 7 + "\"");
  }

  private static String payment(long id, long amount) {
    return String.format(
        Locale.ROOT, "{\"event_type\":\"payments\",\"id\":%d,\"amount\":%d}", id, amount);
  }

  private static List<List<Object>> expectedPayments(int good, boolean replayed) {
    List<List<Object>> rows = new ArrayList<>();
    for (long i = 1; i <= good; i++) {
      rows.add(List.of(i, i));
    }
    if (replayed) {
      for (long i = 101; i <= 105; i++) {
        rows.add(List.of(i, -i));
      }
    }
    return rows;
  }

  private static List<Long> range(int from, int to) {
    List<Long> values = new ArrayList<>();
    for (long i = from; i < to; i++) {
      values.add(i);
    }
    return values;
  }

  /** The strict configuration checks contracts; the fixed one (a later version) does not. */
  private Path config(String name, boolean strict) throws IOException {
    return config(name, strict, false);
  }

  /** As above; with {@code newKeys} payments append their new keys. */
  private Path config(String name, boolean strict, boolean newKeys) throws IOException {
    String contracts =
        strict
            ? String.join(
                "\n",
                "    contract:",
                "      - {name: not_negative, field: amount, min: 0}",
                "  - match: clicks",
                "    upsert: false",
                "    contract:",
                "      - {name: has_page, field: page, required: true}")
            : String.join("\n", "  - match: clicks", "    upsert: false");
    Path file = dir.resolve(name);
    Files.writeString(
        file,
        String.join(
            "\n",
            "source: {type: generator}",
            "catalog:",
            "  uri: 'jdbc:sqlite:" + dir.resolve("catalog.db") + "'",
            "  warehouse: '" + dir.resolve("warehouse") + "'",
            "namespace: events",
            "tables:",
            "  - match: payments",
            newKeys ? "    inserts: append-new-keys" : "    inserts: upsert",
            contracts,
            "checkpoint-interval: 200ms",
            ""));
    return file;
  }

  private static void runJob(List<String> events, IngestConfig config) throws Exception {
    ListedEvents.runJob(
        events,
        config.settings(),
        IngestJob.catalogLoader(config.catalog()),
        200,
        "dead-letter-replay-it");
  }

  // --- the command

  private record Run(int code, String out, String err) {}

  private static Run command(String... args) {
    return command(DeadLetterReplay.Interruption.NONE, args);
  }

  private static Run command(DeadLetterReplay.Interruption interruption, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        DeadLetterCommand.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            interruption);
    return new Run(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  // --- the tables, read back with Iceberg's generic reader

  private static Catalog catalog(Path config) {
    return IngestJob.catalogLoader(IngestConfigParser.parse(config).catalog()).loadCatalog();
  }

  private static TableIdentifier id(String table) {
    return TableIdentifier.of("events", table);
  }

  private static Table createDeadLetters(Catalog catalog) {
    ((SupportsNamespaces) catalog).createNamespace(Namespace.of("events"));
    return catalog
        .buildTable(id("dead_letters"), DeadLetters.SCHEMA)
        .withProperty("format-version", "2")
        .create();
  }

  private static Record letter(String payload, String reason, int index) {
    Record row = GenericRecord.create(DeadLetters.SCHEMA);
    row.setField("payload", payload);
    row.setField("reason", reason);
    row.setField("detail", "refused by the test's earlier configuration");
    row.setField("received_at", OffsetDateTime.of(2026, 12, 3, 8, 0, index, 0, ZoneOffset.UTC));
    row.setField("source_position", "test/" + index);
    return row;
  }

  private static List<Record> readAll(Table table) throws IOException {
    List<Record> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      records.forEach(rows::add);
    }
    return rows;
  }

  private static List<Record> deadLetters(Catalog catalog) throws IOException {
    return readAll(catalog.loadTable(id("dead_letters")));
  }

  private static Map<String, Long> reasons(Catalog catalog) throws IOException {
    Map<String, Long> reasons = new java.util.TreeMap<>();
    for (Record row : deadLetters(catalog)) {
      reasons.merge((String) row.getField("reason"), 1L, Long::sum);
    }
    return reasons;
  }

  private static List<List<Object>> payments(Catalog catalog) throws IOException {
    List<List<Object>> rows = new ArrayList<>();
    for (Record row : readAll(catalog.loadTable(id("payments")))) {
      rows.add(List.of(row.getField("id"), row.getField("amount")));
    }
    return rows;
  }

  private static List<Long> clicks(Catalog catalog) throws IOException {
    List<Long> rows = new ArrayList<>();
    for (Record row : readAll(catalog.loadTable(id("clicks")))) {
      rows.add((Long) row.getField("seq"));
    }
    return rows;
  }
}
