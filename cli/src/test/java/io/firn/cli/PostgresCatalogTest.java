/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.cli.testing.CliRun;
import io.firn.testkit.CdcTableGenerator;
import io.firn.testkit.CdcTableSpec;
import io.firn.testkit.RowSets;
import io.firn.testkit.ScratchDatabase;
import io.firn.testkit.TestCatalogs;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code firn optimize} against a JDBC catalog on the real PostgreSQL server at 127.0.0.1:5432, in
 * a database this test creates and drops.
 */
class PostgresCatalogTest {

  @TempDir Path warehouse;
  private ScratchDatabase database;

  @BeforeEach
  void createDatabase() {
    database = ScratchDatabase.create("firn_test_");
  }

  @AfterEach
  void dropDatabase() {
    database.close();
  }

  @Test
  void optimizesATableOfAPostgresJdbcCatalogAndKeepsItsRows() {
    String uri = database.uri();
    Catalog catalog =
        TestCatalogs.jdbc("firn", uri, warehouse.toString(), Map.of("jdbc.user", database.user()));
    CdcTableGenerator.generate(catalog, TableIdentifier.of("db", "pg"), CdcTableSpec.small(2));
    Table table = catalog.loadTable(TableIdentifier.of("db", "pg"));
    Map<String, Long> before = RowSets.read(table);
    long snapshot = table.currentSnapshot().snapshotId();

    CliRun run =
        CliRun.of(
            new String[] {
              "optimize",
              "--catalog-uri",
              uri,
              "--catalog-property",
              "jdbc.user=" + database.user(),
              "--warehouse",
              warehouse.toString(),
              "--table",
              "db.pg",
              "--type",
              "full",
              "--threads",
              "2"
            });

    assertThat(run.err()).isEmpty();
    assertThat(run.exit()).isZero();
    assertThat(run.out().toLowerCase(Locale.ROOT)).contains("committed");
    table.refresh();
    assertThat(table.currentSnapshot().snapshotId()).isNotEqualTo(snapshot);
    assertThat(table.currentSnapshot().summary()).containsEntry("total-delete-files", "0");
    assertThat(RowSets.read(table)).isEqualTo(before);
  }
}
