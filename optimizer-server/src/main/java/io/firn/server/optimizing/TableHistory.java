/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import io.firn.server.TableRuntime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The recent evaluations of each table, in memory only (the state store keeps only the latest):
 * what the console's charts of file counts, delete files and health draw. Bounded twice: at most
 * {@link #POINTS} points per table (an evaluation less than {@link #SPACING} after the previous one
 * replaces it, so the points span at least {@code POINTS × SPACING}), and points for at most {@code
 * maxTables} tables, the first ones seen (the others have none). Lost on restart (ADR 0028).
 * Guarded by the service lock.
 */
public final class TableHistory {
  /** Points kept per table. */
  static final int POINTS = 180;

  /** An evaluation closer than this to the previous point replaces it. */
  static final Duration SPACING = Duration.ofSeconds(5);

  /**
   * One evaluation.
   *
   * @param at when it was evaluated
   * @param snapshotId the snapshot evaluated; null for a table without snapshots
   */
  public record Point(
      Instant at,
      @Nullable Long snapshotId,
      int health,
      long dataFiles,
      long equalityDeleteFiles,
      long positionDeleteFiles,
      long totalBytes,
      long records) {}

  private final int maxTables;
  private final Map<String, Deque<Point>> tables = new HashMap<>();

  TableHistory(int maxTables) {
    this.maxTables = maxTables;
  }

  void record(TableRuntime runtime) {
    Deque<Point> points = tables.get(runtime.qualifiedName());
    if (points == null) {
      if (tables.size() >= maxTables) {
        return;
      }
      points = new ArrayDeque<>();
      tables.put(runtime.qualifiedName(), points);
    }
    Point point =
        new Point(
            runtime.evaluatedAt(),
            runtime.snapshotId(),
            runtime.health(),
            runtime.dataFiles(),
            runtime.equalityDeleteFiles(),
            runtime.positionDeleteFiles(),
            runtime.summary().totalBytes(),
            runtime.summary().records());
    // The newest point slides forward until it is SPACING after the one before it; then it stays.
    Point last = points.pollLast();
    if (last != null) {
      Point before = points.peekLast();
      if (before == null || Duration.between(before.at(), last.at()).compareTo(SPACING) >= 0) {
        points.addLast(last);
      }
    }
    points.addLast(point);
    while (points.size() > POINTS) {
      points.pollFirst();
    }
  }

  /**
   * The table's points, oldest first (none before its first evaluation since the start); null when
   * no history is kept for it (the {@code maxTables} are taken by others).
   */
  @Nullable List<Point> of(String qualified) {
    Deque<Point> points = tables.get(qualified);
    if (points == null) {
      return tables.size() < maxTables ? List.of() : null;
    }
    return List.copyOf(points);
  }

  void forget(String qualified) {
    tables.remove(qualified);
  }
}
