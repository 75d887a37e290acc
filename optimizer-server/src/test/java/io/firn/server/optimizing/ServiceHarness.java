/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import io.dropwizard.util.Duration;
import io.firn.core.catalog.CatalogSettings;
import io.firn.core.policy.OptimizingPolicy;
import io.firn.core.policy.PolicyFile;
import io.firn.core.policy.PolicyParser;
import io.firn.core.table.TableEvaluator;
import io.firn.server.OptimizingConfiguration;
import io.firn.server.ServerCatalogs;
import io.firn.server.TableRuntime;
import io.firn.server.TableSummary;
import io.firn.server.policy.MutableClock;
import io.firn.server.policy.PolicyRegistry;
import io.firn.server.policy.WindowCalendar;
import io.firn.server.store.StateStore;
import io.firn.testkit.CdcTableGenerator;
import io.firn.testkit.CdcTableSpec;
import io.firn.testkit.GeneratedTable;
import io.firn.worker.remote.Worker;
import io.firn.worker.remote.WorkerSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;

/**
 * An {@link OptimizingService} over a SQLite JDBC catalog and an in-memory H2 store, with a policy
 * from a YAML string and a clock the test moves. Tables are fed to it the way the watcher does.
 */
final class ServiceHarness implements AutoCloseable {
  final MutableClock clock;
  final JdbcCatalog catalog;
  final StateStore store;
  final ServerCatalogs catalogs;
  final OptimizingService service;
  final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final PolicyRegistry.LoadedPolicy policy;
  private Worker worker;

  ServiceHarness(Path dir, String policyYaml, Instant start) {
    this(dir, policyYaml, start, config -> {});
  }

  ServiceHarness(
      Path dir,
      String policyYaml,
      Instant start,
      java.util.function.Consumer<OptimizingConfiguration> configure) {
    // Dangling delete removal (on by default in servers) is off unless a test asks for it.
    this(
        dir,
        policyYaml,
        start,
        configure,
        Map.of("dangling-deletes.enabled", "false", "rewrite-manifests.enabled", "false"));
  }

  ServiceHarness(
      Path dir,
      String policyYaml,
      Instant start,
      java.util.function.Consumer<OptimizingConfiguration> configure,
      Map<String, String> maintenance) {
    this(dir, policyYaml, start, configure, maintenance, null);
  }

  /**
   * @param catalogImpl when not null, the service reaches the same SQLite catalog through this
   *     custom {@code Catalog} class (type {@code custom}); the test's own {@link #catalog} stays a
   *     plain JDBC catalog
   */
  ServiceHarness(
      Path dir,
      String policyYaml,
      Instant start,
      java.util.function.Consumer<OptimizingConfiguration> configure,
      Map<String, String> maintenance,
      String catalogImpl) {
    this(dir, policyYaml, start, configure, maintenance, catalogImpl, Map.of(), true, null);
  }

