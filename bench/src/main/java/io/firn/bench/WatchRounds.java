/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.bench;

import io.firn.core.catalog.CatalogSettings;
import io.firn.core.catalog.Catalogs;
import io.firn.core.policy.OptimizingPolicy;
import io.firn.core.table.TableEvaluator;
import io.firn.server.ServerCatalogs;
import io.firn.server.TablePatterns;
import io.firn.server.TableWatcher;
import io.firn.server.store.StateStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataTableType;
import org.apache.iceberg.MetadataTableUtils;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;

/**
 * Times rounds of the server's real snapshot watcher ({@link TableWatcher#round()}) over the tables
 * of {@link GenerateManyTables}: the first round (every table new: load and evaluate), a round with
 * nothing changed (change detection only), and a round after {@code --changed} of the tables got a
 * new snapshot. Optionally ({@code --breakdown N}) times the parts of one table's watch on one
 * thread for N tables: list, {@code loadTable}, the metadata JSON read inside it, and the
 * evaluation.
 *
 * <pre>
 * --catalog-uri URI --warehouse DIR --threads 4 --tables 10000 --namespaces 100
 * [--changed 0.01] [--io hadoop|local] [--jdbc-user postgres] [--breakdown 2000] --out FILE.json
 * </pre>
 */
public final class WatchRounds {
  private WatchRounds() {}

  private record Round(
      String name, double seconds, double cpuSeconds, long evaluated, int tablesKnown) {
    String json() {
      return String.format(
          Locale.ROOT,
          "{\"name\": \"%s\", \"seconds\": %.3f, \"cpuSeconds\": %.3f, \"evaluated\": %d,"
              + " \"tablesKnown\": %d}",
          name,
          seconds,
          cpuSeconds,
          evaluated,
          tablesKnown);
    }
  }

  public static void main(String[] args) throws IOException {
    BenchArgs a = new BenchArgs(args);
    int threads = (int) a.getLong("threads", 4);
    int tables = (int) a.getLong("tables", 10_000);
    int namespaces = (int) a.getLong("namespaces", 100);
    double changed = a.getDouble("changed", 0.01);
    // The server's watch.maxEvaluationsPerRound; by default unbounded (one cold round).
    int maxEvaluations = (int) a.getLong("max-evaluations", Integer.MAX_VALUE);
    CatalogSettings settings = ScaleCatalogs.settings(a);

    MeterRegistry registry = new SimpleMeterRegistry();
    List<Round> rounds = new ArrayList<>();
    try (ServerCatalogs connections = new ServerCatalogs(List.of(settings));
        StateStore store = StateStore.open("jdbc:h2:mem:scale" + threads, null, null)) {
      TableWatcher watcher =
          new TableWatcher(
              connections,
              new TablePatterns(List.of("*"), List.of()),
              store,
              Duration.ofMinutes(5),
              Clock.systemUTC(),
              registry,
              threads,
              maxEvaluations);
      if (maxEvaluations >= tables) {
        rounds.add(round("first (all tables new)", watcher, registry));
      } else {
        for (int i = 1; watcher.tables().size() < tables && i <= 100; i++) {
          rounds.add(
              round(
                  "cold round " + i + " (at most " + maxEvaluations + " new)", watcher, registry));
        }
      }
      rounds.add(round("unchanged", watcher, registry));

      int toChange = (int) Math.round(tables * changed);
      long commitStarted = System.nanoTime();
      appendToSome(ScaleCatalogs.writer(a), tables, namespaces, toChange, threads);
      System.err.printf(
          Locale.ROOT,
          "[watch] committed a new snapshot to %d tables in %.1f s (not timed in the round)%n",
          toChange,
          (System.nanoTime() - commitStarted) / 1e9);
      rounds.add(round("after " + toChange + " tables changed", watcher, registry));
      Round last = rounds.get(rounds.size() - 1);
      if (last.evaluated() != toChange) {
        throw new IllegalStateException(
            "the watcher evaluated "
                + last.evaluated()
                + " tables after "
                + toChange
                + " changed; expected exactly the changed ones");
      }
      watcher.stop();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }

    int sample = (int) a.getLong("breakdown", 0);
    String breakdown = sample > 0 ? breakdown(settings, tables, namespaces, sample) : "null";
    StringBuilder json = new StringBuilder();
    json.append(
        String.format(
            Locale.ROOT,
            "{\"threads\": %d, \"tables\": %d, \"io\": \"%s\", \"catalog\": \"%s\", \"rounds\": [",
            threads,
            tables,
            a.get("io", "hadoop"),
            settings.uri().startsWith("jdbc:sqlite:") ? "sqlite" : "postgresql"));
    for (int i = 0; i < rounds.size(); i++) {
      json.append(i == 0 ? "" : ", ").append(rounds.get(i).json());
    }
    json.append("], \"breakdown\": ").append(breakdown).append("}\n");
    System.out.print(json);
    Files.writeString(Path.of(a.get("out")), json, StandardCharsets.UTF_8);
  }

  private static Round round(String name, TableWatcher watcher, MeterRegistry registry) {
    long evaluatedBefore = evaluated(registry);
    long cpuBefore = processCpuNanos();
    long started = System.nanoTime();
    watcher.round();
    double seconds = (System.nanoTime() - started) / 1e9;
    double cpu = (processCpuNanos() - cpuBefore) / 1e9;
    Round round =
        new Round(
            name, seconds, cpu, evaluated(registry) - evaluatedBefore, watcher.tables().size());
    System.err.println("[watch] " + round.json());
    return round;
  }

