/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.it;

import io.firn.testkit.CdcTableGenerator;
import io.firn.testkit.CdcTableSpec;
import io.firn.testkit.GeneratedTable;
import io.firn.testkit.ServerConfig;
import io.firn.testkit.TestCatalogs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;

/**
 * A SQLite JDBC catalog in a temporary directory ({@link TestCatalogs#sqlite}) and a server
 * configuration pointing at it ({@link ServerConfig}).
 */
final class ServerFixture implements AutoCloseable {
  static final String WORKER_TOKEN = ServerConfig.WORKER_TOKEN;
  static final String ADMIN_TOKEN = ServerConfig.ADMIN_TOKEN;

  final Path dir;
  final JdbcCatalog catalog;

  ServerFixture() {
    try {
      this.dir = Files.createTempDirectory("firn-server-it");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    this.catalog = TestCatalogs.sqlite(dir);
  }

  GeneratedTable generate(String namespace, String name, CdcTableSpec spec) {
    return CdcTableGenerator.generate(catalog, TableIdentifier.of(namespace, name), spec);
  }

  /**
   * Writes a server configuration.
   *
   * @param stateStoreUrl the state store's JDBC URL
   * @param optimizing the body of the {@code optimizing:} section, indented by four spaces
   */
  Path config(String stateStoreUrl, String stateStoreUser, String optimizing) {
    return config(stateStoreUrl, stateStoreUser, optimizing, "");
  }

  /** The same with further top-level sections, each line ending with a newline. */
  Path config(String stateStoreUrl, String stateStoreUser, String optimizing, String sections) {
    return new ServerConfig(ServerConfig.sqliteCatalog(dir), stateStoreUrl)
        .stateStoreUser(stateStoreUser)
        .optimizing(optimizing)
        .sections(sections)
        .write(dir.resolve("firn-server-" + System.nanoTime() + ".yaml"));
  }

  /**
   * A server configuration with one SQLite JDBC catalog named {@code lake}, HTTP on free ports.
   *
   * @param catalogProperties the catalog's {@code properties:}, or none
   * @param optimizing the body of the {@code optimizing:} section, indented
   * @param sections further top-level sections ({@code policies:}, {@code maintenance:}), each line
   *     ending with a newline; or empty
   */
  static String yaml(
      Path catalogFile,
      String warehouse,
      Map<String, String> catalogProperties,
      String stateStoreUrl,
      String stateStoreUser,
      String optimizing,
      String sections) {
    return yaml(
        ServerConfig.jdbcCatalog(
            "lake", "jdbc:sqlite:" + catalogFile, warehouse, catalogProperties),
        stateStoreUrl,
        stateStoreUser,
        optimizing,
        sections);
  }

  /**
   * A server configuration with the given catalogs, HTTP on free ports.
   *
   * @param catalogs the entries of {@code catalogs:} ({@code " - name: lake\n type: rest\n..."}),
   *     each line ending with a newline
   */
  static String yaml(
      String catalogs,
      String stateStoreUrl,
      String stateStoreUser,
      String optimizing,
      String sections) {
    return new ServerConfig(catalogs, stateStoreUrl)
        .stateStoreUser(stateStoreUser)
        .optimizing(optimizing)
        .sections(sections)
        .yaml();
  }

  @Override
  public void close() throws IOException {
    catalog.close();
  }
}
