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
import io.firn.testkit.ServerConfig;
import io.firn.testkit.TestCatalogs;
import java.nio.file.Path;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;

/**
 * A demo-sized Firn server: a SQLite JDBC catalog with a few generated CDC tables, the embedded H2
 * state store, the shipped default policy ({@code policies/default.yaml}) and the in-process
 * worker, so that tables get optimized while Prometheus scrapes.
 */
final class DemoServer implements AutoCloseable {
  final Path dir;
  private final DropwizardTestSupport<FirnServerConfiguration> support;

  private DemoServer(Path dir, DropwizardTestSupport<FirnServerConfiguration> support) {
    this.dir = dir;
    this.support = support;
  }

  /** Generates {@code tables} tables in two namespaces, then starts the server. */
  static DemoServer start(int tables) throws Exception {
    Path dir = Kit.scratch("firn-demo-server");
    try (JdbcCatalog catalog = TestCatalogs.sqlite(dir)) {
      for (int i = 0; i < tables; i++) {
        CdcTableSpec spec =
            new CdcTableSpec(1_000, 8, 0.05, 0.02, 0.02, i % 2 * 2, 40L + i, false, false);
        CdcTableGenerator.generate(
            catalog, TableIdentifier.of(i % 2 == 0 ? "sales" : "crm", "t" + i), spec);
      }
    }
    Path config =
        new ServerConfig(
                ServerConfig.sqliteCatalog(dir), "jdbc:h2:file:" + dir.resolve("state/firn"))
            .optimizing(
                """
                  localWorkerThreads: 2
                  maxConcurrentProcesses: 4
                  lease: 20s
                  heartbeatInterval: 1s
                  retryBackoff: 1s
                """)
            .sections(
                """
                metrics:
                  tableSeriesLimit: 1000
                policies:
                  path: "%s"
                  reloadInterval: 1s
                """
                    .formatted(Kit.repositoryDir().resolve("policies/default.yaml")))
            .noAuth()
            .write(dir.resolve("firn-server.yaml"));
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
