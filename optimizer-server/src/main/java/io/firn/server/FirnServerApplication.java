/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server;

import com.fasterxml.jackson.databind.SerializationFeature;
import io.dropwizard.configuration.EnvironmentVariableSubstitutor;
import io.dropwizard.configuration.SubstitutingSourceProvider;
import io.dropwizard.core.Application;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.lifecycle.Managed;
import io.firn.core.catalog.CatalogCredentials;
import io.firn.core.catalog.CatalogSettings;
import io.firn.core.maintenance.InvalidMaintenanceSettingsException;
import io.firn.core.maintenance.MaintenanceSettings;
import io.firn.core.policy.PolicyFile;
import io.firn.core.policy.PolicyParser;
import io.firn.server.api.AdminGuard;
import io.firn.server.api.ConsoleServlet;
import io.firn.server.api.ErrorMappers;
import io.firn.server.api.JsonErrorHandler;
import io.firn.server.api.LeaderRedirect;
import io.firn.server.api.LeaderResource;
import io.firn.server.api.OverviewResource;
import io.firn.server.api.PoliciesResource;
import io.firn.server.api.ProcessesResource;
import io.firn.server.api.RequestGuard;
import io.firn.server.api.TablesResource;
import io.firn.server.api.Tokens;
import io.firn.server.api.WorkerProtocolResource;
import io.firn.server.api.WorkersResource;
import io.firn.server.ha.LeaderLease;
import io.firn.server.ha.Leadership;
import io.firn.server.optimizing.OptimizingService;
import io.firn.server.policy.PolicyRegistry;
import io.firn.server.policy.PolicyWatcher;
import io.firn.server.policy.WindowCalendar;
import io.firn.server.policy.WindowScheduler;
import io.firn.server.store.StateStore;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.servlet.DispatcherType;
import java.nio.file.Path;
import java.time.Clock;
import java.util.EnumSet;
import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The optimizer server. {@code server FILE} runs it; {@code check FILE} validates a configuration
 * file without starting anything and prints what the server would use ({@link ServerCheckCommand}).
 */
public class FirnServerApplication extends Application<FirnServerConfiguration> {
  private static final Logger LOG = LoggerFactory.getLogger(FirnServerApplication.class);
  // Set by run(); what the accessors for tests return.
  private @Nullable PrometheusMeterRegistry registry;
  private @Nullable TableWatcher watcher;
  private @Nullable OptimizingService optimizing;

