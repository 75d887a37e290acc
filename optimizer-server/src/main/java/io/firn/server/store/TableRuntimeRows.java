/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.store;

import static io.firn.server.store.Jdbc.instant;
import static io.firn.server.store.Jdbc.longOrNull;
import static io.firn.server.store.Jdbc.setInstant;
import static io.firn.server.store.Jdbc.setLong;
import static io.firn.server.store.Jdbc.truncate;

import io.firn.server.TableRuntime;
import io.firn.server.TableSummary;
import io.firn.server.optimizing.TableStateRecord;
import io.firn.server.optimizing.TableStatus;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The table {@code table_runtime}, one row per known table: the watcher's columns (snapshot,
 * evaluation, health, file counts) and the optimizing columns (state, pause, parking, failures,
 * last process). {@link Write} is the one writer of its rows; the reads are for start-up.
 */
final class TableRuntimeRows {
  static final String TABLE = "table_runtime";

  /** What the watcher writes and reads, in this order. */
  private static final String RUNTIME_COLUMNS =
      "catalog_name, namespace_name, table_name, snapshot_id, needs_plan, reason, evaluated_at_ms,"
          + " health, data_files, equality_delete_files, position_delete_files, total_bytes,"
          + " data_bytes, record_count, snapshot_count, manifest_count";

  /** What the optimizing side writes, after {@link #RUNTIME_COLUMNS} when read. */
  private static final String STATE_COLUMNS =
      "state, state_since_ms, paused, parked_reason, parked_until_ms, failures, last_process_id";

  private TableRuntimeRows() {}

  /**
   * A row's latest write: the watcher's columns ({@code runtime}) and the optimizing columns
   * ({@code state}) are written by different callers, and both write {@code needs_plan} and {@code
   * reason}; {@code runtimeLast} says which came last. {@code deleteFirst}: the row was removed
   * before them (a kept delete, and maybe the table again).
   */
  record Write(
      String key,
      String catalog,
      String namespace,
      String table,
      boolean deleteFirst,
      @Nullable TableRuntime runtime,
      @Nullable TableStateRecord state,
      boolean runtimeLast)
      implements RowWrite {
    static Write runtime(TableRuntime r) {
      return new Write(
          key(r.catalog(), r.namespace(), r.table()),
          r.catalog(),
          r.namespace(),
          r.table(),
          false,
          r,
          null,
          true);
    }

    static Write state(TableStateRecord s) {
      return new Write(
          key(s.catalog(), s.namespace(), s.table()),
          s.catalog(),
          s.namespace(),
          s.table(),
          false,
          null,
          s,
          false);
    }

    static Write delete(String catalog, String namespace, String table) {
      return new Write(
          key(catalog, namespace, table), catalog, namespace, table, true, null, null, false);
    }

    private static String key(String catalog, String namespace, String table) {
      return RowWrite.key("table", catalog, namespace, table);
    }

    @Override
    public RowWrite after(RowWrite older) {
      if (deleteFirst || !(older instanceof Write o)) {
        return this;
      }
      return new Write(
          key,
          catalog,
          namespace,
          table,
          o.deleteFirst,
          runtime != null ? runtime : o.runtime,
          state != null ? state : o.state,
          runtime != null);
    }

    @Override
    public void write(Connection c) throws SQLException {
      if (deleteFirst) {
        deleteRow(c, catalog, namespace, table);
      }
      if (runtime != null) {
        upsertRuntime(c, runtime);
      }
      if (state != null) {
        updateState(c, state);
        if (runtime != null && runtimeLast) {
          upsertRuntime(c, runtime);
        }
      }
    }
  }

  /** The row of one table; its three parameters are bound by {@link #bindKey}. */
  private static final String WHERE_KEY =
      " WHERE catalog_name = ? AND namespace_name = ? AND table_name = ?";

  private static void bindKey(
      PreparedStatement s, int first, String catalog, String namespace, String table)
      throws SQLException {
    s.setString(first, catalog);
    s.setString(first + 1, namespace);
    s.setString(first + 2, table);
  }

  /** Binds the watcher's columns after the key, in the order of {@link #RUNTIME_COLUMNS}. */
  private static void bindRuntime(PreparedStatement s, int first, TableRuntime runtime)
      throws SQLException {
    int i = first;
    setLong(s, i++, runtime.snapshotId());
    s.setBoolean(i++, runtime.needsPlan());
    s.setString(i++, truncate(runtime.reason()));
    s.setLong(i++, runtime.evaluatedAt().toEpochMilli());
    s.setInt(i++, runtime.health());
    s.setLong(i++, runtime.dataFiles());
    s.setLong(i++, runtime.equalityDeleteFiles());
    s.setLong(i++, runtime.positionDeleteFiles());
    TableSummary summary = runtime.summary();
    s.setLong(i++, summary.totalBytes());
    s.setLong(i++, summary.dataBytes());
    s.setLong(i++, summary.records());
    s.setInt(i++, summary.snapshots());
    s.setInt(i, summary.manifests());
  }

