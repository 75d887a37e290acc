/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.bench;

import io.firn.core.maintenance.ManifestRewrite;
import io.firn.core.maintenance.ManifestRewriteReport;
import io.firn.core.maintenance.ManifestRewriteSettings;
import io.firn.testkit.KeyedPartTable;
import io.firn.testkit.TestCatalogs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/**
 * What a table's small manifests cost its readers, and what {@link ManifestRewrite} gives back (ADR
 * 0010, "Manifest rewrite"): {@code --commits} fast appends of one data file each (one manifest per
 * commit, as a streaming table holds them until Iceberg merges at 100), then Firn's manifest
 * rewrite; then, in alternating rounds, Iceberg's scan planning alone and a full scan with
 * Iceberg's generic reader at the snapshot before and after the rewrite (the same files). Prints
 * medians and bests of the rounds after the first quarter (warm-up).
 *
 * <pre>
 * java -cp "bench/target/firn-bench-0.1.0-SNAPSHOT.jar:bench/target/lib/*" \
 *   io.firn.bench.ManifestCountBench [--commits 99] [--rows-per-file 1000] [--rounds 40]
 * </pre>
 */
public final class ManifestCountBench {
  private ManifestCountBench() {}

  public static void main(String[] argv) throws IOException {
    BenchArgs args = new BenchArgs(argv);
    int commits = (int) args.getLong("commits", 99);
    int rowsPerFile = (int) args.getLong("rows-per-file", 1000);
    int rounds = (int) args.getLong("rounds", 40);
    Path dir = Files.createTempDirectory("firn-manifest-count");
    KeyedPartTable keyed =
        KeyedPartTable.create(TestCatalogs.hadoop(dir), TableIdentifier.of("db", "manifests"));
    Table table = keyed.table();
    long id = 0;
    for (int i = 0; i < commits; i++) {
      long[] ids = new long[rowsPerFile];
      for (int j = 0; j < rowsPerFile; j++) {
        ids[j] = id++;
      }
      table.newFastAppend().appendFile(keyed.data("p" + (i % 4), ids)).commit();
    }
    long before = table.currentSnapshot().snapshotId();
    ManifestRewriteReport report =
        new ManifestRewrite(line -> {}).rewrite(table, new ManifestRewriteSettings(2), "bench");
    System.out.println("manifest rewrite: " + report.message());
    long after = table.currentSnapshot().snapshotId();
    long[][] planning = new long[2][rounds];
    long[][] scan = new long[2][rounds];
    long[] rows = new long[2];
    for (int round = 0; round < rounds; round++) {
      for (int k = 0; k < 2; k++) {
        int which = round % 2 == 0 ? k : 1 - k; // alternate which snapshot goes first
        long snapshot = which == 0 ? before : after;
        long began = System.nanoTime();
        try (CloseableIterable<FileScanTask> tasks =
            table.newScan().useSnapshot(snapshot).planFiles()) {
          tasks.forEach(task -> {});
        }
        planning[which][round] = System.nanoTime() - began;
        began = System.nanoTime();
        long n = 0;
        try (CloseableIterable<Record> records =
            IcebergGenerics.read(table).useSnapshot(snapshot).build()) {
          for (Record ignored : records) {
            n++;
          }
        }
        scan[which][round] = System.nanoTime() - began;
        rows[which] = n;
      }
    }
    if (rows[0] != rows[1]) {
      throw new IllegalStateException("rows before " + rows[0] + " != after " + rows[1]);
    }
    for (int k = 0; k < 2; k++) {
      System.out.printf(
          Locale.ROOT,
          "%s (%d rows): planning median %s, full scan median %s%n",
          k == 0
              ? "before, " + commits + " manifests"
              : "after, " + report.manifestsCreated() + " manifest(s)",
          rows[k],
          stats(planning[k]),
          stats(scan[k]));
    }
  }

  /** Median and best of the rounds after the first quarter, in milliseconds. */
  private static String stats(long[] nanos) {
    long[] warm = Arrays.copyOfRange(nanos, nanos.length / 4, nanos.length);
    Arrays.sort(warm);
    return String.format(
        Locale.ROOT, "%.1f ms (best %.1f)", warm[warm.length / 2] / 1e6, warm[0] / 1e6);
  }
}
