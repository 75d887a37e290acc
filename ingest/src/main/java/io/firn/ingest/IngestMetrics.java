/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import java.time.Clock;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentSkipListMap;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.iceberg.catalog.TableIdentifier;
import org.jspecify.annotations.Nullable;

/**
 * The ingest job's metrics, registered on the routing operator's Flink metric group {@code firn}
 * (docs/metrics.md, "Ingest"): with the kit's Prometheus relabelling they become {@code
 * firn_ingest_records_total{catalog,namespace,table}}, {@code
 * firn_ingest_dead_letters_total{reason}}, {@code firn_ingest_schema_changes_total{catalog,
 * namespace,table}}, {@code firn_ingest_table_creations_total{catalog}} and {@code
 * firn_ingest_commit_lag_seconds}.
 *
 * <p>Per-table series are capped: the first {@code tableSeriesLimit} tables a subtask sees get
 * their own series, later ones are counted under the table {@value #OTHER_TABLES}.
 *
 * <p>Commit lag: the sink commits a checkpoint's files when that checkpoint completes, so a record
 * counts as committed once a checkpoint taken after it completed. The gauge is the age of the
 * oldest record received since the last such checkpoint (0 when there is none): it grows while
 * checkpoints fail or stall.
 *
 * <p>Not thread-safe except for the gauge: one instance per routing subtask.
 */
final class IngestMetrics {
  /** The table label of tables beyond the series cap. */
  static final String OTHER_TABLES = "_other";

  private final MetricGroup firn;
  private final String catalog;
  private final int tableSeriesLimit;
  private final Clock clock;
  private final Map<TableIdentifier, Counter> records = new HashMap<>();
  private final Map<TableIdentifier, Counter> schemaChanges = new HashMap<>();
  private final Map<TableIdentifier, Counter> specChanges = new HashMap<>();
  private final Map<TableIdentifier, Counter> newKeyAppends = new HashMap<>();
  private final Map<String, Counter> contractViolations = new HashMap<>();
  private final Map<DeadLetterReason, Counter> deadLetters = new EnumMap<>(DeadLetterReason.class);
  private final Counter tableCreations;
  // Events of one table often come in runs: skip the map lookup for them.
  private @Nullable TableIdentifier lastTable;
  private @Nullable Counter lastTableRecords;

  /** Checkpoint id → when the oldest record before that checkpoint's barrier arrived (millis). */
  private final ConcurrentSkipListMap<Long, Long> pending = new ConcurrentSkipListMap<>();

  /** When the oldest record since the last checkpoint barrier arrived, or -1. */
  private volatile long oldestSinceBarrier = -1;

  IngestMetrics(MetricGroup operator, String catalog, int tableSeriesLimit, Clock clock) {
    this.firn = operator.addGroup("firn");
    this.catalog = catalog;
    this.tableSeriesLimit = tableSeriesLimit;
    this.clock = clock;
    for (DeadLetterReason reason : DeadLetterReason.values()) {
      // All reasons from the start: a rate over a series that appears only with the first bad
      // record would miss that record.
      deadLetters.put(
          reason, firn.addGroup("reason", reason.code()).counter("ingest_dead_letters_total"));
    }
    this.tableCreations = firn.addGroup("catalog", catalog).counter("ingest_table_creations_total");
    firn.gauge("ingest_commit_lag_seconds", (Gauge<Double>) this::commitLagSeconds);
  }

  /** A record (upsert or delete) sent to {@code table}. */
  @SuppressWarnings(
      "ReferenceEquality") // identifiers are cached per name: identity is the fast path
  void record(TableIdentifier table) {
    received();
    Counter counter = lastTableRecords;
    if (table != lastTable || counter == null) {
      lastTable = table;
      counter = tableCounter(records, table, "ingest_records_total");
      lastTableRecords = counter;
    }
    counter.inc();
  }

  /** An event sent to the dead-letter table. */
  void deadLetter(DeadLetterReason reason) {
    received();
    Objects.requireNonNull(deadLetters.get(reason), "every reason has a counter").inc();
  }

  /** A schema change this subtask applied to {@code table}. */
  void schemaChange(TableIdentifier table) {
    tableCounter(schemaChanges, table, "ingest_schema_changes_total").inc();
  }

  /**
   * A row that broke {@code check} ({@code <table>/<check>}) of a data contract. The series are
   * bounded by the checks the configuration names (times the tables their rules match).
   */
  void contractViolation(String check) {
    contractViolations
        .computeIfAbsent(
            check,
            c -> {
              int slash = c.indexOf('/');
              return firn.addGroup("table", c.substring(0, slash))
                  .addGroup("rule", c.substring(slash + 1))
                  .counter("ingest_contract_violations_total");
            })
        .inc();
  }

  /** A partition spec change this subtask committed to {@code table}. */
  void specChange(TableIdentifier table) {
    tableCounter(specChanges, table, "ingest_spec_changes_total").inc();
  }

  /** A row of a key new to {@code table} appended without an equality delete (ADR 0008 §14). */
  void newKeyAppend(TableIdentifier table) {
    tableCounter(newKeyAppends, table, "ingest_new_key_appends_total").inc();
  }

  /** A table this subtask found absent and had the sink create. */
  void tableCreation() {
    tableCreations.inc();
  }

  /** The checkpoint barrier {@code checkpointId} passed: what came before it is in it. */
  void barrier(long checkpointId) {
    long oldest = oldestSinceBarrier;
    if (oldest >= 0) {
      pending.put(checkpointId, oldest);
      oldestSinceBarrier = -1;
    }
  }

  /** Checkpoint {@code checkpointId} completed: its records (and earlier ones) are committed. */
  void completed(long checkpointId) {
    pending.headMap(checkpointId, true).clear();
  }

  double commitLagSeconds() {
    long oldest = oldestSinceBarrier;
    Map.Entry<Long, Long> first = pending.firstEntry();
    if (first != null) {
      oldest = oldest < 0 ? first.getValue() : Math.min(oldest, first.getValue());
    }
    return oldest < 0 ? 0.0 : Math.max(0, clock.millis() - oldest) / 1000.0;
  }

  private void received() {
    if (oldestSinceBarrier < 0) {
      oldestSinceBarrier = clock.millis();
    }
  }

  private Counter tableCounter(
      Map<TableIdentifier, Counter> counters, TableIdentifier table, String name) {
    Counter counter = counters.get(table);
    if (counter == null) {
      boolean own = counters.size() < tableSeriesLimit;
      TableIdentifier key = own ? table : TableIdentifier.of(table.namespace(), OTHER_TABLES);
      counter = counters.get(key);
      if (counter == null) {
        counter =
            firn.addGroup("catalog", catalog)
                .addGroup("namespace", table.namespace().toString())
                .addGroup("table", key.name())
                .counter(name);
        counters.put(key, counter);
      }
      counters.put(table, counter);
    }
    return counter;
  }
}
