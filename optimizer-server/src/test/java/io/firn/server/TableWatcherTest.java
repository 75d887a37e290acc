/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.core.catalog.CatalogSettings;
import io.firn.server.store.StateStore;
import io.firn.testkit.CdcTableGenerator;
import io.firn.testkit.CdcTableSpec;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TableWatcherTest {
  @TempDir Path dir;

  @Test
  void aRoundEvaluatesAtMostItsBudgetAndLeavesTheRestForTheNextRounds() throws Exception {
    CatalogSettings settings =
        new CatalogSettings(
            "lake",
            "jdbc",
            "jdbc:sqlite:" + dir.resolve("catalog.db"),
            dir.resolve("warehouse").toString(),
            Map.of());
    try (JdbcCatalog catalog =
        (JdbcCatalog)
            CatalogUtil.buildIcebergCatalog(
                "lake", settings.icebergProperties(), new Configuration())) {
      for (String name : List.of("a", "b", "c")) {
        CdcTableGenerator.generate(
            catalog,
            TableIdentifier.of("db", name),
            new CdcTableSpec(100, 2, 0.0, 0.0, 0.0, 0, 7L, false, false));
      }
    }
    try (StateStore store = StateStore.open("jdbc:h2:mem:budget", null, null)) {
      MeterRegistry registry = new SimpleMeterRegistry();
      TableWatcher watcher =
          new TableWatcher(
              new ServerCatalogs(List.of(settings)),
              new TablePatterns(List.of("*"), List.of()),
              store,
              Duration.ofMinutes(1),
              Clock.systemUTC(),
              registry,
              1,
              2);
      watcher.round();
      assertThat(watcher.tables()).hasSize(2);
      watcher.round();
      assertThat(watcher.tables()).hasSize(3);
      watcher.round();
      assertThat(evaluations(registry)).isEqualTo(3.0);
      watcher.stop();
    }
  }

  @Test
  void aRestartedWatcherDoesNotEvaluateUnchangedSnapshotsAgain() throws Exception {
    CatalogSettings settings =
        new CatalogSettings(
            "lake",
            "jdbc",
            "jdbc:sqlite:" + dir.resolve("catalog.db"),
            dir.resolve("warehouse").toString(),
            Map.of());
    try (JdbcCatalog catalog =
        (JdbcCatalog)
            CatalogUtil.buildIcebergCatalog(
                "lake", settings.icebergProperties(), new Configuration())) {
      CdcTableGenerator.generate(
          catalog,
          TableIdentifier.of("db", "events"),
          new CdcTableSpec(300, 3, 0.0, 0.0, 0.0, 0, 7L, false, false));
    }
    String stateUrl = "jdbc:h2:file:" + dir.resolve("state/firn");
    Clock clock = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);

    List<TableRuntime> first;
    try (StateStore store = StateStore.open(stateUrl, null, null)) {
      MeterRegistry registry = new SimpleMeterRegistry();
      TableWatcher watcher = watcher(settings, store, clock, registry);
      watcher.loadState();
      watcher.round();
      watcher.stop();
      first = watcher.tables();
      assertThat(evaluations(registry)).isEqualTo(1.0);
    }
    assertThat(first)
        .singleElement()
        .satisfies(
            t -> {
              assertThat(t.qualifiedName()).isEqualTo("lake.db.events");
              assertThat(t.needsPlan()).isTrue();
              assertThat(t.reason())
                  .isEqualTo("1 of 1 partition(s) have delete files or small data files");
              assertThat(t.evaluatedAt()).isEqualTo(clock.instant());
            });

    try (StateStore store = StateStore.open(stateUrl, null, null)) {
      MeterRegistry registry = new SimpleMeterRegistry();
      TableWatcher watcher = watcher(settings, store, Clock.systemUTC(), registry);
      watcher.loadState();
      watcher.round();
      watcher.stop();
      assertThat(evaluations(registry)).isZero();
      assertThat(watcher.tables()).isEqualTo(first);
      assertThat(registry.get("firn.tables.watched").tag("catalog", "lake").gauge().value())
          .isEqualTo(1.0);
    }
  }

  private static TableWatcher watcher(
      CatalogSettings settings, StateStore store, Clock clock, MeterRegistry registry) {
    return new TableWatcher(
        new ServerCatalogs(List.of(settings)),
        new TablePatterns(List.of("*"), List.of()),
        store,
        Duration.ofMinutes(1),
        clock,
        registry,
        2);
  }

  private static double evaluations(MeterRegistry registry) {
    return registry.find("firn.table.evaluations").counters().stream()
        .mapToDouble(c -> c.count())
        .sum();
  }
}