  @Override
  public void initialize(Bootstrap<FirnServerConfiguration> bootstrap) {
    // ${VAR:-default} in the YAML file reads the environment (deploy/server/firn-server.yaml).
    bootstrap.setConfigurationSourceProvider(
        new SubstitutingSourceProvider(
            bootstrap.getConfigurationSourceProvider(), new EnvironmentVariableSubstitutor(false)));
    // ISO-8601 instants in the API, not epoch numbers.
    bootstrap.getObjectMapper().disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);
  }

  /** {@code server} as Dropwizard's; {@code check} prints what it checked. */
  @Override
  protected void addDefaultCommands(Bootstrap<FirnServerConfiguration> bootstrap) {
    bootstrap.addCommand(new io.dropwizard.core.cli.ServerCommand<>(this));
    bootstrap.addCommand(new ServerCheckCommand());
  }

  public static void main(String[] args) throws Exception {
    new FirnServerApplication().run(args);
  }

  @Override
  public String getName() {
    return "firn-optimizer-server";
  }

  @Override
  public void run(FirnServerConfiguration configuration, Environment environment) {
    List<CatalogSettings> catalogs =
        configuration.getCatalogs().stream().map(CatalogConfiguration::settings).toList();
    // Validated before run: FirnServerConfiguration.problems().

    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    this.registry = registry;
    new ClassLoaderMetrics().bindTo(registry);
    new JvmMemoryMetrics().bindTo(registry);
    JvmGcMetrics gc = new JvmGcMetrics();
    gc.bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    // Not ProcessorMetrics: its process_cpu_time_ns_total and system_cpu_count fail
    // `promtool check metrics` (abbreviated unit, _count suffix on a gauge).

    StateStoreConfiguration stateStore = configuration.getStateStore();
    StateStore store = StateStore.open(stateStore, environment.metrics(), registry);
    createEmbeddedCatalog(catalogs);
    boolean share = configuration.getAuth().isShareCatalogCredentials();
    ServerCatalogs connections = new ServerCatalogs(catalogs, share);
    for (CatalogSettings catalog : catalogs) {
      List<String> credentials = CatalogCredentials.credentialKeys(catalog);
      if (share && !credentials.isEmpty()) {
        LOG.warn(
            "catalog '{}': its credentials ({}) are handed to every worker that registers with the"
                + " worker token; set auth.shareCatalogCredentials: false and give workers their"
                + " own ({}, docs/adr/0017-worker-trust.md)",
            catalog.name(),
            String.join(", ", credentials),
            CatalogCredentials.ENV);
      }
    }
    TableWatcher watcher =
        new TableWatcher(
            connections,
            configuration.getTables().patterns(),
            store,
            configuration.getWatch().getInterval().toJavaDuration(),
            Clock.systemUTC(),
            registry,
            configuration.getWatch().getThreads(),
            configuration.getWatch().getMaxEvaluationsPerRound());
    PoliciesConfiguration policyConfig = configuration.getPolicies();
    String policyPath = policyConfig.getPath();
    PolicyRegistry policyRegistry =
        policyPath == null || policyPath.isBlank()
            ? null
            : new PolicyRegistry(Path.of(policyPath), Clock.systemUTC());
    PolicyRegistry.LoadedPolicy builtIn =
        policyRegistry == null ? builtInPolicy() : policyRegistry.current();
    Supplier<PolicyRegistry.LoadedPolicy> policies =
        policyRegistry == null ? () -> builtIn : policyRegistry::current;
    OptimizingConfiguration optimizingConfig = configuration.getOptimizing();
    OptimizingService optimizing =
        new OptimizingService(
            connections,
            store,
            optimizingConfig,
            policies,
            Clock.systemUTC(),
            registry,
            configuration.getMetrics().getTableSeriesLimit(),
            maintenanceSettings(configuration));
    this.watcher = watcher;
    this.optimizing = optimizing;
    watcher.listener(optimizing);
    Tokens tokens =
        new Tokens(
            configuration.getAuth().getWorkerToken(), configuration.getAuth().getAdminToken());

    // Stopped in reverse order: the watcher first, then the store and the registry.
    environment
        .lifecycle()
        .manage(
            new Managed() {
              @Override
              public void stop() {
                gc.close();
                registry.close();
                connections.close();
                store.close();
              }
            });
    // The leader side: one server runs it from the start; with ha.enabled, the replica holding
    // the leader lease does (ADR 0021).
    List<Managed> leaderSide = new java.util.ArrayList<>(List.of(optimizing, watcher));
    OptimizingConfiguration localWorkers = optimizingConfig;
    if (localWorkers.isEnabled() && localWorkers.getLocalWorkerThreads() > 0) {
      leaderSide.add(new InProcessWorker(optimizing, localWorkers.getLocalWorkerThreads()));
    }
    HaConfiguration ha = configuration.getHa();
    Leadership leadership = null;
    if (ha.isEnabled()) {
      leadership =
          new Leadership(
              new LeaderLease(store.dataSource()),
              ha.requireAdvertisedUrl(),
              ha.getLeaseTtl().toJavaDuration(),
              ha.getRenewInterval().toJavaDuration(),
              leaderSide,
              Leadership.halt(),
              registry);
      store.fence(leadership.fence());
      optimizing.commitOnlyWhile(leadership::mayCommit);
      environment.lifecycle().manage(leadership);
      environment.jersey().register(new LeaderRedirect(leadership));
    } else {
      leaderSide.forEach(environment.lifecycle()::manage);
    }
    environment.jersey().register(new LeaderResource(leadership));
    WindowScheduler.WindowListener windowListener =
        new WindowScheduler.WindowListener() {
          @Override
          public void windowOpened(String name) {
            // The scheduler's next round sees it open; nothing to do here.
          }

          @Override
          public void windowClosed(String name) {
            optimizing.windowClosed(name);
          }
        };
    WindowGauges windowGauges = WindowGauges.register(registry, policies, Clock.systemUTC());
    if (policyRegistry != null) {
      policyRegistry.addListener(loaded -> windowGauges.sync());
      environment
          .lifecycle()
          .manage(
              new PolicyWatcher(policyRegistry, policyConfig.getReloadInterval().toJavaDuration()));
      environment
          .lifecycle()
          .manage(WindowScheduler.following(policyRegistry, windowListener, Clock.systemUTC()));
    } else {
      environment
          .lifecycle()
          .manage(new WindowScheduler(builtIn.calendar(), windowListener, Clock.systemUTC()));
    }
    environment.healthChecks().register("state-store", new StateStoreHealthCheck(store));
    // One entry per catalog, so a probe or an alert names the catalog that fails.
    for (CatalogSettings catalog : catalogs) {
      environment
          .healthChecks()
          .register(
              CatalogHealthCheck.name(catalog.name()),
              new CatalogHealthCheck(connections, catalog, watcher::catalogs));
    }
    environment.jersey().register(new TablesResource(optimizing, store, tokens));
    environment.jersey().register(new ProcessesResource(store));
    environment.jersey().register(new WorkersResource(optimizing));
    PoliciesResource policiesResource =
        new PoliciesResource(policies, policyRegistry, optimizing, Clock.systemUTC());
    environment.jersey().register(policiesResource);
    environment
        .jersey()
        .register(
            new OverviewResource(
                optimizing,
                watcher,
                store,
                policiesResource,
                policyRegistry,
                registry,
                Clock.systemUTC()));
    // The operator's console: / and /console/* (exact and longer mappings win over Jersey's /*).
    environment.servlets().addServlet("console", new ConsoleServlet()).addMapping("", "/console/*");
    environment.jersey().register(new RequestGuard(tokens));
    environment.getApplicationContext().setErrorHandler(new JsonErrorHandler());
    environment
        .lifecycle()
        .addServerLifecycleListener(s -> s.setErrorHandler(new JsonErrorHandler()));
    environment.jersey().register(new WorkerProtocolResource(optimizing, tokens));
    ErrorMappers.all().forEach(environment.jersey()::register);
    // Dropwizard's admin tasks and thread dumps need the admin token; metrics and probes do not.
    environment
        .admin()
        .addFilter("firn-admin-guard", new AdminGuard(tokens))
        .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/*");
    // An exact mapping wins over Dropwizard's own admin servlet on /*.
    environment
        .admin()
        .addServlet("prometheus", new PrometheusServlet(registry))
        .addMapping("/metrics");
  }

  /**
   * On an empty start with the shipped defaults, the embedded default catalog is created (ADR 0028,
   * "First run"), so the first run shows an empty catalog and how to fill it rather than an error.
   * A failure is logged and the server starts: the catalog's health check names it.
   */
  private static void createEmbeddedCatalog(List<CatalogSettings> catalogs) {
    for (CatalogSettings catalog : catalogs) {
      try {
        EmbeddedCatalog.createIfMissing(catalog, Path.of("")).ifPresent(LOG::warn);
      } catch (RuntimeException e) {
        LOG.error("{}", e.getMessage(), e);
      }
    }
  }

  /** The meter registry; for tests. */
  public PrometheusMeterRegistry registry() {
    return started(registry, "meter registry");
  }

  private static <T> T started(@Nullable T part, String what) {
    if (part == null) {
      throw new IllegalStateException("the server's " + what + " exists once the server runs");
    }
    return part;
  }

  private static MaintenanceSettings maintenanceSettings(FirnServerConfiguration configuration) {
    try {
      return MaintenanceSettings.DEFAULTS.withOverrides(configuration.getMaintenance());
    } catch (InvalidMaintenanceSettingsException e) {
      throw new IllegalArgumentException("maintenance: " + e.getMessage(), e);
    }
  }

  /** The shipped defaults when no policy file is configured. */
  static PolicyRegistry.LoadedPolicy builtInPolicy() {
    PolicyFile policy =
        PolicyParser.parse(
            "built-in default policy",
            // Without a group of its own, every table would share an implicit capacity of 1 task.
            "version: 1\ngroups:\n  default: {capacity: 16}\ndefaults:\n  group: default\n");
    return new PolicyRegistry.LoadedPolicy(
        policy, WindowCalendar.of(policy), Clock.systemUTC().instant());
  }

  /** The optimizing service; for tests. */
  public OptimizingService optimizing() {
    return started(optimizing, "optimizing service");
  }

  /** The snapshot watcher; for tests. */
  public TableWatcher watcher() {
    return started(watcher, "table watcher");
  }
}
