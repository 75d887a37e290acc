/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.api;

import io.firn.server.TableWatcher;
import io.firn.server.optimizing.OptimizingService;
import io.firn.server.optimizing.ProcessRecord;
import io.firn.server.optimizing.ProcessStatus;
import io.firn.server.optimizing.TableStateRecord;
import io.firn.server.optimizing.TableStatus;
import io.firn.server.policy.PolicyRegistry;
import io.firn.server.store.StateStore;
import io.firn.server.store.StateStoreException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * {@code /api/v1/overview}: what the console's overview shows in one answer (tables by state and
 * health, running processes, queue, groups and workers, windows, catalogs and alerts), and {@code
 * /api/v1/overview/tables}: per table what the table list adds to {@code GET /api/v1/tables} (the
 * rule that applies, its group, how long it has been due, when it was last optimized).
 */
@Path("/api/v1/overview")
@Produces(MediaType.APPLICATION_JSON)
public class OverviewResource {
  /** Health below this is critical (as the scheduler's max-delay and the Grafana panels). */
  static final int CRITICAL = OptimizingService.CRITICAL_HEALTH;

  /** Health from here on is good; between {@link #CRITICAL} and this: worth a look. */
  static final int GOOD = 70;

  /** Processes looked at for failures and last optimizing times. */
  private static final int RECENT_PROCESSES = 1000;

  /** Failed processes younger than this are alerts. */
  private static final Duration FAILURE_ALERT_AGE = Duration.ofHours(1);

  /** Alerts of one kind shown at most (the count says how many there are). */
  private static final int ALERTS_PER_KIND = 10;

  /**
   * Something an operator should look at.
   *
   * @param severity {@code critical}, {@code warning} or {@code info}
   * @param kind {@code integrity}, {@code catalog}, {@code state-store}, {@code policy}, {@code
   *     parked}, {@code failed-process} or {@code no-tables}
   * @param subject the table, catalog, process or file concerned; null for the server
   */
  public record Alert(
      String severity, String kind, @Nullable String subject, String message, Instant at) {}

  /** The overview. */
  public record Overview(
      Instant now,
      int tableCount,
      Map<String, Integer> byStatus,
      Map<String, Integer> byHealth,
      int paused,
      int due,
      List<ProcessRecord> running,
      int pendingTasks,
      int leasedTasks,
      List<OptimizingService.GroupLoad> groups,
      int workers,
      int workerSlots,
      String policy,
      List<PoliciesResource.WindowView> windows,
      List<TableWatcher.CatalogStatus> catalogs,
      List<Alert> alerts) {}

  /** What the table list adds per table. */
  public record TableLine(
      String table,
      String rule,
      String group,
      double lagSeconds,
      @Nullable Instant lastOptimizedAt,
      @Nullable String lastOptimizingType) {}

  private final OptimizingService service;
  private final TableWatcher watcher;
  private final StateStore store;
  private final PoliciesResource policies;
  private final @Nullable PolicyRegistry registry;
  private final MeterRegistry meters;
  private final Clock clock;

  public OverviewResource(
      OptimizingService service,
      TableWatcher watcher,
      StateStore store,
      PoliciesResource policies,
      @Nullable PolicyRegistry registry,
      MeterRegistry meters,
      Clock clock) {
    this.service = service;
    this.watcher = watcher;
    this.store = store;
    this.policies = policies;
    this.registry = registry;
    this.meters = meters;
    this.clock = clock;
  }

