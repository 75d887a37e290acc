/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.it;

import java.nio.file.Path;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.rest.RESTCatalogAdapter;
import org.apache.iceberg.rest.RESTCatalogServlet;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * Iceberg's own REST catalog server (the servlet and adapter of Iceberg's REST test fixtures, as
 * its {@code RESTCatalogServer} wires them) on 127.0.0.1 and a free port, backed by a JDBC catalog
 * on a SQLite file. The servlet speaks the REST catalog protocol over the backing catalog, so Firn
 * reaches it exactly as it reaches any REST catalog (ADR 0025).
 */
final class RestCatalogServer implements AutoCloseable {
  private final Catalog backend;
  private final RESTCatalogAdapter adapter;
  private final Server http;

  RestCatalogServer(Path dir) throws Exception {
    backend =
        CatalogUtil.buildIcebergCatalog(
            "rest_backend",
            Map.of(
                "type",
                "jdbc",
                "uri",
                "jdbc:sqlite:" + dir.resolve("rest-backend.db"),
                "warehouse",
                dir.resolve("warehouse").toString()),
            new Configuration());
    adapter = new RESTCatalogAdapter(backend);
    ServletContextHandler context = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
    context.addServlet(new ServletHolder(new RESTCatalogServlet(adapter)), "/*");
    http = new Server();
    ServerConnector connector = new ServerConnector(http);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    http.addConnector(connector);
    http.setHandler(context);
    http.setStopTimeout(5_000);
    http.start();
  }

  /** The catalog's URI, e.g. {@code http://127.0.0.1:40123}. */
  String uri() {
    return "http://127.0.0.1:" + ((ServerConnector) http.getConnectors()[0]).getLocalPort();
  }

  @Override
  public void close() throws Exception {
    http.stop();
    adapter.close();
  }
}
