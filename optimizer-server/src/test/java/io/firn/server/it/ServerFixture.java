/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.it;

import io.firn.testkit.CdcTableGenerator;
import io.firn.testkit.CdcTableSpec;
import io.firn.testkit.GeneratedTable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;

/** A SQLite JDBC catalog in a temporary directory and a server configuration pointing at it. */
final class ServerFixture implements AutoCloseable {
  static final String WORKER_TOKEN = "worker-secret";
  static final String ADMIN_TOKEN = "admin-secret";

  final Path dir;
  final JdbcCatalog catalog;

  ServerFixture() {
    try {
      this.dir = Files.createTempDirectory("firn-server-it");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    this.catalog =
        (JdbcCatalog)
            CatalogUtil.buildIcebergCatalog(
                "lake",
                Map.of(
                    "type",
                    "jdbc",
                    "uri",
                    "jdbc:sqlite:" + dir.resolve("catalog.db"),
                    "warehouse",
                    dir.resolve("warehouse").toString()),
                new Configuration());
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
    String yaml =
        yaml(
            dir.resolve("catalog.db"),
            dir.resolve("warehouse").toString(),
            "",
            stateStoreUrl,
            stateStoreUser,
            optimizing,
            "");
    Path file = dir.resolve("firn-server-" + System.nanoTime() + ".yaml");
    try {
      Files.writeString(file, yaml);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return file;
  }

  /**
   * A server configuration with one SQLite JDBC catalog named {@code lake}, HTTP on free ports.
   *
   * @param catalogLines further lines of the catalog (e.g. its {@code properties:}), indented by
   *     four spaces, each ending with a newline; or empty
   * @param optimizing the body of the {@code optimizing:} section, indented
   * @param sections further top-level sections ({@code policies:}, {@code maintenance:}), each line
   *     ending with a newline; or empty
   */
  static String yaml(
      Path catalogFile,
      String warehouse,
      String catalogLines,
      String stateStoreUrl,
      String stateStoreUser,
      String optimizing,
      String sections) {
    return yaml(
        """
          - name: lake
            type: jdbc
            uri: "jdbc:sqlite:%s"
            warehouse: "%s"
        """
                .formatted(catalogFile, warehouse)
            + catalogLines,
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
    return """
        catalogs:
        %sstateStore:
          url: "%s"
          user: %s
        watch:
          interval: 200ms
        optimizing:
        %s
        %sauth:
          workerToken: %s
          adminToken: %s
        server:
          applicationConnectors:
            - type: http
              port: 0
          adminConnectors:
            - type: http
              port: 0
          requestLog:
            appenders: []
        logging:
          level: WARN
          loggers:
            io.firn: INFO
        """
        .formatted(
            catalogs,
            stateStoreUrl,
            stateStoreUser == null ? "null" : stateStoreUser,
            optimizing.stripTrailing(),
            sections,
            WORKER_TOKEN,
            ADMIN_TOKEN);
  }

  @Override
  public void close() throws IOException {
    catalog.close();
  }
}
