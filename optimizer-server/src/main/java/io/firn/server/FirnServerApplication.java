package io.firn.server;

import io.dropwizard.core.Application;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.lifecycle.Managed;
import io.firn.core.catalog.CatalogSettings;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The optimizer server. {@code server FILE} runs it; {@code check FILE} validates a configuration
 * file without starting anything (both commands come with Dropwizard).
 */
public class FirnServerApplication extends Application<FirnServerConfiguration> {
  private PrometheusMeterRegistry registry;
  private TableWatcher watcher;

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
    Set<String> names = new HashSet<>();
    for (CatalogSettings catalog : catalogs) {
      if (!names.add(catalog.name())) {
        throw new IllegalArgumentException(
            "catalogs: the name '"
                + catalog.name()
                + "' is used more than once; names must be"
                + " unique");
      }
    }

    registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new ClassLoaderMetrics().bindTo(registry);
    new JvmMemoryMetrics().bindTo(registry);
    JvmGcMetrics gc = new JvmGcMetrics();
    gc.bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    // Not ProcessorMetrics: its process_cpu_time_ns_total and system_cpu_count fail
    // `promtool check metrics` (abbreviated unit, _count suffix on a gauge).

    StateStoreConfiguration stateStore = configuration.getStateStore();
    StateStore store =
        StateStore.open(stateStore.getUrl(), stateStore.getUser(), stateStore.getPassword());
    watcher =
        new TableWatcher(
            catalogs,
            configuration.getTables().patterns(),
            store,
            configuration.getWatch().getInterval().toJavaDuration(),
            Clock.systemUTC(),
            registry);

    // Stopped in reverse order: the watcher first, then the store and the registry.
    environment
        .lifecycle()
        .manage(
            new Managed() {
              @Override
              public void stop() {
                gc.close();
                registry.close();
                store.close();
              }
            });
    environment.lifecycle().manage(watcher);
    environment.healthChecks().register("state-store", new StateStoreHealthCheck(store));
    environment.jersey().register(new TablesResource(watcher));
    // An exact mapping wins over Dropwizard's own admin servlet on /*.
    environment
        .admin()
        .addServlet("prometheus", new PrometheusServlet(registry))
        .addMapping("/metrics");
  }

  /** The meter registry; for tests. */
  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /** The snapshot watcher; for tests. */
  public TableWatcher watcher() {
    return watcher;
  }
}
