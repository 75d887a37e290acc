/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptedFiles;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.io.DataWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code inserts: append-new-keys} (ADR 0008 §14) against a model: seeded random Debezium change
 * streams (snapshot reads, creates of new and of existing keys, updates, key changes, deletes and
 * re-creates, a column added mid-stream) go through the real job on a MiniCluster, with a
 * checkpoint every 200 ms, once appending new keys and once upserting every row. Both tables must
 * equal the model (the last image per key, deleted keys absent), read back with Iceberg's generic
 * reader, and the appending run must have written fewer equality deletes. Some runs fail over once
 * mid-stream (the router's key filter comes back from the checkpoint); one of them commits another
 * writer's row before the restore, which must turn the new-key appends off for the table.
 */
class NewKeyInsertsIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TABLE = "items";

  @TempDir Path dir;

  @Test
  void randomChangeStreamsLeaveTheLastImagePerKey() throws Exception {
    for (long seed = 1; seed <= 6; seed++) {
      Stream stream = Stream.random(seed, 500);
      Run appending = run(stream, Inserts.APPEND_NEW_KEYS, seed % 2 == 0 ? 250 : -1, "a" + seed);
      Run upserting = run(stream, Inserts.UPSERT, -1, "u" + seed);
      assertThat(appending.rows).as("seed %d, appending new keys", seed).isEqualTo(stream.model);
      assertThat(upserting.rows).as("seed %d, upserting", seed).isEqualTo(stream.model);
      assertThat(appending.equalityDeletes)
          .as("seed %d: equality deletes appending new keys vs upserting", seed)
          .isLessThan(upserting.equalityDeletes);
    }
  }

  /** A Debezium snapshot of a new table (every key read once) writes no equality delete. */
  @Test
  void aSnapshotOfNewKeysWritesNoEqualityDelete() throws Exception {
    Stream stream = new Stream();
    for (long key = 1; key <= 300; key++) {
      stream.change("r", null, stream.image(key, "v" + key, key, false));
    }
    Run appending = run(stream, Inserts.APPEND_NEW_KEYS, -1, "snapshot");
    assertThat(appending.rows).isEqualTo(stream.model);
    assertThat(appending.equalityDeletes).isZero();
    assertThat(appending.positionDeletes).isZero();
    Run upserting = run(stream, Inserts.UPSERT, -1, "snapshot-upsert");
    assertThat(upserting.rows).isEqualTo(stream.model);
    assertThat(upserting.equalityDeletes).isEqualTo(300);
  }

  /**
   * A fixed schedule of what one checkpoint can hold for one key, all inside the final checkpoint
   * of a bounded run: create, update, delete, create again, an update after the schema grew, a key
   * change onto a new key and one onto a held key.
   */
  @Test
  void changesOfAHeldKeyInsideOneCheckpointReplaceItsAppendedRow() throws Exception {
    Stream stream = new Stream();
    stream.change("c", null, stream.image(1, "a", 1, false));
    stream.change("u", stream.image(1, "a", 1, false), stream.image(1, "b", 2, false));
    stream.change("d", stream.image(1, "b", 2, false), null);
    stream.change("c", null, stream.image(1, "c", 3, false));
    stream.change("c", null, stream.image(2, "x", 1, false));
    stream.change("u", stream.image(2, "x", 1, false), stream.image(2, "y", 2, true));
    stream.change("u", stream.image(1, "c", 3, false), stream.image(1, "d", 4, true));
    stream.change("u", stream.image(1, "d", 4, true), stream.image(3, "moved", 5, true));
    stream.change("c", null, stream.image(4, "four", 1, true));
    stream.change("u", stream.image(3, "moved", 5, true), stream.image(4, "onto", 6, true));
    stream.change("d", stream.image(2, "y", 2, true), null);
    stream.change("c", null, stream.image(2, "back", 7, false));
    Run run = run(stream, Inserts.APPEND_NEW_KEYS, -1, "fixed", 2_000, 1_000, null);
    assertThat(run.rows).isEqualTo(stream.model);
    assertThat(run.equalityDeletes).isZero();
  }

  /**
   * Another writer's row lands while the job is down (between its last checkpoint and the restore):
   * the restored router finds that snapshot and upserts from then on, so the stream's later create
   * of the same key replaces that row instead of standing next to it.
   */
  @Test
  void anotherWritersRowFoundAtRestoreTurnsTheAppendsOff() throws Exception {
    Stream stream = Stream.random(42, 400);
    long foreignKey = 10_000;
    // The foreign key's first event comes well after the crash, so every event of it is replayed
    // after the foreign commit.
    List<String> events = new ArrayList<>(stream.events);
    Stream tail = new Stream();
    tail.model.putAll(stream.model);
    tail.change("c", null, tail.image(foreignKey, "from the stream", 1, true));
    events.addAll(tail.events);
    Stream all = new Stream();
    all.events.addAll(events);
    all.model.putAll(tail.model);
    Map<String, Object> foreign = new TreeMap<>();
    foreign.put("id", foreignKey);
    foreign.put("name", "from another writer");
    Run run = run(all, Inserts.APPEND_NEW_KEYS, 200, "foreign", 200, 400, foreign);
    assertThat(run.rows).isEqualTo(all.model);
  }

  // ---- running the job

  private record Run(
      Map<Long, Map<String, Object>> rows, long equalityDeletes, long positionDeletes) {}

  private Run run(Stream stream, Inserts inserts, int crashAt, String name) throws Exception {
    return run(stream, inserts, crashAt, name, 200, 400, null);
  }

  /**
   * Runs the job over {@code stream} into a new namespace {@code name}; with {@code crashAt} >= 0
   * the task fails once at that event (after a checkpoint completed), and with {@code foreign} that
   * row is first committed to the table by another writer.
   */
  private Run run(
      Stream stream,
      Inserts inserts,
      int crashAt,
      String name,
      long checkpointMillis,
      double perSecond,
      Map<String, Object> foreign)
      throws Exception {
    CatalogLoader loader = IngestJob.catalogLoader(IngestJobIT.catalogSettings(dir));
    TableRule rule =
        new TableRule(TABLE, List.of("id"), List.of(), null, true).withInserts(inserts);
    IngestSettings settings =
        IngestSettings.defaults(name).withFormat(EventFormat.DEBEZIUM).withTables(List.of(rule));
    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(2);
    env.enableCheckpointing(checkpointMillis);
    DataGeneratorSource<IngestEvent> source =
        new DataGeneratorSource<>(
            new ListedEvents(stream.events),
            stream.events.size(),
            RateLimiterStrategy.perSecond(perSecond),
            TypeInformation.of(IngestEvent.class));
    CrashOnce.arm(crashAt, foreign == null ? null : new ForeignRow(loader, name, foreign));
    IngestJob.addSink(
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "listed")
            .setParallelism(1)
            .map(new CrashOnce())
            .setParallelism(1),
        loader,
        settings,
        Map.of());
    env.execute("new-key-inserts-" + name);
    if (crashAt >= 0) {
      assertThat(CrashOnce.crashed.get()).as("the job failed over at event %d", crashAt).isTrue();
    }
    Table table = loader.loadCatalog().loadTable(TableIdentifier.of(name, TABLE));
    long equalityDeletes = 0;
    long positionDeletes = 0;
    for (Snapshot snapshot : table.snapshots()) {
      equalityDeletes += count(snapshot, SnapshotSummary.ADDED_EQ_DELETES_PROP);
      positionDeletes += count(snapshot, SnapshotSummary.ADDED_POS_DELETES_PROP);
    }
    Map<Long, Map<String, Object>> rows = new TreeMap<>();
    for (Record record : IngestJobIT.readAll(table)) {
      Map<String, Object> row = new TreeMap<>();
      for (var field : table.schema().columns()) {
        Object value = record.getField(field.name());
        if (value != null) {
          row.put(field.name(), value instanceof CharSequence text ? text.toString() : value);
        }
      }
      Long key = (Long) record.getField("id");
      assertThat(rows.put(key, row)).as("%s: key %d has two rows", name, key).isNull();
    }
    return new Run(rows, equalityDeletes, positionDeletes);
  }

  private static long count(Snapshot snapshot, String property) {
    return Long.parseLong(snapshot.summary().getOrDefault(property, "0"));
  }

  /** A row of another writer, committed to the table as a plain append. */
  private record ForeignRow(CatalogLoader loader, String namespace, Map<String, Object> row)
      implements java.io.Serializable {
    void commit() throws IOException {
      Table table = loader.loadCatalog().loadTable(TableIdentifier.of(namespace, TABLE));
      GenericRecord record = GenericRecord.create(table.schema());
      row.forEach(record::setField);
      String path = table.locationProvider().newDataLocation("foreign-" + System.nanoTime());
      DataWriter<Record> writer =
          new GenericAppenderFactory(table.schema(), table.spec())
              .newDataWriter(
                  EncryptedFiles.plainAsEncryptedOutput(table.io().newOutputFile(path)),
                  org.apache.iceberg.FileFormat.PARQUET,
                  null);
      try (writer) {
        writer.write(record);
      }
      table.newAppend().appendFile(writer.toDataFile()).commit();
    }
  }

  /**
   * Fails the task once, at event {@code crashAt} and only after a checkpoint completed, so that
   * the job restores from it; the foreign row, if any, is committed just before.
   */
  static final class CrashOnce
      implements MapFunction<IngestEvent, IngestEvent>, CheckpointListener {
    private static final long serialVersionUID = 1L;
    static final AtomicBoolean crashed = new AtomicBoolean();
    private static final AtomicInteger crashAt = new AtomicInteger(-1);
    private static final AtomicInteger completed = new AtomicInteger();
    private static volatile ForeignRow foreign;

    static void arm(int at, ForeignRow row) {
      crashed.set(false);
      completed.set(0);
      crashAt.set(at);
      foreign = row;
    }

    @Override
    public IngestEvent map(IngestEvent event) throws Exception {
      int at = crashAt.get();
      if (at >= 0
          && !crashed.get()
          && completed.get() > 0
          && Integer.parseInt(event.source().substring("list/".length())) >= at) {
        crashed.set(true);
        if (foreign != null) {
          foreign.commit();
        }
        throw new IllegalStateException("test: the task fails once at event " + at);
      }
      return event;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
      completed.incrementAndGet();
    }
  }

  // ---- the stream and its model

  /** Debezium change events of table {@value #TABLE} and the table they must leave behind. */
  static final class Stream {
    final List<String> events = new ArrayList<>();
    final Map<Long, Map<String, Object>> model = new TreeMap<>();

    /**
     * {@code count} random events over a growing key space: a snapshot phase of reads, then creates
     * of new keys (40 %) and changes of existing ones; a {@code tier} column appears halfway.
     */
    static Stream random(long seed, int count) {
      Random random = new Random(seed);
      Stream stream = new Stream();
      long nextKey = 1;
      for (int i = 0; i < count; i++) {
        boolean tier = i >= count / 2;
        if (i < count / 5) {
          stream.change("r", null, stream.image(nextKey++, "r" + i, i, tier));
          continue;
        }
        List<Long> live = new ArrayList<>(stream.model.keySet());
        int dice = random.nextInt(100);
        if (dice < 40 || live.isEmpty()) {
          // A new key, or one deleted before (a re-create).
          long key =
              random.nextInt(10) == 0 && nextKey > 1
                  ? 1 + random.nextInt((int) nextKey - 1)
                  : nextKey++;
          if (stream.model.containsKey(key)) {
            key = nextKey++;
          }
          stream.change("c", null, stream.image(key, "c" + i, i, tier));
          continue;
        }
        long key = live.get(random.nextInt(live.size()));
        Map<String, Object> before = stream.model.get(key);
        String beforeJson = stream.json(before);
        if (dice < 70) {
          stream.change("u", beforeJson, stream.image(key, "u" + i, i, tier));
        } else if (dice < 78) {
          // A key change: onto a new key, or onto a live one.
          long target =
              random.nextBoolean() || live.size() < 2
                  ? nextKey++
                  : live.get(random.nextInt(live.size()));
          stream.change("u", beforeJson, stream.image(target, "k" + i, i, tier));
        } else if (dice < 90) {
          stream.change("d", beforeJson, null);
        } else {
          // A create of a key the table holds (a connector that re-sends): an upsert.
          stream.change("c", null, stream.image(key, "again" + i, i, tier));
        }
      }
      return stream;
    }

    String image(long key, String name, long qty, boolean tier) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("id", key);
      row.put("name", name);
      row.put("qty", qty);
      if (tier) {
        row.put("tier", "t" + (qty % 3));
      }
      return json(row);
    }

    String json(Map<String, Object> row) {
      try {
        return JSON.writeValueAsString(row);
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }

    /** One event; the model follows it as the job must. */
    void change(String op, String before, String after) {
      ObjectNode event = JSON.createObjectNode();
      event.put("op", op);
      try {
        event.set("before", before == null ? null : JSON.readTree(before));
        event.set("after", after == null ? null : JSON.readTree(after));
        event.set("source", JSON.readTree("{\"table\":\"" + TABLE + "\",\"db\":\"shop\"}"));
        events.add(JSON.writeValueAsString(event));
        if (before != null) {
          model.remove(JSON.readTree(before).get("id").asLong());
        }
        if (after != null) {
          Map<String, Object> row = new TreeMap<>();
          var fields = JSON.readTree(after).fields();
          while (fields.hasNext()) {
            var field = fields.next();
            row.put(
                field.getKey(),
                field.getValue().isNumber()
                    ? (Object) field.getValue().asLong()
                    : field.getValue().asText());
          }
          model.put((Long) row.get("id"), row);
        }
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