  /**
   * @param catalogProperties further properties of the service's catalog
   * @param shareCredentials whether registering workers are told the catalog's credentials
   * @param ownStore the service's state store (closed with the harness); null: an in-memory H2 one
   */
  ServiceHarness(
      Path dir,
      String policyYaml,
      Instant start,
      java.util.function.Consumer<OptimizingConfiguration> configure,
      Map<String, String> maintenance,
      String catalogImpl,
      Map<String, String> catalogProperties,
      boolean shareCredentials,
      StateStore ownStore) {
    this.clock = new MutableClock(start);
    String uri = "jdbc:sqlite:" + dir.resolve("catalog.db");
    String warehouse = dir.resolve("warehouse").toString();
    this.catalog =
        (JdbcCatalog)
            CatalogUtil.buildIcebergCatalog(
                "lake",
                Map.of("type", "jdbc", "uri", uri, "warehouse", warehouse),
                new Configuration());
    this.store =
        ownStore != null
            ? ownStore
            : StateStore.open("jdbc:h2:mem:" + UUID.randomUUID(), null, null);
    Map<String, String> properties = new java.util.LinkedHashMap<>(catalogProperties);
    if (catalogImpl != null) {
      properties.put(CatalogSettings.CATALOG_IMPL, catalogImpl);
    }
    this.catalogs =
        new ServerCatalogs(
            List.of(
                new CatalogSettings(
                    "lake", catalogImpl == null ? "jdbc" : "custom", uri, warehouse, properties)),
            shareCredentials);
    PolicyFile parsed = PolicyParser.parse("test-policy.yaml", policyYaml);
    this.policy = new PolicyRegistry.LoadedPolicy(parsed, WindowCalendar.of(parsed), start);
    OptimizingConfiguration config = new OptimizingConfiguration();
    config.setLocalWorkerThreads(0);
    config.setLease(Duration.seconds(30));
    config.setRetryBackoff(Duration.milliseconds(100));
    configure.accept(config);
    this.service =
        new OptimizingService(
            catalogs,
            store,
            config,
            () -> policy,
            clock,
            registry,
            100,
            io.firn.core.maintenance.MaintenanceSettings.DEFAULTS.withOverrides(maintenance));
    service.start();
  }

  GeneratedTable generate(String name, CdcTableSpec spec) {
    return CdcTableGenerator.generate(catalog, TableIdentifier.of("db", name), spec);
  }

  /** Evaluates a table with cheap signals and tells the service, as the watcher does. */
  TableRuntime evaluate(String name) {
    Table table = catalog.loadTable(TableIdentifier.of("db", name));
    TableEvaluator.Evaluation evaluation =
        TableEvaluator.evaluate(table, OptimizingPolicy.DEFAULTS);
    TableRuntime runtime =
        new TableRuntime(
            "lake",
            "db",
            name,
            table.currentSnapshot().snapshotId(),
            evaluation.needsPlan(),
            evaluation.reason(),
            clock.instant(),
            evaluation.health(),
            evaluation.totals().dataFiles(),
            evaluation.totals().equalityDeleteFiles(),
            evaluation.totals().positionDeleteFiles(),
            TableSummary.of(table, evaluation.totals()));
    store.save(runtime);
    service.evaluated(runtime, false);
    return runtime;
  }

  /**
   * Evaluates several tables so that they become due in the same scheduling round: the service's
   * background round cannot run between them (without this, it may plan the first alone).
   */
  void evaluateTogether(String... names) {
    service.state.lock.lock();
    try {
      for (String name : names) {
        evaluate(name);
      }
    } finally {
      service.state.lock.unlock();
    }
  }

  TableStateRecord state(String name) {
    return service.table("lake", "db", name).orElseThrow();
  }

  ProcessRecord lastProcess(String name) {
    List<ProcessRecord> processes = store.processes("lake", "db", name, 1);
    return processes.isEmpty() ? null : processes.get(0);
  }

  List<ProcessRecord> processes(String name) {
    return store.processes("lake", "db", name, 1000);
  }

  Table table(String name) {
    return catalog.loadTable(TableIdentifier.of("db", name));
  }

  /** Starts a worker calling the service directly, with the given slots. */
  void startWorker(int slots) {
    startWorker(slots, Map.of());
  }

  /** Starts a worker with its own catalog properties ({@code lake.<property>}). */
  void startWorker(int slots, Map<String, String> localCatalog) {
    worker =
        new Worker(
            service,
            new WorkerSettings(
                "test-worker",
                OptimizingService.ANY_GROUP,
                slots,
                "local",
                "test",
                java.time.Duration.ofMillis(500),
                java.time.Duration.ofSeconds(30)),
            localCatalog);
    worker.start();
  }

  void stopWorker() throws InterruptedException {
    if (worker != null) {
      worker.close();
      worker = null;
    }
  }

  @Override
  public void close() throws Exception {
    stopWorker();
    service.stop();
    catalogs.close();
    store.close();
    catalog.close();
  }
}
