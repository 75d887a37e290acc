/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.bench;

import io.firn.core.plan.BinPackPlanner;
import io.firn.core.plan.OptimizingType;
import io.firn.core.policy.OptimizingPolicy;
import io.firn.ingest.EventFormat;
import io.firn.ingest.IngestEvent;
import io.firn.ingest.IngestJob;
import io.firn.ingest.IngestSettings;
import io.firn.ingest.Inserts;
import io.firn.ingest.TableRule;
import io.firn.worker.local.LocalOptimizer;
import io.firn.worker.local.OptimizeReport;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.io.CloseableIterable;

/**
 * What {@code inserts: append-new-keys} (ADR 0008 §14) saves readers and the optimizer: a Debezium
 * snapshot of {@code --rows} keys followed by {@code --updates} updates of random keys goes through
 * the ingest job (one source reader, two writers, a checkpoint every {@code --checkpoint-ms}) into
 * a new table, once upserting every row and once appending new keys. For each: the job's time, the
 * table's delete files and equality-delete rows, a full scan with deletes applied (Iceberg's
 * generic reader, the better of two), and Firn's minor and then full optimizing of the table
 * ({@link LocalOptimizer}, two threads). Both tables must hold the same rows.
 */
public final class NewKeyInserts {
  private static final String NAMESPACE = "bench";
  private static final String TABLE = "accounts";

  private static boolean optimize = true;

  private NewKeyInserts() {}

  public static void main(String[] args) throws Exception {
    BenchArgs a = new BenchArgs(args);
    long rows = a.getLong("rows", 1_000_000);
    long updates = a.getLong("updates", 200_000);
    long checkpointMillis = a.getLong("checkpoint-ms", 1_000);
    Path dir = Path.of(a.get("dir", "bench/target/new-keys"));
    optimize = Boolean.parseBoolean(a.get("optimize", "true"));
    System.err.printf(
        Locale.ROOT,
        "[new-keys] %,d snapshot rows + %,d updates, checkpoint every %d ms, dir %s%n",
        rows,
        updates,
        checkpointMillis,
        dir);
    Result upsert = run(dir.resolve("upsert"), Inserts.UPSERT, rows, updates, checkpointMillis);
    Result append =
        run(dir.resolve("append"), Inserts.APPEND_NEW_KEYS, rows, updates, checkpointMillis);
    if (upsert.rowsChecksum != append.rowsChecksum || upsert.liveRows != append.liveRows) {
      System.err.printf(
          Locale.ROOT,
          "[new-keys] WRONG: the two tables differ (%,d rows, checksum %d; %,d rows, checksum %d)%n",
          upsert.liveRows,
          upsert.rowsChecksum,
          append.liveRows,
          append.rowsChecksum);
      System.exit(2);
    }
    System.out.printf(
        Locale.ROOT,
        "RESULT new-keys: equality-delete rows %,d -> %,d (%.0f %% fewer), scan %.2f s -> %.2f s"
            + " (%.2fx), minor %.2f s -> %.2f s, full %.2f s -> %.2f s, job %.1f s -> %.1f s%n",
        upsert.equalityDeleteRows,
        append.equalityDeleteRows,
        100.0
            * (upsert.equalityDeleteRows - append.equalityDeleteRows)
            / Math.max(1, upsert.equalityDeleteRows),
        upsert.scanSeconds,
        append.scanSeconds,
        upsert.scanSeconds / append.scanSeconds,
        upsert.minorSeconds,
        append.minorSeconds,
        upsert.fullSeconds,
        append.fullSeconds,
        upsert.jobSeconds,
        append.jobSeconds);
  }

  private record Result(
      double jobSeconds,
      long liveRows,
      long rowsChecksum,
      long dataFiles,
      long deleteFiles,
      long equalityDeleteRows,
      long positionDeleteRows,
      double scanSeconds,
      double minorSeconds,
      double fullSeconds) {}

