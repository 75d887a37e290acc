/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.store;

import static io.firn.server.store.Jdbc.instant;
import static io.firn.server.store.Jdbc.label;
import static io.firn.server.store.Jdbc.setInstant;
import static io.firn.server.store.Jdbc.truncate;

import io.firn.server.optimizing.ProcessRecord;
import io.firn.server.optimizing.ProcessStatus;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The table {@code optimizing_process}: one row per optimizing process or maintenance run, the
 * history the API shows. {@link Write} is the one writer of its rows.
 */
final class ProcessRows {
  static final String TABLE = "optimizing_process";

  private static final String SELECT =
      "SELECT process_id, catalog_name, namespace_name, table_name, optimizing_type, trigger_kind,"
          + " status, snapshot_id, partition_count, task_count, rewrite_bytes, created_at_ms,"
          + " finished_at_ms, message, committed_groups, failed_groups, rows_written, bytes_read,"
          + " bytes_written FROM optimizing_process";

  /** Newest first, as the history is shown. */
  private static final Comparator<ProcessRecord> NEWEST_FIRST =
      Comparator.comparing(ProcessRecord::createdAt)
          .reversed()
          .thenComparing(ProcessRecord::processId);

  private ProcessRows() {}

  /**
   * Which processes a read wants: one table's, or every table's when all three are null.
   *
   * @param catalog with namespace and table
   */
  record Filter(@Nullable String catalog, @Nullable String namespace, @Nullable String table) {
    boolean all() {
      return catalog == null;
    }

    boolean matches(ProcessRecord p) {
      return all()
          || (p.catalog().equals(catalog)
              && p.namespace().equals(namespace)
              && p.table().equals(table));
    }
  }

  /** A process row's latest state; replaces the row. */
  record Write(ProcessRecord record) implements RowWrite {
    @Override
    public String key() {
      return RowWrite.key("process", record.processId());
    }

    @Override
    public void write(Connection c) throws SQLException {
      try (PreparedStatement delete =
              c.prepareStatement("DELETE FROM optimizing_process WHERE process_id = ?");
          PreparedStatement insert =
              c.prepareStatement(
                  "INSERT INTO optimizing_process (process_id, catalog_name, namespace_name,"
                      + " table_name, optimizing_type, trigger_kind, status, snapshot_id,"
                      + " partition_count, task_count, rewrite_bytes, created_at_ms,"
                      + " finished_at_ms, message, committed_groups, failed_groups, rows_written,"
                      + " bytes_read, bytes_written)"
                      + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
        ProcessRecord p = record;
        delete.setString(1, p.processId());
        delete.executeUpdate();
        int i = 1;
        insert.setString(i++, p.processId());
        insert.setString(i++, p.catalog());
        insert.setString(i++, p.namespace());
        insert.setString(i++, p.table());
        insert.setString(i++, p.type());
        insert.setString(i++, p.trigger());
        insert.setString(i++, label(p.status()));
        insert.setLong(i++, p.snapshotId());
        insert.setInt(i++, p.partitions());
        insert.setInt(i++, p.tasks());
        insert.setLong(i++, p.rewriteBytes());
        insert.setLong(i++, p.createdAt().toEpochMilli());
        setInstant(insert, i++, p.finishedAt());
        insert.setString(i++, truncate(p.message()));
        insert.setInt(i++, p.committedGroups());
        insert.setInt(i++, p.failedGroups());
        insert.setLong(i++, p.rowsWritten());
        insert.setLong(i++, p.bytesRead());
        insert.setLong(i, p.bytesWritten());
        insert.executeUpdate();
      }
    }
  }

  /**
   * Marks every running process as failed with {@code message}; part of the start-up transaction of
   * {@link StateStore#failRunningProcesses}.
   *
   * @return the processes changed
   */
  static int failRunning(Connection c, String message, Instant now) throws SQLException {
    try (PreparedStatement update =
        c.prepareStatement(
            "UPDATE optimizing_process SET status = ?, message = ?, finished_at_ms = ?"
                + " WHERE status = ?")) {
      update.setString(1, label(ProcessStatus.FAILED));
      update.setString(2, truncate(message));
      update.setLong(3, now.toEpochMilli());
      update.setString(4, label(ProcessStatus.RUNNING));
      return update.executeUpdate();
    }
  }

  /** The newest {@code limit} stored processes the filter wants, newest first. */
  static List<ProcessRecord> newest(Connection c, Filter filter, int limit) throws SQLException {
    String where =
        filter.all() ? "" : " WHERE catalog_name = ? AND namespace_name = ? AND table_name = ?";
    List<ProcessRecord> all = new ArrayList<>();
    try (PreparedStatement query =
        c.prepareStatement(SELECT + where + " ORDER BY created_at_ms DESC, process_id")) {
      if (!filter.all()) {
        query.setString(1, filter.catalog());
        query.setString(2, filter.namespace());
        query.setString(3, filter.table());
      }
      query.setMaxRows(limit);
      try (ResultSet rs = query.executeQuery()) {
        while (rs.next()) {
          all.add(process(rs));
        }
      }
    }
    return all;
  }

  /** One stored process, or null. */
  static @Nullable ProcessRecord byId(Connection c, String processId) throws SQLException {
    try (PreparedStatement query = c.prepareStatement(SELECT + " WHERE process_id = ?")) {
      query.setString(1, processId);
      try (ResultSet rs = query.executeQuery()) {
        return rs.next() ? process(rs) : null;
      }
    }
  }

  /**
   * The stored processes with the kept ones (not written yet) over them: the filter's newest {@code
   * limit}, newest first.
   */
  static List<ProcessRecord> overlay(
      List<ProcessRecord> stored, Collection<Write> kept, Filter filter, int limit) {
    if (kept.isEmpty()) {
      return stored;
    }
    Map<String, ProcessRecord> merged = new LinkedHashMap<>();
    for (ProcessRecord p : stored) {
      merged.put(p.processId(), p);
    }
    for (Write w : kept) {
      if (filter.matches(w.record())) {
        merged.put(w.record().processId(), w.record());
      }
    }
    return merged.values().stream().sorted(NEWEST_FIRST).limit(limit).toList();
  }

  private static ProcessRecord process(ResultSet rs) throws SQLException {
    String id = rs.getString(1);
    return new ProcessRecord(
        id,
        rs.getString(2),
        rs.getString(3),
        rs.getString(4),
        rs.getString(5),
        rs.getString(6),
        Jdbc.status(
            ProcessStatus.class, rs.getString(7), TABLE, "(process_id " + id + ")", "status"),
        rs.getLong(8),
        rs.getInt(9),
        rs.getInt(10),
        rs.getLong(11),
        Instant.ofEpochMilli(rs.getLong(12)),
        instant(rs, 13),
        rs.getString(14),
        rs.getInt(15),
        rs.getInt(16),
        rs.getLong(17),
        rs.getLong(18),
        rs.getLong(19));
  }
}
