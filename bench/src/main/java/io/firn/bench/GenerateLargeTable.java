/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Creates one metadata-only table with many data files, partitioned by identity {@code day}: {@code
 * --commits} fast appends, each of {@code --data-files / --commits} files spread evenly over the
 * next {@code --partitions / --commits} days; then {@code --delete-commits} row deltas, each adding
 * one equality-delete file to each of the newest {@code --hot-partitions} days and {@code
 * --position-deletes} file-scoped position-delete files for random data files of those days.
 *
 * <pre>
 * --catalog-uri jdbc:sqlite:/tmp/x/catalog.db --warehouse /tmp/x/warehouse --table big.events
 * [--data-files 1000000] [--partitions 1000] [--commits 100] [--delete-commits 10]
 * [--hot-partitions 100] [--position-deletes 1000]
 * </pre>
 */
public final class GenerateLargeTable {
  private GenerateLargeTable() {}

  public static void main(String[] args) throws Exception {
    BenchArgs a = new BenchArgs(args);
    String uri = a.get("catalog-uri");
    if (uri.startsWith("jdbc:sqlite:")) {
      Files.createDirectories(
          Path.of(uri.substring("jdbc:sqlite:".length())).toAbsolutePath().getParent());
    }
    long dataFiles = a.getLong("data-files", 1_000_000);
    int partitions = (int) a.getLong("partitions", 1000);
    int commits = (int) a.getLong("commits", 100);
    int deleteCommits = (int) a.getLong("delete-commits", 10);
    int hot = (int) a.getLong("hot-partitions", 100);
    int positionDeletes = (int) a.getLong("position-deletes", 1000);
    if (partitions % commits != 0 || dataFiles % partitions != 0) {
      throw new IllegalArgumentException(
          "--partitions must be a multiple of --commits and --data-files of --partitions");
    }
    int daysPerCommit = partitions / commits;
    long filesPerDay = dataFiles / partitions;

    Catalog catalog = ScaleCatalogs.writer(a);
    TableIdentifier id = TableIdentifier.parse(a.get("table", "big.events"));
    if (!((SupportsNamespaces) catalog).namespaceExists(id.namespace())) {
      ((SupportsNamespaces) catalog).createNamespace(id.namespace());
    }
    PartitionSpec spec = MetadataOnlyFiles.daySpec();
    Table table =
        catalog
            .buildTable(id, MetadataOnlyFiles.SCHEMA)
            .withPartitionSpec(spec)
            .withProperty(TableProperties.FORMAT_VERSION, "2")
            .create();
    SplittableRandom random = new SplittableRandom(20261130L);
    long started = System.nanoTime();
    // Paths of the hot days' data files, for position deletes.
    List<String> hotPaths = new ArrayList<>();
    List<Integer> hotDays = new ArrayList<>();
    for (int c = 0; c < commits; c++) {
      AppendFiles append = table.newFastAppend();
      for (int d = 0; d < daysPerCommit; d++) {
        int dayIndex = c * daysPerCommit + d;
        int day = MetadataOnlyFiles.day(dayIndex);
        boolean isHot = dayIndex >= partitions - hot;
        for (long f = 0; f < filesPerDay; f++) {
          String path =
              String.format(
                  Locale.ROOT,
                  "%s/data/day=%d/%05d-%d-%016x.parquet",
                  table.location(),
                  day,
                  c,
                  f,
                  random.nextLong());
          append.appendFile(MetadataOnlyFiles.dataFile(spec, path, day, random));
          if (isHot) {
            hotPaths.add(path);
            hotDays.add(day);
          }
        }
      }
      append.commit();
      if ((c + 1) % 10 == 0) {
        System.err.printf(
            Locale.ROOT,
            "[generate] %d data files, %.1f s%n",
            (c + 1) * daysPerCommit * filesPerDay,
            (System.nanoTime() - started) / 1e9);
      }
    }
    for (int c = 0; c < deleteCommits; c++) {
      RowDelta delta = table.newRowDelta();
      for (int d = partitions - hot; d < partitions; d++) {
        int day = MetadataOnlyFiles.day(d);
        String path =
            String.format(
                Locale.ROOT,
                "%s/data/day=%d/eq-%05d-%016x.parquet",
                table.location(),
                day,
                c,
                random.nextLong());
        delta.addDeletes(MetadataOnlyFiles.equalityDeletes(spec, path, day, random));
      }
      for (int p = 0; p < positionDeletes && !hotPaths.isEmpty(); p++) {
        int pick = random.nextInt(hotPaths.size());
        int day = hotDays.get(pick);
        String path =
            String.format(
                Locale.ROOT,
                "%s/data/day=%d/pos-%05d-%016x.parquet",
                table.location(),
                day,
                c,
                random.nextLong());
        delta.addDeletes(
            MetadataOnlyFiles.positionDeletes(spec, path, day, hotPaths.get(pick), random));
      }
      delta.commit();
    }
    table.refresh();
    System.err.printf(
        Locale.ROOT,
        "[generate] %s: %s data files, %s delete files (%s equality-delete and %s position-delete"
            + " records) in %s partitions, %.1f s%n",
        table.name(),
        table.currentSnapshot().summary().get("total-data-files"),
        table.currentSnapshot().summary().get("total-delete-files"),
        table.currentSnapshot().summary().get("total-equality-deletes"),
        table.currentSnapshot().summary().get("total-position-deletes"),
        partitions,
        (System.nanoTime() - started) / 1e9);
  }
}