  private static long evaluated(MeterRegistry registry) {
    long sum = 0;
    for (Counter counter : registry.find("firn.table.evaluations").counters()) {
      if (!"error".equals(counter.getId().getTag("result"))) {
        sum += (long) counter.count();
      }
    }
    return sum;
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** One streaming commit (16 files) into each of {@code count} distinct random tables. */
  private static void appendToSome(
      Catalog catalog, int tables, int namespaces, int count, long seed) {
    SplittableRandom random = new SplittableRandom(20261130L + seed);
    Set<Integer> chosen = new LinkedHashSet<>();
    while (chosen.size() < Math.min(count, tables)) {
      chosen.add(random.nextInt(tables));
    }
    for (int index : chosen) {
      Table table = catalog.loadTable(ScaleCatalogs.table(index, namespaces));
      AppendFiles append = table.newFastAppend();
      GenerateManyTables.addFiles(append, table, table.spec(), 100 + random.nextInt(900), random);
      append.commit();
    }
  }

  /** Where the time of watching one table goes, on one thread, over {@code sample} tables. */
  private static String breakdown(
      CatalogSettings settings, int tables, int namespaces, int sample) {
    Catalog catalog = Catalogs.connect(settings);
    long started = System.nanoTime();
    int listed = 0;
    for (int n = 0; n < namespaces; n++) {
      listed += catalog.listTables(Namespace.of(ScaleCatalogs.namespace(n))).size();
    }
    double listSeconds = (System.nanoTime() - started) / 1e9;
    int count = Math.min(sample, tables);
    // Warm up the code paths first so that the per-part times are steady-state.
    for (int i = 0; i < Math.min(200, count); i++) {
      TableEvaluator.evaluate(
          catalog.loadTable(ScaleCatalogs.table(tables - 1 - i, namespaces)),
          OptimizingPolicy.DEFAULTS);
    }
    long load = 0;
    long parse = 0;
    long evaluate = 0;
    long needsPlan = 0;
    long scanDefault = 0;
    long scanDirect = 0;
    ExecutorService direct = new CallerThreadExecutor();
    for (int i = 0; i < count; i++) {
      TableIdentifier id = ScaleCatalogs.table(i, namespaces);
      long t0 = System.nanoTime();
      Table table = catalog.loadTable(id);
      long t1 = System.nanoTime();
      String location = ((BaseTable) table).operations().current().metadataFileLocation();
      TableMetadataParser.read(table.io(), location);
      long t2 = System.nanoTime();
      TableEvaluator.Evaluation evaluation =
          TableEvaluator.evaluate(table, OptimizingPolicy.DEFAULTS);
      long t3 = System.nanoTime();
      load += t1 - t0;
      parse += t2 - t1;
      evaluate += t3 - t2;
      needsPlan += evaluation.needsPlan() ? 1 : 0;
      // What-if: the same partitions-table read, on Iceberg's worker pool (as TableEvaluator does)
      // and on the calling thread.
      long t4 = System.nanoTime();
      partitionRows(table, null);
      long t5 = System.nanoTime();
      partitionRows(table, direct);
      long t6 = System.nanoTime();
      scanDefault += t5 - t4;
      scanDirect += t6 - t5;
    }
    return String.format(
        Locale.ROOT,
        "{\"tablesListed\": %d, \"listSeconds\": %.3f, \"sample\": %d,"
            + " \"loadTableMillis\": %.3f, \"metadataJsonReadMillis\": %.3f,"
            + " \"evaluateMillis\": %.3f, \"needsPlan\": %d,"
            + " \"partitionsTableWorkerPoolMillis\": %.3f,"
            + " \"partitionsTableCallerThreadMillis\": %.3f}",
        listed,
        listSeconds,
        count,
        load / 1e6 / count,
        parse / 1e6 / count,
        evaluate / 1e6 / count,
        needsPlan,
        scanDefault / 1e6 / count,
        scanDirect / 1e6 / count);
  }

  /**
   * Reads every row of the table's {@code partitions} metadata table, planning on {@code executor}
   * or, when null, on Iceberg's shared worker pool (the default).
   */
  private static long partitionRows(Table table, ExecutorService executor) {
    TableScan scan =
        MetadataTableUtils.createMetadataTableInstance(table, MetadataTableType.PARTITIONS)
            .newScan();
    if (executor != null) {
      scan = scan.planWith(executor);
    }
    long rows = 0;
    try (CloseableIterable<FileScanTask> tasks = scan.planFiles()) {
      for (FileScanTask task : tasks) {
        try (CloseableIterable<StructLike> partitionRows = task.asDataTask().rows()) {
          for (StructLike ignored : partitionRows) {
            rows++;
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }

  /** Runs every task on the thread that submits it. */
  private static final class CallerThreadExecutor extends AbstractExecutorService {
    @Override
    public void execute(Runnable command) {
      command.run();
    }

    @Override
    public void shutdown() {}

    @Override
    public List<Runnable> shutdownNow() {
      return List.of();
    }

    @Override
    public boolean isShutdown() {
      return false;
    }

    @Override
    public boolean isTerminated() {
      return false;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
      return true;
    }
  }
}
