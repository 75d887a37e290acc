package io.firn.server;

import com.codahale.metrics.health.HealthCheck;
import io.firn.core.catalog.CatalogSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.SupportsNamespaces;

/**
 * Healthy while every configured catalog opens and lists its top-level namespaces; unhealthy names
 * each catalog that does not and why (a wrong URI, credentials, a catalog server that is down).
 */
public class CatalogsHealthCheck extends HealthCheck {
  private final ServerCatalogs catalogs;
  private final Supplier<List<TableWatcher.CatalogStatus>> watched;

  public CatalogsHealthCheck(ServerCatalogs catalogs) {
    this(catalogs, List::of);
  }

  /**
   * @param watched the catalogs as the watcher's last round saw them: the healthy answer adds the
   *     tables watched and, when there are none, how to get some (it stays healthy)
   */
  public CatalogsHealthCheck(
      ServerCatalogs catalogs, Supplier<List<TableWatcher.CatalogStatus>> watched) {
    this.catalogs = catalogs;
    this.watched = watched;
  }

  @Override
  protected Result check() {
    List<String> problems = new ArrayList<>();
    for (CatalogSettings settings : catalogs.settings()) {
      try {
        Catalog catalog = catalogs.catalog(settings.name());
        if (catalog instanceof SupportsNamespaces namespaces) {
          namespaces.listNamespaces();
        }
      } catch (RuntimeException e) {
        catalogs.reset(settings.name());
        problems.add(
            "catalog '"
                + settings.name()
                + "' ("
                + settings.type()
                + ") cannot be opened: "
                + e.getMessage());
      }
    }
    return problems.isEmpty()
        ? Result.healthy(reachable() + tables())
        : Result.unhealthy(String.join("; ", problems));
  }

  private String reachable() {
    return catalogs.settings().size()
        + " catalog(s) reachable"
        + (catalogs.settings().isEmpty() ? "" : ": ")
        + String.join(
            ", ", catalogs.settings().stream().map(s -> s.name() + " (" + s.type() + ")").toList());
  }

  /** "; N table(s) watched", and the first run's hint when the watcher found none. */
  private String tables() {
    List<TableWatcher.CatalogStatus> seen = watched.get();
    if (seen.isEmpty() || seen.stream().anyMatch(c -> c.listedAt() == null)) {
      return "";
    }
    int tables = seen.stream().mapToInt(TableWatcher.CatalogStatus::tables).sum();
    return "; "
        + tables
        + " table(s) watched"
        + (tables == 0 ? ": " + TableWatcher.noTablesHint(seen) : "");
  }
}
