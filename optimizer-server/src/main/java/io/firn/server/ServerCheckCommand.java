/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server;

import io.dropwizard.core.cli.ConfiguredCommand;
import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.core.server.ServerFactory;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.jetty.ConnectorFactory;
import io.dropwizard.jetty.HttpConnectorFactory;
import io.firn.core.catalog.CatalogCredentials;
import io.firn.core.catalog.CatalogSettings;
import io.firn.core.policy.PolicyFile;
import io.firn.server.policy.PolicyRegistry;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import net.sourceforge.argparse4j.inf.Namespace;
import org.jspecify.annotations.Nullable;

/**
 * {@code firn server check FILE}: parses and validates a server configuration like the server does
 * before it starts (Dropwizard's field constraints, then {@link
 * FirnServerConfiguration#problems()}), connects to nothing, and prints what it checked so that an
 * operator sees which catalogs, tables, policy and ports the server would use. Credentials are
 * never printed.
 */
final class ServerCheckCommand extends ConfiguredCommand<FirnServerConfiguration> {
  private final PrintStream out;

  ServerCheckCommand() {
    this(new PrintStream(System.out, true, StandardCharsets.UTF_8));
  }

  ServerCheckCommand(PrintStream out) {
    super("check", "Validates a server configuration file without starting anything");
    this.out = out;
  }

  @Override
  protected void run(
      Bootstrap<FirnServerConfiguration> bootstrap,
      Namespace namespace,
      FirnServerConfiguration configuration) {
    String file = namespace.getString("file");
    out.println("configuration " + file + " is valid; the server would use:");
    summary(configuration).forEach(line -> out.println("  " + line));
  }

  /** What the server would use, one line per part, without credentials. */
  static List<String> summary(FirnServerConfiguration configuration) {
    List<String> lines = new ArrayList<>();
    List<CatalogConfiguration> catalogs = configuration.getCatalogs();
    if (catalogs.isEmpty()) {
      lines.add("catalogs: none (the server watches nothing until one is configured)");
    }
    for (CatalogConfiguration catalog : catalogs) {
      CatalogSettings settings = CatalogCredentials.withoutCredentials(catalog.settings());
      List<String> credentials = CatalogCredentials.credentialKeys(catalog.settings());
      lines.add(
          "catalog "
              + settings.name()
              + ": "
              + settings.type()
              + (settings.location() == null ? "" : " " + settings.location())
              + (settings.warehouse() == null ? "" : ", warehouse " + settings.warehouse())
              + (credentials.isEmpty() ? "" : ", credentials " + credentials + " (not shown)")
              + (EmbeddedCatalog.isEmbeddedDefault(catalog.settings())
                  ? " (the embedded default: the server creates it when its file is missing)"
                  : ""));
    }
    TablesConfiguration tables = configuration.getTables();
    lines.add("tables: include " + tables.getInclude() + ", exclude " + tables.getExclude());
    StateStoreConfiguration store = configuration.getStateStore();
    lines.add(
        "state store: "
            + CatalogCredentials.uriWithoutPassword(store.getUrl())
            + ", up to "
            + store.getMaxConnections()
            + " connection(s)");
    lines.add(
        "watch: every "
            + configuration.getWatch().getInterval()
            + ", "
            + configuration.getWatch().getThreads()
            + " thread(s)");
    OptimizingConfiguration optimizing = configuration.getOptimizing();
    lines.add(
        "optimizing: "
            + (optimizing.isEnabled() ? "enabled" : "disabled")
            + ", at most "
            + optimizing.getMaxConcurrentProcesses()
            + " process(es), lease "
            + optimizing.getLease()
            + ", "
            + optimizing.getMaxAttempts()
            + " attempt(s) per task, "
            + optimizing.getLocalWorkerThreads()
            + " in-process worker thread(s)");
    String path = configuration.getPolicies().getPath();
    if (path == null || path.isBlank()) {
      lines.add("policies: the built-in defaults (no policies.path)");
    } else {
      PolicyFile policy = PolicyRegistry.parse(Path.of(path));
      lines.add(
          "policies: "
              + path
              + ": "
              + policy.rules().size()
              + " rule(s), windows "
              + policy.windows().keySet()
              + ", groups "
              + policy.groups().keySet());
    }
    lines.add(
        "maintenance: "
            + (configuration.getMaintenance().isEmpty()
                ? "defaults"
                : configuration.getMaintenance().toString()));
    AuthConfiguration auth = configuration.getAuth();
    lines.add(
        "auth: worker token "
            + (isSet(auth.getWorkerToken()) ? "set" : "NOT set (any client may act as a worker)")
            + ", admin token "
            + (isSet(auth.getAdminToken()) ? "set" : "NOT set (actions are open)")
            + ", catalog credentials "
            + (auth.isShareCatalogCredentials()
                ? "handed to workers"
                : "withheld (workers bring their own)"));
    lines.addAll(connectors(configuration.getServerFactory()));
    return lines;
  }

  private static List<String> connectors(ServerFactory server) {
    List<String> lines = new ArrayList<>();
    if (server instanceof DefaultServerFactory factory) {
      lines.add("application connectors: " + describe(factory.getApplicationConnectors()));
      lines.add("admin connectors: " + describe(factory.getAdminConnectors()));
    }
    return lines;
  }

  private static String describe(List<ConnectorFactory> connectors) {
    List<String> parts = new ArrayList<>();
    for (ConnectorFactory connector : connectors) {
      if (connector instanceof HttpConnectorFactory http) {
        String host = http.getBindHost() == null ? "all interfaces" : http.getBindHost();
        parts.add(host + ":" + http.getPort());
      } else {
        parts.add(connector.getClass().getSimpleName());
      }
    }
    return parts.isEmpty() ? "none" : String.join(", ", parts);
  }

  private static boolean isSet(@Nullable String token) {
    return token != null && !token.isBlank();
  }
}
