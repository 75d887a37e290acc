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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Creates many metadata-only streaming tables in a JDBC catalog: {@code --tables} tables spread
 * over {@code --namespaces} namespaces, each with {@code --snapshots} fast appends of one data file
 * per bucket (16 buckets). No Parquet is written; manifests, manifest lists and metadata JSON are
 * real.
 *
 * <pre>
 * --catalog-uri jdbc:sqlite:/tmp/x/catalog.db --warehouse /tmp/x/warehouse
 * [--tables 10000] [--namespaces 100] [--snapshots 3] [--threads 2] [--jdbc-user postgres]
 * </pre>
 */
public final class GenerateManyTables {
  private GenerateManyTables() {}

  public static void main(String[] args) throws Exception {
    BenchArgs a = new BenchArgs(args);
    String uri = a.get("catalog-uri");
    if (uri.startsWith("jdbc:sqlite:")) {
      Path file = Path.of(uri.substring("jdbc:sqlite:".length()));
      Files.createDirectories(file.toAbsolutePath().getParent());
    }
    int tables = (int) a.getLong("tables", 10_000);
    int namespaces = (int) a.getLong("namespaces", 100);
    int snapshots = (int) a.getLong("snapshots", 3);
    int threads = (int) a.getLong("threads", 2);
    Catalog catalog = ScaleCatalogs.writer(a);
    for (int n = 0; n < namespaces; n++) {
      Namespace namespace = Namespace.of(ScaleCatalogs.namespace(n));
      if (!((SupportsNamespaces) catalog).namespaceExists(namespace)) {
        ((SupportsNamespaces) catalog).createNamespace(namespace);
      }
    }
    long started = System.nanoTime();
    AtomicLong done = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<?>> futures = new ArrayList<>();
    for (int i = 0; i < tables; i++) {
      int index = i;
      futures.add(
          pool.submit(
              () -> {
                create(catalog, ScaleCatalogs.table(index, namespaces), snapshots, index);
                long count = done.incrementAndGet();
                if (count % 1000 == 0) {
                  System.err.printf(
                      Locale.ROOT,
                      "[generate] %d tables, %.1f s%n",
                      count,
                      (System.nanoTime() - started) / 1e9);
                }
                return null;
              }));
    }
    for (Future<?> future : futures) {
      future.get();
    }
    pool.shutdown();
    System.err.printf(
        Locale.ROOT,
        "[generate] %d tables x %d snapshots x 16 files in %.1f s%n",
        tables,
        snapshots,
        (System.nanoTime() - started) / 1e9);
  }

  private static void create(Catalog catalog, TableIdentifier id, int snapshots, int seed) {
    PartitionSpec spec = MetadataOnlyFiles.bucketSpec();
    Transaction create =
        catalog
            .buildTable(id, MetadataOnlyFiles.SCHEMA)
            .withPartitionSpec(spec)
            .withProperty(TableProperties.FORMAT_VERSION, "2")
            .createTransaction();
    SplittableRandom random = new SplittableRandom(seed);
    for (int s = 0; s < snapshots; s++) {
      AppendFiles append = create.newFastAppend();
      addFiles(append, create.table(), spec, s, random);
      append.commit();
    }
    create.commitTransaction();
  }

  /** One data file per bucket, as one streaming commit leaves them. */
  static void addFiles(
      AppendFiles append, Table table, PartitionSpec spec, int commit, SplittableRandom random) {
    for (int bucket = 0; bucket < 16; bucket++) {
      String path =
          String.format(
              Locale.ROOT,
              "%s/data/id_bucket=%d/%05d-%d-%016x.parquet",
              table.location(),
              bucket,
              commit,
              bucket,
              random.nextLong());
      append.appendFile(MetadataOnlyFiles.dataFile(spec, path, bucket, random));
    }
  }
}
