package io.firn.server;

import com.codahale.metrics.health.HealthCheck;
import io.firn.core.catalog.CatalogSettings;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.SupportsNamespaces;

/**
 * Healthy while every configured catalog opens and lists its top-level namespaces; unhealthy names
 * each catalog that does not and why (a wrong URI, credentials, a catalog server that is down).
 */
public class CatalogsHealthCheck extends HealthCheck {
  private final ServerCatalogs catalogs;

  public CatalogsHealthCheck(ServerCatalogs catalogs) {
    this.catalogs = catalogs;
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
        ? Result.healthy(
            catalogs.settings().size()
                + " catalog(s) reachable"
                + (catalogs.settings().isEmpty() ? "" : ": ")
                + String.join(
                    ", ",
                    catalogs.settings().stream()
                        .map(s -> s.name() + " (" + s.type() + ")")
                        .toList()))
        : Result.unhealthy(String.join("; ", problems));
  }
}
