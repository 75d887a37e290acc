/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.health.HealthCheck;
import io.firn.core.catalog.CatalogSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CatalogHealthCheckTest {
  @TempDir Path dir;

  @Test
  void eachCatalogIsJudgedOnItsOwnAndRecoversWhenItCanBeOpened() throws Exception {
    CatalogSettings good = jdbc("good", dir.resolve("good.db"));
    create(good);
    Path missing = dir.resolve("not-yet");
    CatalogSettings bad = jdbc("bad", missing.resolve("bad.db"));
    try (ServerCatalogs catalogs = new ServerCatalogs(List.of(good, bad))) {
      CatalogHealthCheck goodCheck = new CatalogHealthCheck(catalogs, good);
      CatalogHealthCheck badCheck = new CatalogHealthCheck(catalogs, bad);

      HealthCheck.Result red = badCheck.execute();
      assertThat(red.isHealthy()).isFalse();
      assertThat(red.getMessage())
          .startsWith("catalog 'bad' (jdbc) cannot be opened: ")
          .contains(missing.resolve("bad.db").toString(), "does not exist");
      HealthCheck.Result green = goodCheck.execute();
      assertThat(green.isHealthy()).as(green.getMessage()).isTrue();
      assertThat(green.getMessage()).isEqualTo("catalog 'good' (jdbc) reachable");

      Files.createDirectories(missing);
      create(bad);
      HealthCheck.Result recovered = badCheck.execute();
      assertThat(recovered.isHealthy()).as(recovered.getMessage()).isTrue();
      assertThat(recovered.getMessage()).isEqualTo("catalog 'bad' (jdbc) reachable");
    }
  }

  @Test
  void countsItsOwnTablesAndSaysHowToGetSomeWhileNoCatalogHasOne() throws Exception {
    CatalogSettings lake = jdbc("lake", dir.resolve("lake.db"));
    CatalogSettings other = jdbc("other", dir.resolve("other.db"));
    create(lake);
    create(other);
    AtomicInteger lakeTables = new AtomicInteger();
    AtomicInteger otherTables = new AtomicInteger();
    Instant listed = Instant.parse("2026-12-03T10:00:00Z");
    try (ServerCatalogs catalogs = new ServerCatalogs(List.of(lake, other))) {
      CatalogHealthCheck check =
          new CatalogHealthCheck(
              catalogs,
              lake,
              () ->
                  List.of(
                      new TableWatcher.CatalogStatus(
                          "lake", "jdbc", listed, lakeTables.get(), null),
                      new TableWatcher.CatalogStatus(
                          "other", "jdbc", listed, otherTables.get(), null)));
      HealthCheck.Result empty = check.execute();
      assertThat(empty.isHealthy()).isTrue();
      assertThat(empty.getMessage())
          .startsWith("catalog 'lake' (jdbc) reachable; 0 table(s) watched: no table is watched")
          .contains("FIRN_CATALOG_URI", "bin/firn ingest");

      otherTables.set(2);
      assertThat(check.execute().getMessage())
          .as("another catalog has tables: no hint")
          .isEqualTo("catalog 'lake' (jdbc) reachable; 0 table(s) watched");
      lakeTables.set(3);
      assertThat(check.execute().getMessage())
          .isEqualTo("catalog 'lake' (jdbc) reachable; 3 table(s) watched");
    }
  }

  private CatalogSettings jdbc(String name, Path file) {
    return new CatalogSettings(name, "jdbc", "jdbc:sqlite:" + file, dir.toString(), Map.of());
  }

  private static void create(CatalogSettings settings) throws Exception {
    Catalog catalog =
        CatalogUtil.buildIcebergCatalog(
            settings.name(),
            Map.of("type", "jdbc", "uri", settings.uri(), "warehouse", settings.warehouse()),
            new Configuration());
    ((AutoCloseable) catalog).close();
  }
}
