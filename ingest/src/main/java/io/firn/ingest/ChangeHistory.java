/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A rule's change-history table (ADR 0008 §16): next to the upsert table, an append table that gets
 * every change event as a row — the row image ({@code after}, or {@code before} for a delete) with
 * the operation in {@value #OP} ({@code c}, {@code r}, {@code u}, {@code d}; plain JSON events are
 * {@code u}) and, for change events, the source's commit time in {@value #SOURCE_TS} (epoch
 * milliseconds, Debezium's {@code source.ts_ms}). Written in the same checkpoint as the upsert; an
 * event whose history row is refused is refused whole.
 */
final class ChangeHistory {
  /** The history row's operation column. */
  static final String OP = "__op";

  /** The history row's source time column. */
  static final String SOURCE_TS = "__source_ts_ms";

  private final IngestSettings settings;
  private final TableRows rows;

  /** Per routed table, its history table's name, or "" when it keeps none. */
  private final Map<String, String> historyNames = new HashMap<>();

  ChangeHistory(IngestSettings settings, TableRows rows) {
    this.settings = settings;
    this.rows = rows;
  }

  /**
   * {@code routings} of one event, with the history row appended when their table keeps a change
   * history; unchanged when they are empty or refused.
   *
   * @param image the event's row image (after, or before for a delete)
   * @param sourceTs the source's commit time in epoch milliseconds, or a missing node
   */
  List<Routing> with(
      List<Routing> routings,
      String op,
      JsonNode image,
      Map<String, DeclaredColumn> declared,
      @Nullable JsonNode sourceTs) {
    Routing.Routed routed = null;
    for (Routing routing : routings) {
      if (routing instanceof Routing.Rejected) {
        return routings;
      }
      routed = (Routing.Routed) routing;
    }
    if (routed == null || !(image instanceof ObjectNode object)) {
      return routings;
    }
    String table = routed.table().name();
    String history =
        historyNames.computeIfAbsent(
            table,
            name -> {
              String historyName = settings.table(name).historyTable(name);
              return historyName == null ? "" : historyName;
            });
    if (history.isEmpty()) {
      return routings;
    }
    ObjectNode row = object.deepCopy();
    row.put(OP, op);
    if (sourceTs != null && sourceTs.canConvertToLong()) {
      row.put(SOURCE_TS, sourceTs.longValue());
    }
    Routing.Rejected badName = rows.checkTableName(history, "change-history of " + routed.table());
    if (badName != null) {
      return List.of(badName);
    }
    Routing written = rows.upsert(history, row, declared);
    if (written instanceof Routing.Rejected) {
      return List.of(written);
    }
    List<Routing> all = new ArrayList<>(routings.size() + 1);
    all.addAll(routings);
    all.add(written);
    return all;
  }
}
