/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server;

import io.firn.core.catalog.CatalogConnectionException;
import io.firn.core.catalog.CatalogSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;

/**
 * The embedded default catalog: the one the shipped configuration's defaults name and {@code
 * bin/firn ingest} writes to without a configuration. The server creates it, and only it, on an
 * empty start (ADR 0028, "First run"); any other catalog that cannot be opened stays an error.
 */
final class EmbeddedCatalog {
  static final String NAME = "firn";
  static final Path DIRECTORY = Path.of("firn-data");
  static final Path FILE = DIRECTORY.resolve("catalog.db");
  static final Path WAREHOUSE = DIRECTORY.resolve("warehouse");
  private static final String SQLITE = "jdbc:sqlite:";

  private EmbeddedCatalog() {}

  /**
   * Exactly the embedded default: name {@code firn}, type {@code jdbc}, URI {@code
   * jdbc:sqlite:firn-data/catalog.db} and warehouse {@code firn-data/warehouse} (a leading {@code
   * ./} allowed), no further property. Relative paths only: they are under the server's working
   * directory, whose {@code firn-data/} the server owns (its default state store is there too). An
   * absolute path, a URI with parameters or one more property is the operator's own catalog.
   */
  static boolean isEmbeddedDefault(CatalogSettings settings) {
    return NAME.equals(settings.name())
        && "jdbc".equals(settings.type())
        && settings.properties().isEmpty()
        && settings.uri() != null
        && settings.uri().startsWith(SQLITE)
        && sameRelativePath(settings.uri().substring(SQLITE.length()), FILE)
        && settings.warehouse() != null
        && sameRelativePath(settings.warehouse(), WAREHOUSE);
  }

  private static boolean sameRelativePath(String spelled, Path expected) {
    // Only "firn-data/..." or "./firn-data/...": a "../" or a doubled "/" is someone's own path.
    return spelled.equals(expected.toString()) || spelled.equals("./" + expected);
  }

  /**
   * Creates the embedded default catalog under {@code workingDirectory} when {@code settings} name
   * it and its SQLite file does not exist yet: the warehouse directory and an empty JDBC catalog.
   *
   * @return what was created, for the log; empty when nothing was
   * @throws CatalogConnectionException when it cannot be created (a read-only directory, a file
   *     where a directory belongs), naming the path
   */
  static Optional<String> createIfMissing(CatalogSettings settings, Path workingDirectory) {
    if (!isEmbeddedDefault(settings)) {
      return Optional.empty();
    }
    Path file = workingDirectory.resolve(FILE).toAbsolutePath().normalize();
    Path warehouse = workingDirectory.resolve(WAREHOUSE).toAbsolutePath().normalize();
    if (Files.exists(file, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      return Optional.empty();
    }
    try {
      Files.createDirectories(warehouse);
    } catch (IOException e) {
      throw new CatalogConnectionException(
          "cannot create the embedded default catalog's warehouse "
              + warehouse
              + ": "
              + e
              + " (make the working directory writable, or point catalogs: at your catalog)");
    }
    CatalogSettings absolute =
        new CatalogSettings(
            NAME, "jdbc", SQLITE + file, warehouse.toString(), settings.properties());
    // JdbcCatalog creates its tables in the new SQLite file on initialization.
    try (AutoCloseable catalog = closeable(absolute)) {
      return Optional.of(
          "created the embedded default catalog '"
              + NAME
              + "' (SQLite file "
              + file
              + ", warehouse "
              + warehouse
              + "): it has no table yet. Put tables in it with `bin/firn ingest` run in this"
              + " directory (the built-in generator writes example tables into namespace events),"
              + " or point the server at your catalog: FIRN_CATALOG_URI and FIRN_WAREHOUSE, or"
              + " catalogs: in your configuration (README, \"Catalogs\")");
    } catch (Exception e) {
      throw new CatalogConnectionException(
          "cannot create the embedded default catalog in " + file + ": " + e.getMessage());
    }
  }

  private static AutoCloseable closeable(CatalogSettings settings) {
    Catalog catalog =
        CatalogUtil.buildIcebergCatalog(
            settings.name(), settings.icebergProperties(), new Configuration());
    return catalog instanceof AutoCloseable c ? c : () -> {};
  }
}
