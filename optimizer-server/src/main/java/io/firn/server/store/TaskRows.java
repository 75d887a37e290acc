/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.store;

import static io.firn.server.store.Jdbc.instant;
import static io.firn.server.store.Jdbc.label;
import static io.firn.server.store.Jdbc.setInstant;
import static io.firn.server.store.Jdbc.truncate;

import io.firn.server.optimizing.ProcessStatus;
import io.firn.server.optimizing.TaskRecord;
import io.firn.server.optimizing.TaskStatus;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The table {@code optimizing_task}: one row per rewrite task of a process. {@link Write} is the
 * one writer of its rows.
 */
final class TaskRows {
  static final String TABLE = "optimizing_task";

  private TaskRows() {}

  /** A task row's latest state; replaces the row. */
  record Write(TaskRecord record) implements RowWrite {
    @Override
    public String key() {
      return RowWrite.key("task", record.processId(), Integer.toString(record.taskNumber()));
    }

    @Override
    public void write(Connection c) throws SQLException {
      try (PreparedStatement delete =
              c.prepareStatement(
                  "DELETE FROM optimizing_task WHERE process_id = ? AND task_number = ?");
          PreparedStatement insert =
              c.prepareStatement(
                  "INSERT INTO optimizing_task (process_id, task_number, partition_path, status,"
                      + " attempts, attempt_id, worker_id, rewrite_files, convert_files,"
                      + " rewrite_bytes, started_at_ms, finished_at_ms, message, rows_read,"
                      + " rows_written, bytes_written)"
                      + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
        TaskRecord t = record;
        delete.setString(1, t.processId());
        delete.setInt(2, t.taskNumber());
        delete.executeUpdate();
        int i = 1;
        insert.setString(i++, t.processId());
        insert.setInt(i++, t.taskNumber());
        insert.setString(i++, truncate(t.partition()));
        insert.setString(i++, label(t.status()));
        insert.setInt(i++, t.attempts());
        insert.setString(i++, t.attemptId());
        insert.setString(i++, t.workerId());
        insert.setInt(i++, t.rewriteFiles());
        insert.setInt(i++, t.convertFiles());
        insert.setLong(i++, t.rewriteBytes());
        setInstant(insert, i++, t.startedAt());
        setInstant(insert, i++, t.finishedAt());
        insert.setString(i++, truncate(t.message()));
        insert.setLong(i++, t.rowsRead());
        insert.setLong(i++, t.rowsWritten());
        insert.setLong(i, t.bytesWritten());
        insert.executeUpdate();
      }
    }
  }

  /**
   * Cancels the unfinished tasks (pending, leased, or handed in but not committed) of every running
   * process; part of the start-up transaction of {@link StateStore#failRunningProcesses}, before
   * the processes are marked failed.
   */
  static void cancelOfRunningProcesses(Connection c, String message, Instant now)
      throws SQLException {
    try (PreparedStatement update =
        c.prepareStatement(
            "UPDATE optimizing_task SET status = ?, message = ?, finished_at_ms = ?"
                + " WHERE status IN (?, ?, ?) AND process_id IN"
                + " (SELECT process_id FROM optimizing_process WHERE status = ?)")) {
      update.setString(1, label(TaskStatus.CANCELLED));
      update.setString(2, truncate(message));
      update.setLong(3, now.toEpochMilli());
      update.setString(4, label(TaskStatus.PENDING));
      update.setString(5, label(TaskStatus.LEASED));
      update.setString(6, label(TaskStatus.SUCCEEDED));
      update.setString(7, label(ProcessStatus.RUNNING));
      update.executeUpdate();
    }
  }

  /** The stored tasks of a process, in task order. */
  static List<TaskRecord> ofProcess(Connection c, String processId) throws SQLException {
    List<TaskRecord> all = new ArrayList<>();
    try (PreparedStatement query =
        c.prepareStatement(
            "SELECT process_id, task_number, partition_path, status, attempts, attempt_id,"
                + " worker_id, rewrite_files, convert_files, rewrite_bytes, started_at_ms,"
                + " finished_at_ms, message, rows_read, rows_written, bytes_written"
                + " FROM optimizing_task WHERE process_id = ? ORDER BY task_number")) {
      query.setString(1, processId);
      try (ResultSet rs = query.executeQuery()) {
        while (rs.next()) {
          int number = rs.getInt(2);
          String row = "(process_id " + rs.getString(1) + ", task_number " + number + ")";
          all.add(
              new TaskRecord(
                  rs.getString(1),
                  number,
                  rs.getString(3),
                  Jdbc.status(TaskStatus.class, rs.getString(4), TABLE, row, "status"),
                  rs.getInt(5),
                  rs.getString(6),
                  rs.getString(7),
                  rs.getInt(8),
                  rs.getInt(9),
                  rs.getLong(10),
                  instant(rs, 11),
                  instant(rs, 12),
                  rs.getString(13),
                  rs.getLong(14),
                  rs.getLong(15),
                  rs.getLong(16)));
        }
      }
    }
    return all;
  }

  /** The stored tasks of a process with its kept ones (not written yet) over them, in order. */
  static List<TaskRecord> overlay(
      List<TaskRecord> stored, Collection<Write> kept, String processId) {
    Map<Integer, TaskRecord> merged = new TreeMap<>();
    for (TaskRecord t : stored) {
      merged.put(t.taskNumber(), t);
    }
    for (Write w : kept) {
      if (w.record().processId().equals(processId)) {
        merged.put(w.record().taskNumber(), w.record());
      }
    }
    return List.copyOf(merged.values());
  }
}
