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

/** A table's optimizing state; fields guarded by the service lock. */
final class TableState {
  final String catalog;
  final String namespace;
  final String table;
  Long snapshotId;
  volatile boolean needsPlan;
  String reason = "not evaluated yet";
  Instant evaluatedAt;
  TableStatus status = TableStatus.IDLE;
  Instant since;
  boolean paused;
  String parkedReason;
  Instant parkedUntil;
  int failures;
  String lastProcessId;
  volatile Instant dueSince;
  Instant retryAfter;
  String waitingFor;
  OptimizingType requestedType;
  OptimizingProcess process;
  volatile int health = 100;
  String plannedGroup;
  String rule;
  volatile String location;
  MaintenanceRunner.Operation maintenanceRunning;
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
