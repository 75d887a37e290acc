/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.firn.core.catalog.CatalogConnectionException;
import io.firn.core.catalog.CatalogSettings;
import io.firn.core.catalog.Catalogs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedCatalogTest {
  private static final CatalogSettings SHIPPED =
      new CatalogSettings(
          "firn", "jdbc", "jdbc:sqlite:./firn-data/catalog.db", "./firn-data/warehouse", Map.of());

  @TempDir Path dir;

  @Test
  void onlyTheShippedDefaultsCountAsTheEmbeddedCatalog() {
    assertThat(EmbeddedCatalog.isEmbeddedDefault(SHIPPED)).isTrue();
    assertThat(
            EmbeddedCatalog.isEmbeddedDefault(
                new CatalogSettings(
                    "firn",
                    "jdbc",
                    "jdbc:sqlite:firn-data/catalog.db",
                    "firn-data/warehouse",
                    Map.of())))
        .as("the ingest job's spelling")
        .isTrue();
    for (CatalogSettings own :
        List.of(
            with("lake", SHIPPED.uri(), SHIPPED.warehouse(), Map.of()),
            with("firn", "jdbc:sqlite:./firn-data/catalg.db", SHIPPED.warehouse(), Map.of()),
            with("firn", "jdbc:sqlite:/srv/firn-data/catalog.db", SHIPPED.warehouse(), Map.of()),
            with("firn", "jdbc:sqlite:../firn-data/catalog.db", SHIPPED.warehouse(), Map.of()),
            with("firn", "jdbc:sqlite:./firn-data/catalog.db?x=1", SHIPPED.warehouse(), Map.of()),
            with(
                "firn",
                "jdbc:postgresql://db/firn-data/catalog.db",
                "./firn-data/warehouse",
                Map.of()),
            with("firn", SHIPPED.uri(), "s3://lake/firn-data/warehouse", Map.of()),
            with("firn", SHIPPED.uri(), SHIPPED.warehouse(), Map.of("jdbc.user", "x")))) {
      assertThat(EmbeddedCatalog.isEmbeddedDefault(own)).as("%s", own).isFalse();
    }
  }

  @Test
  void createsTheEmbeddedCatalogOnceAndThenLeavesItAlone() throws Exception {
    String created = EmbeddedCatalog.createIfMissing(SHIPPED, dir).orElseThrow();

    Path file = dir.resolve("firn-data/catalog.db");
    assertThat(file).isRegularFile();
    assertThat(dir.resolve("firn-data/warehouse")).isDirectory();
    assertThat(created)
        .startsWith("created the embedded default catalog 'firn' (SQLite file " + file)
        .contains("bin/firn ingest", "FIRN_CATALOG_URI", "FIRN_WAREHOUSE");
    CatalogSettings absolute = absolute();
    Catalog catalog = Catalogs.connect(absolute);
    try {
      assertThat(((SupportsNamespaces) catalog).listNamespaces()).isEmpty();
      catalog.createTable(
          TableIdentifier.of("events", "order_events"),
          new Schema(Types.NestedField.required(1, "id", Types.LongType.get())));
    } finally {
      ((AutoCloseable) catalog).close();
    }

    assertThat(EmbeddedCatalog.createIfMissing(SHIPPED, dir)).as("it exists now").isEmpty();
    Catalog again = Catalogs.connect(absolute);
    try {
      assertThat(again.listTables(Namespace.of("events")))
          .containsExactly(TableIdentifier.of("events", "order_events"));
    } finally {
      ((AutoCloseable) again).close();
    }
  }

  @Test
  void neverCreatesACatalogTheOperatorConfigured() throws Exception {
    CatalogSettings wrong =
        with("firn", "jdbc:sqlite:./firn-data/catalogue.db", SHIPPED.warehouse(), Map.of());
    assertThat(EmbeddedCatalog.createIfMissing(wrong, dir)).isEmpty();
    assertThat(
            EmbeddedCatalog.createIfMissing(
                with("lake", SHIPPED.uri(), SHIPPED.warehouse(), Map.of()), dir))
        .isEmpty();
    try (Stream<Path> created = Files.list(dir)) {
      assertThat(created).as("nothing created").isEmpty();
    }
  }

  @Test
  void aDirectoryItCannotCreateIsNamed() throws Exception {
    Files.writeString(dir.resolve("firn-data"), "a file where the data directory belongs");
    assertThatThrownBy(() -> EmbeddedCatalog.createIfMissing(SHIPPED, dir))
        .isInstanceOf(CatalogConnectionException.class)
        .hasMessageContaining(dir.resolve("firn-data/warehouse").toString())
        .hasMessageContaining("point catalogs: at your catalog");
  }

  private CatalogSettings absolute() {
    return with(
        "firn",
        "jdbc:sqlite:" + dir.resolve("firn-data/catalog.db"),
        dir.resolve("firn-data/warehouse").toString(),
        Map.of());
  }

  private static CatalogSettings with(
      String name, String uri, String warehouse, Map<String, String> properties) {
    return new CatalogSettings(name, "jdbc", uri, warehouse, properties);
  }
}
