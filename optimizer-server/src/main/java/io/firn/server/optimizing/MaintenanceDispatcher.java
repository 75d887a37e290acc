/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import io.firn.core.maintenance.DanglingDeleteReport;
import io.firn.core.maintenance.ManifestRewriteReport;
import io.firn.core.maintenance.OrphanCleanupReport;
import io.firn.core.maintenance.SnapshotExpiryReport;
import io.firn.server.ServerCatalogs;
import io.firn.server.policy.PolicyRegistry;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Picks the next idle table with a maintenance operation due (snapshot expiry, orphan cleanup,
 * dangling deletes; ADR 0010) and runs it on the maintenance thread, one at a time. A table never
 * runs maintenance while a process plans or runs on it.
 */
final class MaintenanceDispatcher {
  private static final Logger LOG = LoggerFactory.getLogger(MaintenanceDispatcher.class);

  private final OptimizingState state;
  private final MaintenanceRunner runner;
  private final ServerCatalogs catalogs;

  MaintenanceDispatcher(OptimizingState state, MaintenanceRunner runner, ServerCatalogs catalogs) {
    this.state = state;
    this.runner = runner;
    this.catalogs = catalogs;
  }

  /** A table marked as running a maintenance operation. */
  record Due(TableState table, MaintenanceRunner.Operation operation) {}

  /**
   * The first idle table with a maintenance operation due, marked as running it; null when none or
   * one runs already. Under the lock.
   *
   * @param planned tables chosen for planning this round
   */
  @Nullable Due next(PolicyRegistry.LoadedPolicy loaded, Instant now, Set<TableState> planned) {
    if (state.maintenanceRunning > 0) {
      return null;
    }
    for (TableState table : state.tables.values()) {
      if (table.paused
          || table.process != null
          || table.maintenanceRunning != null
          || planned.contains(table)
          || (table.status != TableStatus.IDLE && table.status != TableStatus.PENDING)) {
        continue;
      }
      MaintenanceRunner.Operation operation =
          runner.due(
              loaded.policy().resolve(table.qualified()),
              loaded.calendar(),
              now,
              table.lastMaintenance);
      if (operation != null) {
        table.maintenanceRunning = operation;
        state.maintenanceRunning++;
        return new Due(table, operation);
      }
    }
    return null;
  }

  /**
   * Runs the table's due maintenance operation (not under the lock) and records it; runs that
   * changed nothing are not recorded in the process history (they would flood it).
   */
  void run(Due due) {
    TableState table = due.table();
    MaintenanceRunner.Operation operation = due.operation();
    List<TableState> sameCatalog;
    state.lock.lock();
    try {
      sameCatalog =
          state.tables.values().stream()
              .filter(t -> t != table && t.catalog.equals(table.catalog))
              .toList();
    } finally {
      state.lock.unlock();
    }
    Instant started = state.clock.instant();
    // One id for the history row and the snapshot summary of a commit the run makes.
    String processId = "m-" + UUID.randomUUID();
    Map<String, String> others = new HashMap<>();
    if (operation == MaintenanceRunner.Operation.ORPHAN_FILES) {
      for (TableState other : sameCatalog) {
        String location = location(other);
        if (location != null) {
          others.put(other.qualified(), location);
        }
      }
    }
    MaintenanceRunner.Outcome outcome =
        state.mayCommit.getAsBoolean()
            ? runner.run(
                operation, table.catalog, table.namespace, table.table, others, started, processId)
            : new MaintenanceRunner.Outcome(ProcessStatus.FAILED, OptimizingState.NOT_LEADER, null);
    state.lock.lock();
    try {
      state.maintenanceRunning--;
      table.maintenanceRunning = null;
      table.lastMaintenance.put(operation, started);
      if (outcome.status() == ProcessStatus.FAILED || changedSomething(outcome.report())) {
        state.store.saveProcess(
            new ProcessRecord(
                processId,
                table.catalog,
                table.namespace,
                table.table,
                operation.label,
                "auto",
                outcome.status(),
                table.snapshotId == null ? -1 : table.snapshotId,
                0,
                0,
                0,
                started,
                state.clock.instant(),
                outcome.message(),
                0,
                0,
                0,
                0,
                0));
      }
    } finally {
      state.lock.unlock();
    }
  }

  private static boolean changedSomething(@Nullable Object report) {
    if (report instanceof SnapshotExpiryReport expiry) {
      return expiry.expiredCount() > 0;
    }
    if (report instanceof OrphanCleanupReport orphans) {
      return orphans.orphanCount() > 0 || !orphans.warnings().isEmpty();
    }
    if (report instanceof DanglingDeleteReport dangling) {
      return dangling.removedCount() > 0
          || dangling.result() == DanglingDeleteReport.Result.CONFLICT;
    }
    if (report instanceof ManifestRewriteReport manifests) {
      return manifests.result() != ManifestRewriteReport.Result.NOTHING_TO_DO;
    }
    return false;
  }

  /** A table's location, loaded once and cached; null when it cannot be loaded. */
  private @Nullable String location(TableState table) {
    String cached = table.location;
    if (cached != null) {
      return cached;
    }
    try {
      String loaded = catalogs.load(table.catalog, table.namespace, table.table).location();
      table.location = loaded;
      return loaded;
    } catch (RuntimeException e) {
      LOG.debug("cannot load {} for its location", table.qualified(), e);
      return null;
    }
  }
}
