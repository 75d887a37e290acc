/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import io.firn.server.OptimizingConfiguration;
import io.firn.server.policy.PolicyRegistry;
import io.firn.server.store.StateStore;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The state the parts of the optimizing service share, and the one lock that guards it: the tables
 * and their state machine, the running processes, the task queue and the workers. Each part changes
 * it only under {@link #lock} and never does I/O to tables while holding it (state-store writes are
 * short and keep the in-memory state authoritative when they fail).
 */
final class OptimizingState {
  private static final Logger LOG = LoggerFactory.getLogger(OptimizingState.class);

  final ReentrantLock lock = new ReentrantLock();

  /** Signalled when a task may have become available to a polling worker. */
  final Condition taskReady = lock.newCondition();

  final Map<String, TableState> tables = new LinkedHashMap<>();
  final Map<String, OptimizingProcess> processes = new LinkedHashMap<>();
  final TaskQueue queue = new TaskQueue();
  final WorkerRegistry workers = new WorkerRegistry();

  /** Tables being planned now (each holds a process slot). */
  int planning;

  /** Maintenance operations running now. */
  int maintenanceRunning;

  /**
   * Whether this server may commit to tables now; with several replicas, only while it holds the
   * leader lease (ADR 0021). Checked before every Iceberg commit.
   */
  volatile java.util.function.BooleanSupplier mayCommit = () -> true;

  /** Why a commit is not made when {@link #mayCommit} says no. */
  static final String NOT_LEADER =
      "not committed: this replica no longer holds the leader lease (another replica leads)";

  final StateStore store;
  final OptimizingConfiguration config;
  final Supplier<PolicyRegistry.LoadedPolicy> policies;
  final Clock clock;

  OptimizingState(
      StateStore store,
      OptimizingConfiguration config,
      Supplier<PolicyRegistry.LoadedPolicy> policies,
      Clock clock) {
    this.store = store;
    this.config = config;
    this.policies = policies;
    this.clock = clock;
  }

  /** Moves a table in the state machine ({@link TableStatus#next()}). Under the lock. */
  void move(TableState table, TableStatus status) {
    table.status.checkMove(status, table.qualified());
    if (table.status != status) {
      table.status = status;
      table.since = clock.instant();
    }
  }

  /** Parks a table after repeated failures: tried again after {@code parkFor}. Under the lock. */
  void park(TableState table, String reason) {
    table.parkedReason = reason;
    table.parkedUntil = clock.instant().plus(config.getParkFor().toJavaDuration());
    move(table, TableStatus.PARKED);
    LOG.warn(
        "{}: parked until {} after {} failure(s): {}",
        table.qualified(),
        table.parkedUntil,
        table.failures,
        reason);
  }

  /** Writes a table's state; a failed write is logged, the in-memory state stays authoritative. */
  void save(TableState table) {
    try {
      store.saveTableState(table.record());
    } catch (RuntimeException e) {
      LOG.error("cannot persist the state of {}: {}", table.qualified(), e.getMessage());
    }
  }
}
