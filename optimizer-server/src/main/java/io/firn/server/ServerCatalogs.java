/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server;

import io.firn.core.catalog.CatalogCredentials;
import io.firn.core.catalog.CatalogSettings;
import io.firn.core.catalog.Catalogs;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The configured catalogs, connected on first use and shared by the watcher, the planner and the
 * committer. A catalog that failed is reconnected on next use. Thread-safe.
 */
public final class ServerCatalogs implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ServerCatalogs.class);

  private final List<CatalogSettings> settings;
  private final boolean shareCredentials;
  private final Map<String, Catalog> connected = new ConcurrentHashMap<>();

  public ServerCatalogs(List<CatalogSettings> settings) {
    this(settings, true);
  }

  /**
   * @param shareCredentials whether workers are told the catalogs' credentials ({@link
   *     #forWorkers()})
   */
  public ServerCatalogs(List<CatalogSettings> settings, boolean shareCredentials) {
    this.settings = List.copyOf(settings);
    this.shareCredentials = shareCredentials;
  }

  /** What a registering worker is told: the settings, without credentials unless shared. */
  public List<CatalogSettings> forWorkers() {
    return shareCredentials
        ? settings
        : settings.stream().map(CatalogCredentials::withoutCredentials).toList();
  }

  public List<CatalogSettings> settings() {
    return settings;
  }

  /**
   * @throws IllegalArgumentException when no catalog has this name
   */
  public Catalog catalog(String name) {
    return connected.computeIfAbsent(name, n -> Catalogs.connect(find(n)));
  }

  /** Loads a table of a catalog; a fresh load, so it reflects the current snapshot. */
  public Table load(String catalog, String namespace, String table) {
    return catalog(catalog).loadTable(TableIdentifier.parse(namespace + "." + table));
  }

  /** Drops the connection of a catalog that failed; the next use reconnects. */
  public void reset(String name) {
    Catalog failed = connected.remove(name);
    closeQuietly(failed);
  }

  @Override
  public void close() {
    for (Catalog catalog : connected.values()) {
      closeQuietly(catalog);
    }
    connected.clear();
  }

  private CatalogSettings find(String name) {
    for (CatalogSettings candidate : settings) {
      if (candidate.name().equals(name)) {
        return candidate;
      }
    }
    throw new IllegalArgumentException("no catalog named '" + name + "' is configured");
  }

  private static void closeQuietly(@Nullable Catalog catalog) {
    if (catalog instanceof AutoCloseable closeable) {
      try {
        closeable.close();
      } catch (Exception e) {
        LOG.debug("closing a catalog", e);
      }
    }
  }
}
