/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import io.firn.server.TableSummary;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * The optimizing state of one table, as stored (next to the watcher's evaluation).
 *
 * @param status idle, pending, planning, optimizing, committing or parked
 * @param since when the table entered that status
 * @param paused paused by an operator: never planned until resumed
 * @param parkedReason why it is parked; null when not
 * @param parkedUntil when a parked table is tried again; null when not parked
 * @param failures consecutive processes that failed
 * @param lastProcessId the last process, null before the first
 * @param health 0–100 from the last evaluation (100: nothing to optimize)
 * @param dataFiles live data files at the last evaluation
 * @param equalityDeleteFiles live equality-delete files at the last evaluation
 * @param positionDeleteFiles live position-delete files at the last evaluation
 * @param summary bytes, records, snapshots and manifests at the last evaluation
 */
public record TableStateRecord(
    String catalog,
    String namespace,
    String table,
    @Nullable Long snapshotId,
    boolean needsPlan,
    String reason,
    Instant evaluatedAt,
    TableStatus status,
    Instant since,
    boolean paused,
    @Nullable String parkedReason,
    @Nullable Instant parkedUntil,
    int failures,
    @Nullable String lastProcessId,
    int health,
    long dataFiles,
    long equalityDeleteFiles,
    long positionDeleteFiles,
    TableSummary summary) {}
