/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.bench;

import io.firn.core.catalog.CatalogSettings;
import io.firn.testkit.CdcTableGenerator;
import io.firn.testkit.CdcTableSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Generates one CDC-shaped table into a JDBC (SQLite) catalog, creating the catalog file. The same
 * arguments give the same rows, so two runs make two equal tables for Firn and the baseline.
 */
public final class GenerateTable {
  private GenerateTable() {}

  public static void main(String[] args) throws Exception {
    BenchArgs a = new BenchArgs(args);
    Path catalogFile = Path.of(a.get("catalog-file"));
    Files.createDirectories(catalogFile.toAbsolutePath().getParent());
    String warehouse = a.get("warehouse");
    Catalog catalog =
        CatalogUtil.buildIcebergCatalog(
            "bench",
            new CatalogSettings(
                    "bench",
                    "jdbc",
                    "jdbc:sqlite:" + catalogFile,
                    warehouse,
                    Map.of("jdbc.schema-version", "V1", "io-impl", "io.firn.core.io.LocalFileIO"))
                .icebergProperties(),
            new Configuration());
    CdcTableSpec spec =
        new CdcTableSpec(
            a.getLong("rows", 2_000_000),
            (int) a.getLong("commits", 200),
            a.getDouble("update-ratio", 0.05),
            a.getDouble("delete-ratio", 0.01),
            a.getDouble("duplicate-ratio", 0.02),
            (int) a.getLong("buckets", 8),
            a.getLong("seed", 20261129),
            Boolean.parseBoolean(a.get("schema-change", "true")),
            Boolean.parseBoolean(a.get("spec-change", "false")));
    long started = System.nanoTime();
    Table table =
        CdcTableGenerator.generate(catalog, TableIdentifier.parse(a.get("table")), spec).table();
    table.refresh();
    Map<String, String> summary = table.currentSnapshot().summary();
    System.err.printf(
        Locale.ROOT,
        "[generate] %s: %s data files, %s delete files, %s records (%s equality, %s position deletes), %.1f s%n",
        table.name(),
        summary.get("total-data-files"),
        summary.get("total-delete-files"),
        summary.get("total-records"),
        summary.get("total-equality-deletes"),
        summary.get("total-position-deletes"),
        (System.nanoTime() - started) / 1e9);
  }
}
