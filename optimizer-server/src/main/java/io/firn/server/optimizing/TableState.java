/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import io.firn.core.plan.OptimizingType;
import io.firn.server.TableSummary;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A table's optimizing state; fields guarded by the service lock. A {@code @Nullable} field is null
 * while the table is not in the state it describes (its comment says which).
 */
final class TableState {
  final String catalog;
  final String namespace;
  final String table;

  /** Null while the table has no snapshot (or before its first evaluation). */
  @Nullable Long snapshotId;

  volatile boolean needsPlan;
  String reason = "not evaluated yet";
  Instant evaluatedAt;
  TableStatus status = TableStatus.IDLE;
  Instant since;
  boolean paused;

  /** Why and until when the table is parked; null unless it is. */
  @Nullable String parkedReason;

  @Nullable Instant parkedUntil;
  int failures;

  /** Null before the table's first process. */
  @Nullable String lastProcessId;

  /** Since when the table needs a plan; null while it does not. */
  volatile @Nullable Instant dueSince;

  /** No new plan before this (after a failure or a cancel); null when nothing holds it back. */
  @Nullable Instant retryAfter;

  /** Why a due table waits (shown as its reason while pending); null when it does not wait. */
  @Nullable String waitingFor;

  /** The type an operator asked for; null when the policy's triggers decide. */
  @Nullable OptimizingType requestedType;

  /** The running process; null when none runs. */
  @Nullable OptimizingProcess process;

  volatile int health = 100;

  /** The optimizer group of a table being planned; null when it is not planning. */
  @Nullable String plannedGroup;

  /** The policy rule that chose the last plan; null for the defaults or before planning. */
  @Nullable String rule;

  /** The table's location, loaded once for orphan cleanup; null until loaded. */
  volatile @Nullable String location;

  /** The maintenance operation running on the table; null when none runs. */
  MaintenanceRunner.@Nullable Operation maintenanceRunning;

  final Map<MaintenanceRunner.Operation, Instant> lastMaintenance =
      new java.util.EnumMap<>(MaintenanceRunner.Operation.class);
  volatile long dataFiles;
  volatile long equalityDeleteFiles;
  volatile long positionDeleteFiles;
  volatile TableSummary summary = TableSummary.EMPTY;
  final List<io.micrometer.core.instrument.Meter> meters = new ArrayList<>();

  TableState(String catalog, String namespace, String table, Instant now) {
    this.catalog = catalog;
    this.namespace = namespace;
    this.table = table;
    this.since = now;
    this.evaluatedAt = now;
  }

  static TableState of(TableStateRecord r) {
    TableState state = new TableState(r.catalog(), r.namespace(), r.table(), r.since());
    state.snapshotId = r.snapshotId();
    state.needsPlan = r.needsPlan();
    state.reason = r.reason();
    state.evaluatedAt = r.evaluatedAt();
    state.status = r.status();
    state.paused = r.paused();
    state.parkedReason = r.parkedReason();
    state.parkedUntil = r.parkedUntil();
    state.failures = r.failures();
    state.lastProcessId = r.lastProcessId();
    state.dueSince = r.needsPlan() ? r.evaluatedAt() : null;
    state.health = r.health();
    state.dataFiles = r.dataFiles();
    state.equalityDeleteFiles = r.equalityDeleteFiles();
    state.positionDeleteFiles = r.positionDeleteFiles();
    state.summary = r.summary();
    return state;
  }

  String qualified() {
    return catalog + "." + namespace + "." + table;
  }

  TableStateRecord record() {
    String shown = waitingFor != null && status == TableStatus.PENDING ? waitingFor : reason;
    return new TableStateRecord(
        catalog,
        namespace,
        table,
        snapshotId,
        needsPlan,
        shown,
        evaluatedAt,
        status,
        since,
        paused,
        parkedReason,
        parkedUntil,
        failures,
        lastProcessId,
        health,
        dataFiles,
        equalityDeleteFiles,
        positionDeleteFiles,
        summary);
  }

  /** Seconds this table has been due (0 when not due): the optimizing lag. */
  double lagSeconds(Instant now) {
    Instant due = dueSince;
    return needsPlan && due != null ? Math.max(0, Duration.between(due, now).toMillis() / 1e3) : 0;
  }
}
