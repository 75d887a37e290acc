/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.it.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.core.commit.CommitOutcome;
import io.firn.core.plan.BinPackPlanner;
import io.firn.core.plan.OptimizingType;
import io.firn.core.policy.OptimizingPolicy;
import io.firn.testkit.CdcTableGenerator;
import io.firn.testkit.CdcTableSpec;
import io.firn.testkit.RowSets;
import io.firn.worker.local.LocalOptimizer;
import io.firn.worker.local.OptimizeReport;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Minor, major and full optimizing leave the rows Spark SQL reads exactly as they were
 * (CONTRIBUTING.md, "Tests"): Spark is the independent reader, Firn's executor the writer, both on
 * one JDBC (SQLite) catalog.
 *
 * <p>Firn's code runs against the Iceberg classes inside {@code iceberg-spark-runtime} here (the
 * thin Iceberg jars are excluded), as it will in the Spark worker.
 */
class SparkReaderIT {
  private static final OptimizingPolicy POLICY =
      OptimizingPolicy.DEFAULTS.withOverrides(Map.of("target-size", "64KiB"));
  private static final String NAMESPACE = "db";

  /**
   * Name of the Iceberg catalog in the Spark session and of Firn's catalog: the JDBC catalog keys
   * its tables by catalog name, so two clients see the same tables only under the same name.
   */
  private static final String CATALOG = "cat";

  @TempDir static Path dir;

  private static Catalog catalog;
  private static SparkSession spark;

  @BeforeAll
  static void startCatalogAndSpark() {
    String uri = "jdbc:sqlite:" + dir.resolve("catalog.db");
    String warehouse = dir.resolve("warehouse").toUri().toString();
    catalog =
        CatalogUtil.buildIcebergCatalog(
            CATALOG,
            Map.of(
                CatalogUtil.ICEBERG_CATALOG_TYPE,
                CatalogUtil.ICEBERG_CATALOG_TYPE_JDBC,
                CatalogProperties.URI,
                uri,
                CatalogProperties.WAREHOUSE_LOCATION,
                warehouse,
                "jdbc.schema-version",
                "V1"),
            new Configuration());

    spark = SparkSessions.withJdbcCatalog("firn-spark-reader-it", CATALOG, uri, warehouse);
  }

  @AfterAll
  static void stop() throws IOException {
    if (spark != null) {
      spark.stop();
    }
    if (catalog instanceof Closeable closeable) {
      closeable.close();
    }
  }

  static Stream<Arguments> cases() {
    return Stream.of(OptimizingType.MINOR, OptimizingType.MAJOR, OptimizingType.FULL)
        .flatMap(type -> Stream.of(Arguments.of(type, 4), Arguments.of(type, 0)));
  }

  @ParameterizedTest(name = "{0} optimizing, {1} buckets")
  @MethodSource("cases")
  void optimizingKeepsTheRowsSparkSqlReads(OptimizingType type, int buckets) {
    TableIdentifier id = TableIdentifier.of(NAMESPACE, type.label() + "_" + buckets + "_buckets");
    Table table = CdcTableGenerator.generate(catalog, id, CdcTableSpec.small(buckets)).table();
    String name = CATALOG + "." + id;

    Map<String, Long> before = sparkRows(name);
    Map<String, Long> icebergBefore = RowSets.read(table);
    assertThat(sparkCount(name)).isEqualTo(total(icebergBefore)).isPositive();
    // Same canonical form as RowSets: the two readers agree row for row, not only in number.
    assertThat(before).isEqualTo(icebergBefore);

    OptimizeReport report =
        new LocalOptimizer(POLICY, new BinPackPlanner(), 2, System.out::println)
            .optimize(table, type, Instant.now());

    assertThat(report.outcomes()).isNotEmpty().allMatch(CommitOutcome::committed);
    table.refresh();
    // Spark reads the snapshot Firn committed (not a cached one), so the comparison means
    // something.
    assertThat(sparkMainSnapshot(name)).isEqualTo(table.currentSnapshot().snapshotId());
    assertThat(sparkRows(name)).isEqualTo(before);
    assertThat(sparkCount(name)).isEqualTo(total(RowSets.read(table)));
  }

  /** All rows of the table read by Spark SQL, in {@link RowSets}' canonical form → count. */
  private static Map<String, Long> sparkRows(String table) {
    Dataset<Row> rows = spark.sql("SELECT * FROM " + table);
    String[] columns = rows.columns();
    Map<String, Long> result = new HashMap<>();
    for (Row row : rows.collectAsList()) {
      StringBuilder text = new StringBuilder();
      for (int i = 0; i < columns.length; i++) {
        if (i > 0) {
          text.append(", ");
        }
        text.append(columns[i]).append('=').append(row.get(i));
      }
      result.merge(text.toString(), 1L, Long::sum);
    }
    return result;
  }

  private static long sparkCount(String table) {
    return spark.sql("SELECT count(*) FROM " + table).first().getLong(0);
  }

  private static long sparkMainSnapshot(String table) {
    return spark
        .sql("SELECT snapshot_id FROM " + table + ".refs WHERE name = 'main'")
        .first()
        .getLong(0);
  }

  private static long total(Map<String, Long> multiset) {
    return multiset.values().stream().mapToLong(Long::longValue).sum();
  }
}
