/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * The YAML of an optimizer server's configuration as the tests write it, for a server in the test's
 * JVM (Dropwizard's test support) or in a child JVM ({@link ServerProcess}): the catalogs, the
 * state store, a 200 ms watch, the {@code optimizing:} section, further top-level sections, the two
 * tokens, HTTP on free (or given) ports, no request log, Firn's loggers at INFO and the rest at
 * WARN. Text only: the testkit depends on no Firn module.
 */
public final class ServerConfig {
  public static final String WORKER_TOKEN = "worker-secret";
  public static final String ADMIN_TOKEN = "admin-secret";

  private final String catalogs;
  private final String stateStoreUrl;
  private String stateStoreUser;
  private String watch = "200ms";
  private String optimizing = "";
  private String sections = "";
  private String workerToken = WORKER_TOKEN;
  private String adminToken = ADMIN_TOKEN;
  private String bindHost;
  private int port;
  private int adminPort;

  /**
   * @param catalogs the entries of {@code catalogs:} ({@link #jdbcCatalog}), each line ending with
   *     a newline
   * @param stateStoreUrl the state store's JDBC URL
   */
  public ServerConfig(String catalogs, String stateStoreUrl) {
    this.catalogs = catalogs;
    this.stateStoreUrl = stateStoreUrl;
  }

  /**
   * One entry of {@code catalogs:}: a JDBC catalog.
   *
   * @param properties its {@code properties:} (e.g. {@code jdbc.user}), or none
   */
  public static String jdbcCatalog(
      String name, String uri, String warehouse, Map<String, String> properties) {
    StringBuilder entry =
        new StringBuilder(
            """
              - name: %s
                type: jdbc
                uri: "%s"
                warehouse: "%s"
            """
                .formatted(name, uri, warehouse));
    if (!properties.isEmpty()) {
      entry.append("    properties:\n");
      new TreeMap<>(properties)
          .forEach((k, v) -> entry.append("      %s: \"%s\"\n".formatted(k, v)));
    }
    return entry.toString();
  }

  /**
   * The entry of {@link TestCatalogs#sqlite}'s catalog in {@code dir}: {@code lake}, SQLite file
   * {@code dir/catalog.db}, warehouse {@code dir/warehouse}.
   */
  public static String sqliteCatalog(Path dir) {
    return jdbcCatalog(
        TestCatalogs.SQLITE_CATALOG,
        "jdbc:sqlite:" + dir.resolve("catalog.db"),
        dir.resolve("warehouse").toString(),
        Map.of());
  }

  /** The state store's user (none by default). */
  public ServerConfig stateStoreUser(String user) {
    this.stateStoreUser = user;
    return this;
  }

  /** How often the server lists the catalogs (200 ms by default). */
  public ServerConfig watch(String interval) {
    this.watch = interval;
    return this;
  }

  /** The body of the {@code optimizing:} section, each line indented; none: the defaults. */
  public ServerConfig optimizing(String body) {
    this.optimizing = body;
    return this;
  }

  /**
   * Further top-level sections ({@code tables:}, {@code policies:}, {@code maintenance:}, {@code
   * ha:}, ...), each line ending with a newline.
   */
  public ServerConfig sections(String yaml) {
    this.sections = yaml;
    return this;
  }

  /** The worker's and the administrator's tokens ({@link #WORKER_TOKEN}, {@link #ADMIN_TOKEN}). */
  public ServerConfig tokens(String worker, String admin) {
    this.workerToken = worker;
    this.adminToken = admin;
    return this;
  }

  /** No {@code auth:} section: the API is open. */
  public ServerConfig noAuth() {
    return tokens(null, null);
  }

  /** HTTP on {@code host} and the given ports instead of on free ports of every interface. */
  public ServerConfig ports(String host, int port, int adminPort) {
    this.bindHost = host;
    this.port = port;
    this.adminPort = adminPort;
    return this;
  }

  public String yaml() {
    String optimizingSection =
        optimizing.isBlank() ? "" : "optimizing:\n" + optimizing.stripTrailing() + "\n";
    String auth =
        workerToken == null
            ? ""
            : "auth:\n  workerToken: %s\n  adminToken: %s\n".formatted(workerToken, adminToken);
    String host = bindHost == null ? "" : "bindHost: " + bindHost + "\n      ";
    return """
        catalogs:
        %sstateStore:
          url: "%s"
        %swatch:
          interval: %s
        %s%s%sserver:
          applicationConnectors:
            - type: http
              %sport: %d
          adminConnectors:
            - type: http
              %sport: %d
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
            stateStoreUser == null ? "" : "  user: " + stateStoreUser + "\n",
            watch,
            optimizingSection,
            sections,
            auth,
            host,
            port,
            host,
            adminPort);
  }

  /** Writes {@link #yaml} to {@code file} and returns it. */
  public Path write(Path file) {
    try {
      Files.writeString(file, yaml());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return file;
  }
}
