/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.catalog;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;

/** Connects to catalogs and loads tables with errors that name what is wrong. */
public final class Catalogs {
  private Catalogs() {}

  /**
   * @throws CatalogConnectionException when the catalog cannot be created or reached
   */
  public static Catalog connect(CatalogSettings settings) {
    String uri = settings.uri();
    if ("jdbc".equals(settings.type()) && uri != null && uri.startsWith("jdbc:sqlite:")) {
      String file = uri.substring("jdbc:sqlite:".length());
      int query = file.indexOf('?');
      file = query >= 0 ? file.substring(0, query) : file;
      if (!file.startsWith(":memory:")
          && !file.startsWith("file::memory:")
          && !Files.isRegularFile(Path.of(file.startsWith("file:") ? file.substring(5) : file))) {
        throw new CatalogConnectionException(
            settings
                + ": the SQLite catalog file "
                + file
                + " does not exist (Firn does not create catalogs; check the catalog uri)");
      }
    }
    if ("glue".equals(settings.type())) {
      GlueCheck.checkReachable(settings); // once, without the SDK's retries
    }
    try {
      Catalog catalog =
          CatalogUtil.buildIcebergCatalog(
              settings.name(), settings.icebergProperties(), hadoopConfiguration(settings));
      if (catalog instanceof SupportsNamespaces namespaces && !"glue".equals(settings.type())) {
        namespaces
            .listNamespaces(); // fail now, not at the first table, when the catalog is unreachable
      }
      try {
        ObjectStorage.checkReachable(settings);
      } catch (CatalogConnectionException e) {
        if (catalog instanceof java.io.Closeable closeable) {
          try {
            closeable.close();
          } catch (java.io.IOException | RuntimeException suppressed) {
            e.addSuppressed(suppressed);
          }
        }
        throw e;
      }
      return catalog;
    } catch (CatalogConnectionException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new CatalogConnectionException(
          "cannot connect to " + settings + ": " + rootMessage(e), e);
    }
  }

  /**
   * The Hadoop configuration handed to the catalog: empty, except that a Hive catalog's {@code
   * hive.*} properties (SASL, Kerberos principal, client timeouts) go into it, where Iceberg's
   * {@code HiveCatalog} reads the metastore client's settings (ADR 0025).
   */
  public static Configuration hadoopConfiguration(CatalogSettings settings) {
    Configuration conf = new Configuration();
    if ("hive".equals(settings.type())) {
      settings
          .properties()
          .forEach(
              (key, value) -> {
                if (key.startsWith("hive.")) {
                  conf.set(key, value);
                }
              });
    }
    return conf;
  }

  /**
   * @param table {@code namespace.table} (nested namespaces separated by dots)
   * @throws CatalogConnectionException when the table name is malformed or the table is missing
   */
  public static Table load(Catalog catalog, String table) {
    if (table == null || !table.contains(".") || table.startsWith(".") || table.endsWith(".")) {
      throw new CatalogConnectionException(
          "table '" + table + "' must be given as namespace.table (e.g. db.events)");
    }
    TableIdentifier id = TableIdentifier.parse(table);
    try {
      return catalog.loadTable(id);
    } catch (NoSuchTableException e) {
      String known = "";
      if (catalog instanceof SupportsNamespaces namespaces) {
        try {
          List<TableIdentifier> tables = catalog.listTables(id.namespace());
          known =
              "; tables in namespace "
                  + id.namespace()
                  + ": "
                  + (tables.isEmpty() ? "none" : tables);
        } catch (RuntimeException ignored) {
          known = "; namespaces: " + namespaces.listNamespaces(Namespace.empty());
        }
      }
      String hint =
          catalog instanceof org.apache.iceberg.jdbc.JdbcCatalog
              ? " (a JDBC catalog keeps tables per catalog name: use the name the writers use,"
                  + " with --catalog-name)"
              : "";
      throw new CatalogConnectionException(
          "table " + id + " does not exist in catalog '" + catalog.name() + "'" + known + hint, e);
    } catch (RuntimeException e) {
      throw new CatalogConnectionException(
          "cannot load table " + id + " from catalog '" + catalog.name() + "': " + rootMessage(e),
          e);
    }
  }

  static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root == e ? String.valueOf(e.getMessage()) : e.getMessage() + " (cause: " + root + ")";
  }
}