  private static Result run(
      Path dir, Inserts inserts, long rows, long updates, long checkpointMillis) throws Exception {
    CatalogLoader loader = IngestThroughput.catalogLoader(dir);
    Catalog catalog = loader.loadCatalog();
    ((SupportsNamespaces) catalog).createNamespace(Namespace.of(NAMESPACE));
    TableRule rule =
        new TableRule(TABLE, List.of("id"), List.of(), null, true).withInserts(inserts);
    IngestSettings settings =
        IngestSettings.defaults(NAMESPACE)
            .withFormat(EventFormat.DEBEZIUM)
            .withTables(List.of(rule));
    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(2, conf);
    env.enableCheckpointing(checkpointMillis);
    IngestJob.addSink(
        env.fromSource(
                new DataGeneratorSource<>(
                    new Changes(rows), rows + updates, TypeInformation.of(IngestEvent.class)),
                WatermarkStrategy.noWatermarks(),
                "changes")
            .setParallelism(1),
        loader,
        settings,
        Map.of());
    JobExecutionResult result = env.execute("new-keys-" + inserts.code());
    double jobSeconds = result.getNetRuntime(TimeUnit.MILLISECONDS) / 1e3;

    Table table = catalog.loadTable(TableIdentifier.of(NAMESPACE, TABLE));
    Snapshot current = table.currentSnapshot();
    Map<String, String> summary = current.summary();
    long dataFiles = Long.parseLong(summary.getOrDefault("total-data-files", "0"));
    long deleteFiles = Long.parseLong(summary.getOrDefault("total-delete-files", "0"));
    long equalityRows = Long.parseLong(summary.getOrDefault("total-equality-deletes", "0"));
    long positionRows = Long.parseLong(summary.getOrDefault("total-position-deletes", "0"));
    double scan = Double.MAX_VALUE;
    long live = 0;
    long checksum = 0;
    List<String> columns =
        table.schema().columns().stream()
            .map(org.apache.iceberg.types.Types.NestedField::name)
            .toList();
    for (int i = 0; i < 2; i++) {
      long started = System.nanoTime();
      live = 0;
      checksum = 0;
      try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
        for (Record record : records) {
          live++;
          checksum += rowHash(record, columns);
        }
      }
      scan = Math.min(scan, (System.nanoTime() - started) / 1e9);
    }
    int tasks = 0;
    try (CloseableIterable<FileScanTask> files = table.newScan().planFiles()) {
      for (FileScanTask ignored : files) {
        tasks++;
      }
    }
    System.err.printf(
        Locale.ROOT,
        "[new-keys] %-15s job %.1f s; %,d rows in %d data files (%d scan tasks), %d delete files:"
            + " %,d equality-delete rows, %,d position-delete rows; scan %.2f s%n",
        inserts.code(),
        jobSeconds,
        live,
        dataFiles,
        tasks,
        deleteFiles,
        equalityRows,
        positionRows,
        scan);
    LocalOptimizer optimizer =
        new LocalOptimizer(
            OptimizingPolicy.DEFAULTS,
            new BinPackPlanner(),
            2,
            line -> System.err.println("  " + line));
    double minor = optimize ? optimize(optimizer, table, OptimizingType.MINOR) : 0;
    double full = optimize ? optimize(optimizer, table, OptimizingType.FULL) : 0;
    System.err.printf(
        Locale.ROOT,
        "[new-keys] %-15s minor %.2f s, then full %.2f s%n",
        inserts.code(),
        minor,
        full);
    return new Result(
        jobSeconds,
        live,
        checksum,
        dataFiles,
        deleteFiles,
        equalityRows,
        positionRows,
        scan,
        minor,
        full);
  }

  /**
   * A hash of the row's values by their text: equal rows, equal hashes, in any table. By column
   * name: the generic reader's records also carry {@code _pos} where position deletes apply.
   */
  private static long rowHash(Record record, List<String> columns) {
    long hash = 17;
    for (String column : columns) {
      hash = hash * 1_000_003L + String.valueOf(record.getField(column)).hashCode();
    }
    return hash * 0x9E3779B97F4A7C15L;
  }

  private static double optimize(LocalOptimizer optimizer, Table table, OptimizingType type) {
    table.refresh();
    long started = System.nanoTime();
    OptimizeReport report = optimizer.optimize(table, type, Instant.now());
    if (!report.succeeded()) {
      throw new IllegalStateException(type.label() + " optimizing failed: " + report);
    }
    return (System.nanoTime() - started) / 1e9;
  }

  /**
   * Debezium change events: snapshot reads of keys 1..rows, then updates of random keys (a fixed
   * sequence), each image with a name, an amount, a quantity and a city.
   */
  static final class Changes implements GeneratorFunction<Long, IngestEvent> {
    private static final long serialVersionUID = 1L;
    private static final String[] CITIES = {"Oslo", "Lima", "Pune", "Kyiv", "Accra", "Quito"};
    private final long rows;

    Changes(long rows) {
      this.rows = rows;
    }

    @Override
    public IngestEvent map(Long index) {
      long i = index;
      boolean read = i < rows;
      long key = read ? i + 1 : 1 + Math.floorMod(i * 0x9E3779B97F4A7C15L, rows);
      String after =
          String.format(
              Locale.ROOT,
              "{\"id\":%d,\"name\":\"customer %d\",\"amount\":%d.%02d,\"qty\":%d,\"city\":\"%s\"}",
              key,
              key,
              i % 10_000,
              i % 100,
              i % 97,
              CITIES[(int) (key % CITIES.length)]);
      String event =
          "{\"op\":\""
              + (read ? "r" : "u")
              + "\",\"before\":null,\"after\":"
              + after
              + ",\"source\":{\"table\":\""
              + TABLE
              + "\",\"db\":\"shop\"}}";
      return IngestEvent.of(event, "changes/" + i);
    }
  }
}
