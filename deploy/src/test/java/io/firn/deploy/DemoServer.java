/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.deploy;

import io.dropwizard.testing.DropwizardTestSupport;
import io.firn.server.FirnServerApplication;
import io.firn.server.FirnServerConfiguration;
import io.firn.testkit.CdcTableGenerator;
import io.firn.testkit.CdcTableSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;

/**
 * A demo-sized Firn server: a SQLite JDBC catalog with a few generated CDC tables, the embedded H2
 * state store, the shipped default policy ({@code policies/default.yaml}) and the in-process
 * worker, so that tables get optimized while Prometheus scrapes.
 */
final class DemoServer implements AutoCloseable {
  static final String CATALOG = "lake";

  final Path dir;
  private final DropwizardTestSupport<FirnServerConfiguration> support;

  private DemoServer(Path dir, DropwizardTestSupport<FirnServerConfiguration> support) {
    this.dir = dir;
    this.support = support;
  }

  /** Generates {@code tables} tables in two namespaces, then starts the server. */
  static DemoServer start(int tables) throws Exception {
    Path dir = Kit.scratch("firn-demo-server");
    try (JdbcCatalog catalog =
        (JdbcCatalog)
            CatalogUtil.buildIcebergCatalog(
                CATALOG,
                Map.of(
                    "type",
                    "jdbc",
                    "uri",
                    "jdbc:sqlite:" + dir.resolve("catalog.db"),
                    "warehouse",
                    dir.resolve("warehouse").toString()),
                new Configuration())) {
      for (int i = 0; i < tables; i++) {
        CdcTableSpec spec =
            new CdcTableSpec(1_000, 8, 0.05, 0.02, 0.02, i % 2 * 2, 40L + i, false, false);
        CdcTableGenerator.generate(
            catalog, TableIdentifier.of(i % 2 == 0 ? "sales" : "crm", "t" + i), spec);
      }
    }
    Path config = dir.resolve("firn-server.yaml");
    Files.writeString(
        config,
        """
        catalogs:
          - name: %s
            type: jdbc
            uri: "jdbc:sqlite:%s"
            warehouse: "%s"
        stateStore:
          url: "jdbc:h2:file:%s"
        watch:
          interval: 200ms
        optimizing:
          localWorkerThreads: 2
          maxConcurrentProcesses: 4
          lease: 20s
          heartbeatInterval: 1s
          retryBackoff: 1s
        metrics:
          tableSeriesLimit: 1000
        policies:
          path: "%s"
          reloadInterval: 1s
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
                CATALOG,
                dir.resolve("catalog.db"),
                dir.resolve("warehouse"),
                dir.resolve("state/firn"),
                Kit.repositoryDir().resolve("policies/default.yaml")));
    DropwizardTestSupport<FirnServerConfiguration> support =
        new DropwizardTestSupport<>(FirnServerApplication.class, config.toString());
    support.before();
    return new DemoServer(dir, support);
  }

  int adminPort() {
    return support.getAdminPort();
  }

  String api() {
    return "http://localhost:" + support.getLocalPort() + "/api/v1";
  }

  String metricsUrl() {
    return "http://localhost:" + adminPort() + "/metrics";
  }

  @Override
  public void close() {
    support.after();
  }
}