  @GET
  public Overview overview() {
    Instant now = clock.instant();
    List<TableStateRecord> tables = service.tables();
    Map<String, Integer> byStatus = new LinkedHashMap<>();
    for (TableStatus status : TableStatus.values()) {
      byStatus.put(status.label(), 0);
    }
    Map<String, Integer> byHealth = new LinkedHashMap<>();
    byHealth.put("critical", 0);
    byHealth.put("poor", 0);
    byHealth.put("good", 0);
    int paused = 0;
    int due = 0;
    List<Alert> alerts = new ArrayList<>();
    int parked = 0;
    for (TableStateRecord t : tables) {
      byStatus.merge(t.status().label(), 1, Integer::sum);
      byHealth.merge(health(t.health()), 1, Integer::sum);
      paused += t.paused() ? 1 : 0;
      due += t.needsPlan() ? 1 : 0;
      if (t.status() == TableStatus.PARKED && parked++ < ALERTS_PER_KIND) {
        alerts.add(
            new Alert(
                "warning",
                "parked",
                name(t),
                "parked after "
                    + t.failures()
                    + " failure(s) until "
                    + t.parkedUntil()
                    + ": "
                    + t.parkedReason(),
                t.since()));
      }
    }
    Counter integrity = meters.find("firn.integrity.check.failures").counter();
    if (integrity != null && integrity.count() > 0) {
      alerts.add(
          0,
          new Alert(
              "critical",
              "integrity",
              null,
              (long) integrity.count()
                  + " integrity check(s) failed around a commit since the server started; the"
                  + " server log names table and snapshot (firn_integrity_check_failures_total)",
              now));
    }
    List<TableWatcher.CatalogStatus> catalogs = watcher.catalogs();
    for (TableWatcher.CatalogStatus catalog : catalogs) {
      if (catalog.error() != null) {
        alerts.add(
            new Alert(
                "critical",
                "catalog",
                catalog.name(),
                "the tables of catalog '"
                    + catalog.name()
                    + "' ("
                    + catalog.type()
                    + ") cannot be listed: "
                    + catalog.error(),
                Objects.requireNonNullElse(catalog.listedAt(), now)));
      }
    }
    StateStore.Status storeStatus = store.status();
    if (!storeStatus.inSync()) {
      alerts.add(
          new Alert(
              "critical",
              "state-store",
              null,
              "the state store does not answer writes ("
                  + storeStatus.pendingRows()
                  + " row(s) kept in memory): "
                  + storeStatus.lastError(),
              Objects.requireNonNullElse(storeStatus.failingSince(), now)));
    }
    if (registry != null && registry.lastReload() != null && !registry.lastReload().ok()) {
      PolicyRegistry.ReloadStatus reload = registry.lastReload();
      alerts.add(
          new Alert(
              "warning",
              "policy",
              registry.path().toString(),
              "the policy file was rejected; the previous policy stays in force: " + reload.error(),
              reload.at()));
    }
    List<ProcessRecord> running = new ArrayList<>();
    List<ProcessRecord> recent = recentProcesses();
    int failed = 0;
    for (ProcessRecord p : recent) {
      if (p.status() == ProcessStatus.RUNNING) {
        running.add(p);
      } else if (p.status() == ProcessStatus.FAILED
          && p.finishedAt() != null
          && p.finishedAt().isAfter(now.minus(FAILURE_ALERT_AGE))
          && failed++ < ALERTS_PER_KIND) {
        alerts.add(
            new Alert(
                "warning",
                "failed-process",
                p.catalog() + "." + p.namespace() + "." + p.table(),
                p.type() + " process " + p.processId() + " failed: " + p.message(),
                p.finishedAt()));
      }
    }
    if (tables.isEmpty()) {
      alerts.add(new Alert("info", "no-tables", null, TableWatcher.noTablesHint(catalogs), now));
    }
    OptimizingService.Load load = service.load();
    PoliciesResource.PolicyView policy = policies.policy();
    int workers = 0;
    int slots = 0;
    for (OptimizingService.GroupLoad group : load.groups()) {
      workers += group.workers();
      slots += group.slots();
    }
    return new Overview(
        now,
        tables.size(),
        byStatus,
        byHealth,
        paused,
        due,
        running,
        load.pendingTasks(),
        load.leasedTasks(),
        load.groups(),
        workers,
        slots,
        policy.name(),
        policy.windows(),
        catalogs,
        alerts);
  }

  @GET
  @Path("tables")
  public List<TableLine> tables() {
    Map<String, ProcessRecord> lastOptimized = new HashMap<>();
    for (ProcessRecord p : recentProcesses()) {
      boolean optimizing =
          p.type().equals("minor") || p.type().equals("major") || p.type().equals("full");
      if (optimizing && p.committedGroups() > 0 && p.finishedAt() != null) {
        lastOptimized.putIfAbsent(p.catalog() + "." + p.namespace() + "." + p.table(), p);
      }
    }
    List<TableLine> lines = new ArrayList<>();
    for (OptimizingService.TableLoad t : service.load().tables()) {
      ProcessRecord last = lastOptimized.get(t.table());
      lines.add(
          new TableLine(
              t.table(),
              t.rule(),
              t.group(),
              t.lagSeconds(),
              last == null ? null : last.finishedAt(),
              last == null ? null : last.type()));
    }
    return lines;
  }

  /** The newest processes, newest first; none while the state store does not answer. */
  private List<ProcessRecord> recentProcesses() {
    try {
      return store.processes(null, null, null, RECENT_PROCESSES);
    } catch (StateStoreException e) {
      return List.of();
    }
  }

  private static String health(int health) {
    return health < CRITICAL ? "critical" : health < GOOD ? "poor" : "good";
  }

  private static String name(TableStateRecord t) {
    return t.catalog() + "." + t.namespace() + "." + t.table();
  }
}
