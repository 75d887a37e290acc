/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server;

import com.codahale.metrics.health.HealthCheck;
import io.firn.core.catalog.CatalogSettings;
import java.util.List;
import java.util.function.Supplier;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.SupportsNamespaces;

/**
 * One configured catalog, registered as {@code catalog:NAME} in {@code /healthcheck}: healthy while
 * it opens and lists its top-level namespaces, unhealthy with why not (a wrong URI, credentials, a
 * catalog server that is down), each catalog on its own so a probe or an alert names the one that
 * fails.
 */
public class CatalogHealthCheck extends HealthCheck {
  /** The health check's name for a catalog. */
  public static String name(String catalog) {
    return "catalog:" + catalog;
  }

  private final ServerCatalogs catalogs;
  private final CatalogSettings settings;
  private final Supplier<List<TableWatcher.CatalogStatus>> watched;

  public CatalogHealthCheck(ServerCatalogs catalogs, CatalogSettings settings) {
    this(catalogs, settings, List::of);
  }

  /**
   * @param watched every catalog as the watcher's last round saw it: the healthy answer adds this
   *     catalog's tables and, when no catalog has one, how to get some (it stays healthy)
   */
  public CatalogHealthCheck(
      ServerCatalogs catalogs,
      CatalogSettings settings,
      Supplier<List<TableWatcher.CatalogStatus>> watched) {
    this.catalogs = catalogs;
    this.settings = settings;
    this.watched = watched;
  }

  @Override
  protected Result check() {
    try {
      Catalog catalog = catalogs.catalog(settings.name());
      if (catalog instanceof SupportsNamespaces namespaces) {
        namespaces.listNamespaces();
      }
    } catch (RuntimeException e) {
      catalogs.reset(settings.name());
      return Result.unhealthy(
          "catalog '"
              + settings.name()
              + "' ("
              + settings.type()
              + ") cannot be opened: "
              + e.getMessage());
    }
    return Result.healthy(
        "catalog '" + settings.name() + "' (" + settings.type() + ") reachable" + tables());
  }

  /** "; N table(s) watched", and the first run's hint when the watcher found none anywhere. */
  private String tables() {
    List<TableWatcher.CatalogStatus> seen = watched.get();
    TableWatcher.CatalogStatus mine =
        seen.stream().filter(c -> c.name().equals(settings.name())).findFirst().orElse(null);
    if (mine == null || mine.listedAt() == null) {
      return "";
    }
    boolean allListed = seen.stream().allMatch(c -> c.listedAt() != null);
    int everywhere = seen.stream().mapToInt(TableWatcher.CatalogStatus::tables).sum();
    return "; "
        + mine.tables()
        + " table(s) watched"
        + (allListed && everywhere == 0 ? ": " + TableWatcher.noTablesHint(seen) : "");
  }
}