  private static void deleteRow(Connection c, String catalog, String namespace, String table)
      throws SQLException {
    try (PreparedStatement delete = c.prepareStatement("DELETE FROM table_runtime" + WHERE_KEY)) {
      bindKey(delete, 1, catalog, namespace, table);
      delete.executeUpdate();
    }
  }

  /** Updates the watcher's columns, or inserts the row (the optimizing columns by default). */
  private static void upsertRuntime(Connection c, TableRuntime runtime) throws SQLException {
    try (PreparedStatement update =
        c.prepareStatement(
            "UPDATE table_runtime SET snapshot_id = ?, needs_plan = ?, reason = ?,"
                + " evaluated_at_ms = ?, health = ?, data_files = ?, equality_delete_files = ?,"
                + " position_delete_files = ?, total_bytes = ?, data_bytes = ?, record_count = ?,"
                + " snapshot_count = ?, manifest_count = ?"
                + WHERE_KEY)) {
      bindRuntime(update, 1, runtime);
      bindKey(update, 14, runtime.catalog(), runtime.namespace(), runtime.table());
      if (update.executeUpdate() > 0) {
        return;
      }
    }
    try (PreparedStatement insert =
        c.prepareStatement(
            "INSERT INTO table_runtime ("
                + RUNTIME_COLUMNS
                + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
      bindKey(insert, 1, runtime.catalog(), runtime.namespace(), runtime.table());
      bindRuntime(insert, 4, runtime);
      insert.executeUpdate();
    }
  }

  /** Updates the optimizing columns of a row the watcher created (none: nothing to update). */
  private static void updateState(Connection c, TableStateRecord state) throws SQLException {
    try (PreparedStatement update =
        c.prepareStatement(
            "UPDATE table_runtime SET needs_plan = ?, reason = ?, state = ?, state_since_ms = ?,"
                + " paused = ?, parked_reason = ?, parked_until_ms = ?, failures = ?,"
                + " last_process_id = ?"
                + WHERE_KEY)) {
      update.setBoolean(1, state.needsPlan());
      update.setString(2, truncate(state.reason()));
      update.setString(3, Jdbc.label(state.status()));
      update.setLong(4, state.since().toEpochMilli());
      update.setBoolean(5, state.paused());
      update.setString(6, state.parkedReason() == null ? null : truncate(state.parkedReason()));
      setInstant(update, 7, state.parkedUntil());
      update.setInt(8, state.failures());
      update.setString(9, state.lastProcessId());
      bindKey(update, 10, state.catalog(), state.namespace(), state.table());
      update.executeUpdate();
    }
  }

  /** Every table's watcher columns, by catalog, namespace and table. */
  static List<TableRuntime> runtimes(Connection c) throws SQLException {
    List<TableRuntime> all = new ArrayList<>();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(select(RUNTIME_COLUMNS))) {
      while (rs.next()) {
        all.add(runtime(rs));
      }
    }
    return all;
  }

  /**
   * Every table's optimizing state, by catalog, namespace and table.
   *
   * @throws UnknownStoredValueException for a state this version does not know
   */
  static List<TableStateRecord> states(Connection c) throws SQLException {
    List<TableStateRecord> all = new ArrayList<>();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(select(RUNTIME_COLUMNS + ", " + STATE_COLUMNS))) {
      while (rs.next()) {
        TableRuntime r = runtime(rs);
        all.add(
            new TableStateRecord(
                r.catalog(),
                r.namespace(),
                r.table(),
                r.snapshotId(),
                r.needsPlan(),
                r.reason(),
                r.evaluatedAt(),
                Jdbc.status(TableStatus.class, rs.getString(17), TABLE, r.qualifiedName(), "state"),
                Instant.ofEpochMilli(rs.getLong(18)),
                rs.getBoolean(19),
                rs.getString(20),
                instant(rs, 21),
                rs.getInt(22),
                rs.getString(23),
                r.health(),
                r.dataFiles(),
                r.equalityDeleteFiles(),
                r.positionDeleteFiles(),
                r.summary()));
      }
    }
    return all;
  }

  private static String select(String columns) {
    return "SELECT "
        + columns
        + " FROM table_runtime ORDER BY catalog_name, namespace_name, table_name";
  }

  /** The watcher's columns of the current row, read as {@link #RUNTIME_COLUMNS}. */
  private static TableRuntime runtime(ResultSet rs) throws SQLException {
    return new TableRuntime(
        rs.getString(1),
        rs.getString(2),
        rs.getString(3),
        longOrNull(rs, 4),
        rs.getBoolean(5),
        rs.getString(6),
        Instant.ofEpochMilli(rs.getLong(7)),
        rs.getInt(8),
        rs.getLong(9),
        rs.getLong(10),
        rs.getLong(11),
        TableSummary.of(
            rs.getLong(12),
            rs.getLong(13),
            rs.getLong(9),
            rs.getLong(14),
            rs.getInt(15),
            rs.getInt(16)));
  }
}
