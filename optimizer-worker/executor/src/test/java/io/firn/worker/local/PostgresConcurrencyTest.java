/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.core.commit.CommitOutcome;
import io.firn.core.plan.BinPackPlanner;
import io.firn.core.plan.OptimizingType;
import io.firn.core.policy.OptimizingPolicy;
import io.firn.testkit.ScratchDatabase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.SnapshotUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Truly concurrent threads on one table of a JDBC catalog on PostgreSQL: a writer thread upserting
 * and deleting (delete-only checkpoints and blind deletes included) and two optimizer threads, one
 * on the default path and one forcing random types, each with its own catalog connection and table
 * instance, so commits race through Iceberg's retry loop and the catalog's compare-and-swap. Every
 * snapshot of the resulting history is then read with Iceberg's reader: a writer snapshot must hold
 * exactly the writer's rows at that commit, a Firn snapshot exactly its parent's.
 */
class PostgresConcurrencyTest {
  private static final TableIdentifier ID = TableIdentifier.of("db", "race");
  private static final int KEYS = 400;
  private static final int WRITER_COMMITS = 45;

  @TempDir Path warehouse;
  private ScratchDatabase database;

  @BeforeEach
  void createDatabase() {
    database = ScratchDatabase.create("firn_race_");
  }

  @AfterEach
  void dropDatabase() {
    database.close();
  }

  @Test
  void everySnapshotHoldsTheWritersRowsWhileOptimizersRaceTheWriter() throws Exception {
    Table writerTable =
        catalog()
            .createTable(
                ID,
                UpsertCommits.SCHEMA,
                PartitionSpec.builderFor(UpsertCommits.SCHEMA).bucket("id", 4).build(),
                Map.of(
                    "format-version", "2",
                    // A long-running stream's delete manifests get merged; make it happen here.
                    "commit.manifest.min-count-to-merge", "3"));
    UpsertCommits writer = new UpsertCommits(writerTable);
    Map<Long, Map<Long, String>> writerStates = new ConcurrentHashMap<>();
    writerStates.put(writer.commit(upserts(0, KEYS, 0), List.of()), writer.expected());

    AtomicBoolean stop = new AtomicBoolean();
    List<Throwable> errors = new CopyOnWriteArrayList<>();
    Map<CommitOutcome.Result, AtomicInteger> outcomes = new EnumMap<>(CommitOutcome.Result.class);
    for (CommitOutcome.Result result : CommitOutcome.Result.values()) {
      outcomes.put(result, new AtomicInteger());
    }
    List<String> alarms = new CopyOnWriteArrayList<>();
    OptimizingPolicy policy =
        OptimizingPolicy.DEFAULTS.withOverrides(
            Map.of("minor.trigger.file-count", "3", "minor.trigger.interval", "0s"));
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 2; t++) {
      boolean forced = t == 1;
      SplittableRandom random = new SplittableRandom(100 + t);
      Table table = catalog().loadTable(ID);
      threads.add(
          new Thread(
              () -> {
                LocalOptimizer optimizer =
                    new LocalOptimizer(policy, new BinPackPlanner(), 1, line -> {});
                try {
                  while (!stop.get()) {
                    table.refresh();
                    OptimizingType type =
                        forced ? OptimizingType.values()[1 + random.nextInt(3)] : null;
                    for (CommitOutcome outcome :
                        optimizer.optimize(table, type, Instant.now()).outcomes()) {
                      outcomes.get(outcome.result()).incrementAndGet();
                      if (outcome.result() == CommitOutcome.Result.INTEGRITY_FAILED
                          || outcome.result() == CommitOutcome.Result.UNKNOWN) {
                        alarms.add(outcome.message());
                      }
                    }
                  }
                } catch (Throwable e) {
                  errors.add(e);
                }
              },
              "optimizer-" + t));
    }
    threads.forEach(Thread::start);
    SplittableRandom random = new SplittableRandom(7);
    try {
      for (int i = 0; i < WRITER_COMMITS && errors.isEmpty(); i++) {
        int kind = random.nextInt(10);
        List<Long> deletes = new ArrayList<>();
        Map<Long, String> rows = new LinkedHashMap<>();
        if (kind < 2) {
          // A delete-only checkpoint, some of its keys possibly gone already (blind deletes).
          for (int d = 0; d < 1 + random.nextInt(10); d++) {
            deletes.add((long) random.nextInt(KEYS + 50));
          }
        } else {
          rows = upserts(random.nextInt(KEYS), 5 + random.nextInt(60), i + 1);
          for (int d = 0; d < random.nextInt(4); d++) {
            long key = random.nextInt(KEYS + 50);
            if (!rows.containsKey(key)) {
              deletes.add(key);
            }
          }
        }
        List<Long> distinct = new ArrayList<>(new java.util.LinkedHashSet<>(deletes));
        writerStates.put(writer.commit(rows, distinct), writer.expected());
      }
    } finally {
      stop.set(true);
      for (Thread thread : threads) {
        thread.join(120_000);
      }
    }

    assertThat(errors).as("optimizer thread errors").isEmpty();
    assertThat(alarms).as("integrity alarms").isEmpty();
    assertThat(outcomes.get(CommitOutcome.Result.COMMITTED).get())
        .as("outcomes %s", outcomes)
        .isPositive();
    Table table = catalog().loadTable(ID);
    Map<Long, String> state = null;
    List<Snapshot> history = new ArrayList<>();
    SnapshotUtil.currentAncestors(table).forEach(history::add);
    Collections.reverse(history);
    int firnSnapshots = 0;
    for (Snapshot snapshot : history) {
      Map<Long, String> written = writerStates.get(snapshot.snapshotId());
      if (written != null) {
        state = written;
      } else {
        firnSnapshots++;
        assertThat(snapshot.summary()).containsKey("firn.process-id");
      }
      assertThat(rowsAt(table, snapshot.snapshotId()))
          .as(
              "snapshot %d (%s, %s)",
              snapshot.snapshotId(), snapshot.operation(), written != null ? "writer" : "Firn")
          .isEqualTo(state);
    }
    assertThat(firnSnapshots).isPositive();
    System.out.printf(
        "%d snapshots checked, %d of them Firn's; outcomes %s%n",
        history.size(), firnSnapshots, outcomes);
    assertThat(history.stream().filter(s -> writerStates.containsKey(s.snapshotId())).count())
        .as("every writer commit is in the history")
        .isEqualTo(WRITER_COMMITS + 1);
  }

  private Catalog catalog() {
    return CatalogUtil.buildIcebergCatalog(
        "firn",
        Map.of(
            "type",
            "jdbc",
            "uri",
            database.uri(),
            "jdbc.user",
            database.user(),
            "warehouse",
            warehouse.toString()),
        new Configuration());
  }

  private static Map<Long, String> upserts(int from, int count, int version) {
    Map<Long, String> rows = new LinkedHashMap<>();
    for (int i = 0; i < count; i++) {
      long key = (from + i) % KEYS;
      rows.put(key, "v" + version + "-" + key);
    }
    return rows;
  }

  /** The rows of a snapshot as {@code id -> v}; a duplicated key fails at once. */
  private static Map<Long, String> rowsAt(Table table, long snapshotId) {
    Map<Long, String> rows = new HashMap<>();
    try (CloseableIterable<Record> records =
        IcebergGenerics.read(table).useSnapshot(snapshotId).build()) {
      for (Record record : records) {
        Long id = (Long) record.getField("id");
        String previous = rows.put(id, (String) record.getField("v"));
        assertThat(previous).as("key %d appears twice in snapshot %d", id, snapshotId).isNull();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }
}
