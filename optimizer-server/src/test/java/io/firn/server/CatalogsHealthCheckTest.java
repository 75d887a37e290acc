package io.firn.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.health.HealthCheck;
import io.firn.core.catalog.CatalogSettings;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CatalogsHealthCheckTest {
  @TempDir Path dir;

  @Test
  void namesEachCatalogThatCannotBeOpenedAndRecoversWhenItCan() throws Exception {
    CatalogSettings good =
        new CatalogSettings(
            "good", "jdbc", "jdbc:sqlite:" + dir.resolve("good.db"), dir.toString(), Map.of());
    create(good);
    Path missing = dir.resolve("not-yet");
    CatalogSettings bad =
        new CatalogSettings(
            "bad", "jdbc", "jdbc:sqlite:" + missing.resolve("bad.db"), dir.toString(), Map.of());
    try (ServerCatalogs catalogs = new ServerCatalogs(List.of(good, bad))) {
      CatalogsHealthCheck check = new CatalogsHealthCheck(catalogs);
      HealthCheck.Result red = check.execute();
      assertThat(red.isHealthy()).isFalse();
      assertThat(red.getMessage())
          .startsWith("catalog 'bad' (jdbc) cannot be opened: ")
          .doesNotContain("'good'");

      java.nio.file.Files.createDirectories(missing);
      create(bad);
      HealthCheck.Result green = check.execute();
      assertThat(green.isHealthy()).as(green.getMessage()).isTrue();
      assertThat(green.getMessage()).isEqualTo("2 catalog(s) reachable: good (jdbc), bad (jdbc)");
    }
  }

  @Test
  void aHealthyAnswerCountsTheWatchedTablesAndSaysHowToGetSomeWhenThereAreNone() throws Exception {
    CatalogSettings lake =
        new CatalogSettings(
            "lake", "jdbc", "jdbc:sqlite:" + dir.resolve("lake.db"), dir.toString(), Map.of());
    create(lake);
    java.util.concurrent.atomic.AtomicInteger tables =
        new java.util.concurrent.atomic.AtomicInteger();
    java.time.Instant listed = java.time.Instant.parse("2026-12-03T10:00:00Z");
    try (ServerCatalogs catalogs = new ServerCatalogs(List.of(lake))) {
      CatalogsHealthCheck check =
          new CatalogsHealthCheck(
              catalogs,
              () ->
                  List.of(
                      new TableWatcher.CatalogStatus("lake", "jdbc", listed, tables.get(), null)));
      HealthCheck.Result empty = check.execute();
      assertThat(empty.isHealthy()).isTrue();
      assertThat(empty.getMessage())
          .startsWith(
              "1 catalog(s) reachable: lake (jdbc); 0 table(s) watched: no table is watched yet")
          .contains("FIRN_CATALOG_URI", "bin/firn ingest");
      tables.set(3);
      assertThat(check.execute().getMessage())
          .isEqualTo("1 catalog(s) reachable: lake (jdbc); 3 table(s) watched");
    }
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
