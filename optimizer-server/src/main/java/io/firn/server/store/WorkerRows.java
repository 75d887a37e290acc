/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.store;

import io.firn.server.optimizing.WorkerRecord;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import org.jspecify.annotations.Nullable;

/**
 * The table {@code optimizer_worker}: one row per registered worker, for operators (a restarted
 * server reads none: workers register again). {@link Write} is the one writer of its rows.
 */
final class WorkerRows {
  private WorkerRows() {}

  /** A worker row's latest state; {@code worker} null: the row's removal. */
  record Write(String workerId, @Nullable WorkerRecord worker) implements RowWrite {
    @Override
    public String key() {
      return RowWrite.key("worker", workerId);
    }

    @Override
    public void write(Connection c) throws SQLException {
      try (PreparedStatement delete =
          c.prepareStatement("DELETE FROM optimizer_worker WHERE worker_id = ?")) {
        delete.setString(1, workerId);
        delete.executeUpdate();
      }
      if (worker == null) {
        return;
      }
      try (PreparedStatement insert =
          c.prepareStatement(
              "INSERT INTO optimizer_worker (worker_id, name, group_name, slots, engine,"
                  + " engine_version, registered_at_ms, last_seen_at_ms)"
                  + " VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
        insert.setString(1, worker.workerId());
        insert.setString(2, worker.name());
        insert.setString(3, worker.group());
        insert.setInt(4, worker.slots());
        insert.setString(5, worker.engine());
        insert.setString(6, worker.engineVersion());
        insert.setLong(7, worker.registeredAt().toEpochMilli());
        insert.setLong(8, worker.lastSeenAt().toEpochMilli());
        insert.executeUpdate();
      }
    }
  }
}
