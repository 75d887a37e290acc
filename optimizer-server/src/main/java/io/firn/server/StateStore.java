package io.firn.server;

import io.firn.server.optimizing.ProcessRecord;
import io.firn.server.optimizing.TableStateRecord;
import io.firn.server.optimizing.TaskRecord;
import io.firn.server.optimizing.WorkerRecord;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * The server's persistent state in plain JDBC, for H2 (embedded default) and PostgreSQL. The schema
 * is created by versioned migrations recorded in {@code schema_version}; SQL stays in the subset
 * both databases share (no upsert syntax, timestamps as epoch milliseconds).
 *
 * <p>One connection, used under this object's lock. Callers may hold their own locks while calling
 * in; the store never calls out.
 */
public final class StateStore implements AutoCloseable {
  /** Migrations in order; version = index + 1. Never edit an applied one: append. */
  static final List<Migration> MIGRATIONS =
      List.of(
          new Migration(
              "table runtime",
              List.of(
                  "CREATE TABLE table_runtime ("
                      + " catalog_name VARCHAR(255) NOT NULL,"
                      + " namespace_name VARCHAR(1024) NOT NULL,"
                      + " table_name VARCHAR(255) NOT NULL,"
                      + " snapshot_id BIGINT,"
                      + " needs_plan BOOLEAN NOT NULL,"
                      + " reason VARCHAR(4000) NOT NULL,"
                      + " evaluated_at_ms BIGINT NOT NULL,"
                      + " PRIMARY KEY (catalog_name, namespace_name, table_name))")),
          new Migration(
              "optimizing state, processes, tasks and workers",
              List.of(
                  "ALTER TABLE table_runtime ADD COLUMN state VARCHAR(32) DEFAULT 'idle' NOT NULL",
                  "ALTER TABLE table_runtime ADD COLUMN state_since_ms BIGINT DEFAULT 0 NOT NULL",
                  "ALTER TABLE table_runtime ADD COLUMN paused BOOLEAN DEFAULT FALSE NOT NULL",
                  "ALTER TABLE table_runtime ADD COLUMN parked_reason VARCHAR(4000)",
                  "ALTER TABLE table_runtime ADD COLUMN parked_until_ms BIGINT",
                  "ALTER TABLE table_runtime ADD COLUMN failures INTEGER DEFAULT 0 NOT NULL",
                  "ALTER TABLE table_runtime ADD COLUMN last_process_id VARCHAR(64)",
                  "CREATE TABLE optimizing_process ("
                      + " process_id VARCHAR(64) NOT NULL PRIMARY KEY,"
                      + " catalog_name VARCHAR(255) NOT NULL,"
                      + " namespace_name VARCHAR(1024) NOT NULL,"
                      + " table_name VARCHAR(255) NOT NULL,"
                      + " optimizing_type VARCHAR(16) NOT NULL,"
                      + " trigger_kind VARCHAR(16) NOT NULL,"
                      + " status VARCHAR(16) NOT NULL,"
                      + " snapshot_id BIGINT NOT NULL,"
                      + " partition_count INTEGER NOT NULL,"
                      + " task_count INTEGER NOT NULL,"
                      + " rewrite_bytes BIGINT NOT NULL,"
                      + " created_at_ms BIGINT NOT NULL,"
                      + " finished_at_ms BIGINT,"
                      + " message VARCHAR(4000) NOT NULL,"
                      + " committed_groups INTEGER NOT NULL,"
                      + " failed_groups INTEGER NOT NULL,"
                      + " rows_written BIGINT NOT NULL,"
                      + " bytes_read BIGINT NOT NULL,"
                      + " bytes_written BIGINT NOT NULL)",
                  "CREATE INDEX optimizing_process_table ON optimizing_process"
                      + " (catalog_name, namespace_name, table_name, created_at_ms)",
                  "CREATE INDEX optimizing_process_status ON optimizing_process (status)",
                  "CREATE TABLE optimizing_task ("
                      + " process_id VARCHAR(64) NOT NULL,"
                      + " task_number INTEGER NOT NULL,"
                      + " partition_path VARCHAR(4000) NOT NULL,"
                      + " status VARCHAR(16) NOT NULL,"
                      + " attempts INTEGER NOT NULL,"
                      + " attempt_id VARCHAR(128),"
                      + " worker_id VARCHAR(64),"
                      + " rewrite_files INTEGER NOT NULL,"
                      + " convert_files INTEGER NOT NULL,"
                      + " rewrite_bytes BIGINT NOT NULL,"
                      + " started_at_ms BIGINT,"
                      + " finished_at_ms BIGINT,"
                      + " message VARCHAR(4000) NOT NULL,"
                      + " rows_read BIGINT NOT NULL,"
                      + " rows_written BIGINT NOT NULL,"
                      + " bytes_written BIGINT NOT NULL,"
                      + " PRIMARY KEY (process_id, task_number))",
                  "CREATE TABLE optimizer_worker ("
                      + " worker_id VARCHAR(64) NOT NULL PRIMARY KEY,"
                      + " name VARCHAR(255) NOT NULL,"
                      + " group_name VARCHAR(255) NOT NULL,"
                      + " slots INTEGER NOT NULL,"
                      + " engine VARCHAR(32) NOT NULL,"
                      + " engine_version VARCHAR(64) NOT NULL,"
                      + " registered_at_ms BIGINT NOT NULL,"
                      + " last_seen_at_ms BIGINT NOT NULL)")),
          new Migration(
              "table health and file counts",
              List.of(
                  "ALTER TABLE table_runtime ADD COLUMN health INTEGER DEFAULT 100 NOT NULL",
                  "ALTER TABLE table_runtime ADD COLUMN data_files BIGINT DEFAULT 0 NOT NULL",
                  "ALTER TABLE table_runtime ADD COLUMN equality_delete_files BIGINT DEFAULT 0"
                      + " NOT NULL",
                  "ALTER TABLE table_runtime ADD COLUMN position_delete_files BIGINT DEFAULT 0"
                      + " NOT NULL")));

  /** One schema change: its statements run in one transaction where the database allows. */
  record Migration(String description, List<String> statements) {}

  private static final int MAX_REASON = 4000;

  private final String url;
  private final Connection connection;

  private StateStore(String url, Connection connection) {
    this.url = url;
    this.connection = connection;
  }

  /**
   * Connects and applies every migration not applied yet.
   *
   * @throws StateStoreException when the database cannot be reached or a migration fails
   */
  public static StateStore open(String url, String user, String password) {
    Properties properties = new Properties();
    if (user != null) {
      properties.setProperty("user", user);
    }
    if (password != null) {
      properties.setProperty("password", password);
    }
    Connection connection;
    try {
      connection = DriverManager.getConnection(url, properties);
    } catch (SQLException e) {
      throw new StateStoreException(
          "cannot connect to the state store " + redact(url) + ": " + e.getMessage(), e);
    }
    StateStore store = new StateStore(url, connection);
    try {
      store.migrate();
    } catch (RuntimeException e) {
      store.close();
      throw e;
    }
    return store;
  }

  /** The highest applied migration version (0 for an empty database). */
  public synchronized int schemaVersion() {
    try (Statement s = connection.createStatement();
        ResultSet rs = s.executeQuery("SELECT MAX(version) FROM schema_version")) {
      rs.next();
      return rs.getInt(1);
    } catch (SQLException e) {
      throw failure("read schema_version", e);
    }
  }

  private synchronized void migrate() {
    try {
      connection.setAutoCommit(true);
      try (Statement s = connection.createStatement()) {
        s.execute(
            "CREATE TABLE IF NOT EXISTS schema_version ("
                + " version INTEGER NOT NULL PRIMARY KEY,"
                + " description VARCHAR(255) NOT NULL,"
                + " applied_at_ms BIGINT NOT NULL)");
      }
      int current = schemaVersion();
      for (int version = current + 1; version <= MIGRATIONS.size(); version++) {
        Migration migration = MIGRATIONS.get(version - 1);
        connection.setAutoCommit(false);
        try (Statement s = connection.createStatement();
            PreparedStatement record =
                connection.prepareStatement(
                    "INSERT INTO schema_version (version, description, applied_at_ms)"
                        + " VALUES (?, ?, ?)")) {
          for (String statement : migration.statements()) {
            s.execute(statement);
          }
          record.setInt(1, version);
          record.setString(2, migration.description());
          record.setLong(3, System.currentTimeMillis());
          record.executeUpdate();
          connection.commit();
        } catch (SQLException e) {
          connection.rollback();
          throw failure("apply migration " + version + " (" + migration.description() + ")", e);
        } finally {
          connection.setAutoCommit(true);
        }
      }
    } catch (SQLException e) {
      throw failure("migrate", e);
    }
  }

  /** Inserts or replaces the row of {@code runtime}'s table. */
  public synchronized void save(TableRuntime runtime) {
    String reason =
        runtime.reason().length() > MAX_REASON
            ? runtime.reason().substring(0, MAX_REASON)
            : runtime.reason();
    try (PreparedStatement update =
        connection.prepareStatement(
            "UPDATE table_runtime SET snapshot_id = ?, needs_plan = ?, reason = ?,"
                + " evaluated_at_ms = ?, health = ?, data_files = ?, equality_delete_files = ?,"
                + " position_delete_files = ?"
                + " WHERE catalog_name = ? AND namespace_name = ? AND table_name = ?")) {
      setSnapshot(update, 1, runtime.snapshotId());
      update.setBoolean(2, runtime.needsPlan());
      update.setString(3, reason);
      update.setLong(4, runtime.evaluatedAt().toEpochMilli());
      update.setInt(5, runtime.health());
      update.setLong(6, runtime.dataFiles());
      update.setLong(7, runtime.equalityDeleteFiles());
      update.setLong(8, runtime.positionDeleteFiles());
      update.setString(9, runtime.catalog());
      update.setString(10, runtime.namespace());
      update.setString(11, runtime.table());
      if (update.executeUpdate() > 0) {
        return;
      }
      try (PreparedStatement insert =
          connection.prepareStatement(
              "INSERT INTO table_runtime (catalog_name, namespace_name, table_name, snapshot_id,"
                  + " needs_plan, reason, evaluated_at_ms, health, data_files,"
                  + " equality_delete_files, position_delete_files)"
                  + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
        insert.setString(1, runtime.catalog());
        insert.setString(2, runtime.namespace());
        insert.setString(3, runtime.table());
        setSnapshot(insert, 4, runtime.snapshotId());
        insert.setBoolean(5, runtime.needsPlan());
        insert.setString(6, reason);
        insert.setLong(7, runtime.evaluatedAt().toEpochMilli());
        insert.setInt(8, runtime.health());
        insert.setLong(9, runtime.dataFiles());
        insert.setLong(10, runtime.equalityDeleteFiles());
        insert.setLong(11, runtime.positionDeleteFiles());
        insert.executeUpdate();
      }
    } catch (SQLException e) {
      throw failure("save the runtime of " + runtime.qualifiedName(), e);
    }
  }

  /** Forgets a table (dropped, or no longer matched by the patterns). */
  public synchronized void delete(String catalog, String namespace, String table) {
    try (PreparedStatement delete =
        connection.prepareStatement(
            "DELETE FROM table_runtime"
                + " WHERE catalog_name = ? AND namespace_name = ? AND table_name = ?")) {
      delete.setString(1, catalog);
      delete.setString(2, namespace);
      delete.setString(3, table);
      delete.executeUpdate();
    } catch (SQLException e) {
      throw failure("delete the runtime of " + catalog + "." + namespace + "." + table, e);
    }
  }

  public synchronized List<TableRuntime> loadAll() {
    List<TableRuntime> all = new ArrayList<>();
    try (Statement s = connection.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT catalog_name, namespace_name, table_name, snapshot_id, needs_plan, reason,"
                    + " evaluated_at_ms, health, data_files, equality_delete_files,"
                    + " position_delete_files FROM table_runtime"
                    + " ORDER BY catalog_name, namespace_name, table_name")) {
      while (rs.next()) {
        long snapshot = rs.getLong(4);
        Long snapshotId = rs.wasNull() ? null : snapshot;
        all.add(
            new TableRuntime(
                rs.getString(1),
                rs.getString(2),
                rs.getString(3),
                snapshotId,
                rs.getBoolean(5),
                rs.getString(6),
                Instant.ofEpochMilli(rs.getLong(7)),
                rs.getInt(8),
                rs.getLong(9),
                rs.getLong(10),
                rs.getLong(11)));
      }
    } catch (SQLException e) {
      throw failure("load table_runtime", e);
    }
    return all;
  }

  /** The optimizing state of every known table (rows the watcher created). */
  public synchronized List<TableStateRecord> loadTableStates() {
    List<TableStateRecord> all = new ArrayList<>();
    try (Statement s = connection.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT catalog_name, namespace_name, table_name, snapshot_id, needs_plan, reason,"
                    + " evaluated_at_ms, state, state_since_ms, paused, parked_reason,"
                    + " parked_until_ms, failures, last_process_id, health, data_files,"
                    + " equality_delete_files, position_delete_files FROM table_runtime"
                    + " ORDER BY catalog_name, namespace_name, table_name")) {
      while (rs.next()) {
        long snapshot = rs.getLong(4);
        Long snapshotId = rs.wasNull() ? null : snapshot;
        long parkedUntil = rs.getLong(12);
        Instant parked = rs.wasNull() ? null : Instant.ofEpochMilli(parkedUntil);
        all.add(
            new TableStateRecord(
                rs.getString(1),
                rs.getString(2),
                rs.getString(3),
                snapshotId,
                rs.getBoolean(5),
                rs.getString(6),
                Instant.ofEpochMilli(rs.getLong(7)),
                rs.getString(8),
                Instant.ofEpochMilli(rs.getLong(9)),
                rs.getBoolean(10),
                rs.getString(11),
                parked,
                rs.getInt(13),
                rs.getString(14),
                rs.getInt(15),
                rs.getLong(16),
                rs.getLong(17),
                rs.getLong(18)));
      }
    } catch (SQLException e) {
      throw failure("load the optimizing state of the tables", e);
    }
    return all;
  }

  /** Writes the optimizing state (and the planning verdict) of a table the watcher created. */
  public synchronized void saveTableState(TableStateRecord state) {
    try (PreparedStatement update =
        connection.prepareStatement(
            "UPDATE table_runtime SET needs_plan = ?, reason = ?, state = ?, state_since_ms = ?,"
                + " paused = ?, parked_reason = ?, parked_until_ms = ?, failures = ?,"
                + " last_process_id = ?"
                + " WHERE catalog_name = ? AND namespace_name = ? AND table_name = ?")) {
      update.setBoolean(1, state.needsPlan());
      update.setString(2, truncate(state.reason()));
      update.setString(3, state.status());
      update.setLong(4, state.since().toEpochMilli());
      update.setBoolean(5, state.paused());
      update.setString(6, state.parkedReason() == null ? null : truncate(state.parkedReason()));
      setLong(update, 7, state.parkedUntil() == null ? null : state.parkedUntil().toEpochMilli());
      update.setInt(8, state.failures());
      update.setString(9, state.lastProcessId());
      update.setString(10, state.catalog());
      update.setString(11, state.namespace());
      update.setString(12, state.table());
      update.executeUpdate();
    } catch (SQLException e) {
      throw failure(
          "save the optimizing state of "
              + state.catalog()
              + "."
              + state.namespace()
              + "."
              + state.table(),
          e);
    }
  }

  /** Inserts or replaces a process row. */
  public synchronized void saveProcess(ProcessRecord p) {
    inTransaction(
        "save process " + p.processId(),
        () -> {
          try (PreparedStatement delete =
                  connection.prepareStatement(
                      "DELETE FROM optimizing_process WHERE process_id = ?");
              PreparedStatement insert =
                  connection.prepareStatement(
                      "INSERT INTO optimizing_process (process_id, catalog_name, namespace_name,"
                          + " table_name, optimizing_type, trigger_kind, status, snapshot_id,"
                          + " partition_count, task_count, rewrite_bytes, created_at_ms,"
                          + " finished_at_ms, message, committed_groups, failed_groups, rows_written,"
                          + " bytes_read, bytes_written)"
                          + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            delete.setString(1, p.processId());
            delete.executeUpdate();
            int i = 1;
            insert.setString(i++, p.processId());
            insert.setString(i++, p.catalog());
            insert.setString(i++, p.namespace());
            insert.setString(i++, p.table());
            insert.setString(i++, p.type());
            insert.setString(i++, p.trigger());
            insert.setString(i++, p.status());
            insert.setLong(i++, p.snapshotId());
            insert.setInt(i++, p.partitions());
            insert.setInt(i++, p.tasks());
            insert.setLong(i++, p.rewriteBytes());
            insert.setLong(i++, p.createdAt().toEpochMilli());
            setLong(insert, i++, p.finishedAt() == null ? null : p.finishedAt().toEpochMilli());
            insert.setString(i++, truncate(p.message()));
            insert.setInt(i++, p.committedGroups());
            insert.setInt(i++, p.failedGroups());
            insert.setLong(i++, p.rowsWritten());
            insert.setLong(i++, p.bytesRead());
            insert.setLong(i, p.bytesWritten());
            insert.executeUpdate();
          }
        });
  }

  /** One unit of SQL work. */
  private interface SqlWork {
    void run() throws SQLException;
  }

  /** Runs {@code work} in one transaction; rolls back and names {@code what} when it fails. */
  private void inTransaction(String what, SqlWork work) {
    try {
      boolean autoCommit = connection.getAutoCommit();
      connection.setAutoCommit(false);
      try {
        work.run();
        connection.commit();
      } catch (SQLException | RuntimeException e) {
        connection.rollback();
        throw e;
      } finally {
        connection.setAutoCommit(autoCommit);
      }
    } catch (SQLException e) {
      throw failure(what, e);
    }
  }

  /** Inserts or replaces task rows, in one transaction. */
  public synchronized void saveTasks(List<TaskRecord> tasks) {
    if (tasks.isEmpty()) {
      return;
    }
    inTransaction(
        "save " + tasks.size() + " task(s) of " + tasks.get(0).processId(),
        () -> {
          try (PreparedStatement delete =
                  connection.prepareStatement(
                      "DELETE FROM optimizing_task WHERE process_id = ? AND task_number = ?");
              PreparedStatement insert =
                  connection.prepareStatement(
                      "INSERT INTO optimizing_task (process_id, task_number, partition_path, status,"
                          + " attempts, attempt_id, worker_id, rewrite_files, convert_files,"
                          + " rewrite_bytes, started_at_ms, finished_at_ms, message, rows_read,"
                          + " rows_written, bytes_written)"
                          + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            for (TaskRecord t : tasks) {
              delete.setString(1, t.processId());
              delete.setInt(2, t.taskNumber());
              delete.addBatch();
              int i = 1;
              insert.setString(i++, t.processId());
              insert.setInt(i++, t.taskNumber());
              insert.setString(i++, truncate(t.partition()));
              insert.setString(i++, t.status());
              insert.setInt(i++, t.attempts());
              insert.setString(i++, t.attemptId());
              insert.setString(i++, t.workerId());
              insert.setInt(i++, t.rewriteFiles());
              insert.setInt(i++, t.convertFiles());
              insert.setLong(i++, t.rewriteBytes());
              setLong(insert, i++, t.startedAt() == null ? null : t.startedAt().toEpochMilli());
              setLong(insert, i++, t.finishedAt() == null ? null : t.finishedAt().toEpochMilli());
              insert.setString(i++, truncate(t.message()));
              insert.setLong(i++, t.rowsRead());
              insert.setLong(i++, t.rowsWritten());
              insert.setLong(i, t.bytesWritten());
              insert.addBatch();
            }
            delete.executeBatch();
            insert.executeBatch();
          }
        });
  }

  /**
   * Marks every process still running as failed with the message, and its unfinished tasks as
   * cancelled; used at start-up, when no process can still be running.
   *
   * @return the processes changed
   */
  public synchronized int failRunningProcesses(String message, Instant now) {
    try (PreparedStatement tasks =
            connection.prepareStatement(
                "UPDATE optimizing_task SET status = 'cancelled', message = ?, finished_at_ms = ?"
                    + " WHERE status IN ('pending', 'leased', 'succeeded') AND process_id IN"
                    + " (SELECT process_id FROM optimizing_process WHERE status = 'running')");
        PreparedStatement processes =
            connection.prepareStatement(
                "UPDATE optimizing_process SET status = 'failed', message = ?,"
                    + " finished_at_ms = ? WHERE status = 'running'")) {
      tasks.setString(1, message);
      tasks.setLong(2, now.toEpochMilli());
      tasks.executeUpdate();
      processes.setString(1, message);
      processes.setLong(2, now.toEpochMilli());
      return processes.executeUpdate();
    } catch (SQLException e) {
      throw failure("fail the processes left running", e);
    }
  }

  /**
   * The newest processes, newest first.
   *
   * @param catalog with namespace and table: only this table's; all three null for every table
   */
  public synchronized List<ProcessRecord> processes(
      String catalog, String namespace, String table, int limit) {
    String where =
        catalog == null ? "" : " WHERE catalog_name = ? AND namespace_name = ? AND table_name = ?";
    List<ProcessRecord> all = new ArrayList<>();
    try (PreparedStatement query =
        connection.prepareStatement(
            PROCESS_COLUMNS + where + " ORDER BY created_at_ms DESC, process_id")) {
      if (catalog != null) {
        query.setString(1, catalog);
        query.setString(2, namespace);
        query.setString(3, table);
      }
      query.setMaxRows(limit);
      try (ResultSet rs = query.executeQuery()) {
        while (rs.next()) {
          all.add(process(rs));
        }
      }
    } catch (SQLException e) {
      throw failure("read processes", e);
    }
    return all;
  }

  /** One process, or null. */
  public synchronized ProcessRecord process(String processId) {
    try (PreparedStatement query =
        connection.prepareStatement(PROCESS_COLUMNS + " WHERE process_id = ?")) {
      query.setString(1, processId);
      try (ResultSet rs = query.executeQuery()) {
        return rs.next() ? process(rs) : null;
      }
    } catch (SQLException e) {
      throw failure("read process " + processId, e);
    }
  }

  /** The tasks of a process in task order. */
  public synchronized List<TaskRecord> tasks(String processId) {
    List<TaskRecord> all = new ArrayList<>();
    try (PreparedStatement query =
        connection.prepareStatement(
            "SELECT process_id, task_number, partition_path, status, attempts, attempt_id,"
                + " worker_id, rewrite_files, convert_files, rewrite_bytes, started_at_ms,"
                + " finished_at_ms, message, rows_read, rows_written, bytes_written"
                + " FROM optimizing_task WHERE process_id = ? ORDER BY task_number")) {
      query.setString(1, processId);
      try (ResultSet rs = query.executeQuery()) {
        while (rs.next()) {
          all.add(
              new TaskRecord(
                  rs.getString(1),
                  rs.getInt(2),
                  rs.getString(3),
                  rs.getString(4),
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
    } catch (SQLException e) {
      throw failure("read the tasks of " + processId, e);
    }
    return all;
  }

  /** Inserts or replaces a worker row. */
  public synchronized void saveWorker(WorkerRecord w) {
    try (PreparedStatement delete =
            connection.prepareStatement("DELETE FROM optimizer_worker WHERE worker_id = ?");
        PreparedStatement insert =
            connection.prepareStatement(
                "INSERT INTO optimizer_worker (worker_id, name, group_name, slots, engine,"
                    + " engine_version, registered_at_ms, last_seen_at_ms)"
                    + " VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
      delete.setString(1, w.workerId());
      delete.executeUpdate();
      insert.setString(1, w.workerId());
      insert.setString(2, w.name());
      insert.setString(3, w.group());
      insert.setInt(4, w.slots());
      insert.setString(5, w.engine());
      insert.setString(6, w.engineVersion());
      insert.setLong(7, w.registeredAt().toEpochMilli());
      insert.setLong(8, w.lastSeenAt().toEpochMilli());
      insert.executeUpdate();
    } catch (SQLException e) {
      throw failure("save worker " + w.workerId(), e);
    }
  }

  /** Removes a worker row (it expired or deregistered). */
  public synchronized void deleteWorker(String workerId) {
    try (PreparedStatement delete =
        connection.prepareStatement("DELETE FROM optimizer_worker WHERE worker_id = ?")) {
      delete.setString(1, workerId);
      delete.executeUpdate();
    } catch (SQLException e) {
      throw failure("delete worker " + workerId, e);
    }
  }

  private static final String PROCESS_COLUMNS =
      "SELECT process_id, catalog_name, namespace_name, table_name, optimizing_type, trigger_kind,"
          + " status, snapshot_id, partition_count, task_count, rewrite_bytes, created_at_ms,"
          + " finished_at_ms, message, committed_groups, failed_groups, rows_written, bytes_read,"
          + " bytes_written FROM optimizing_process";

  private static ProcessRecord process(ResultSet rs) throws SQLException {
    return new ProcessRecord(
        rs.getString(1),
        rs.getString(2),
        rs.getString(3),
        rs.getString(4),
        rs.getString(5),
        rs.getString(6),
        rs.getString(7),
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

  private static Instant instant(ResultSet rs, int column) throws SQLException {
    long millis = rs.getLong(column);
    return rs.wasNull() ? null : Instant.ofEpochMilli(millis);
  }

  private static void setLong(PreparedStatement statement, int index, Long value)
      throws SQLException {
    if (value == null) {
      statement.setNull(index, Types.BIGINT);
    } else {
      statement.setLong(index, value);
    }
  }

  private static String truncate(String text) {
    return text.length() > MAX_REASON ? text.substring(0, MAX_REASON) : text;
  }

  /** A cheap round trip, for the health check. */
  public synchronized boolean isReachable() {
    try {
      return connection.isValid(2);
    } catch (SQLException e) {
      return false;
    }
  }

  @Override
  public synchronized void close() {
    try {
      connection.close();
    } catch (SQLException e) {
      throw failure("close", e);
    }
  }

  private static void setSnapshot(PreparedStatement statement, int index, Long snapshotId)
      throws SQLException {
    if (snapshotId == null) {
      statement.setNull(index, Types.BIGINT);
    } else {
      statement.setLong(index, snapshotId);
    }
  }

  private StateStoreException failure(String what, SQLException e) {
    return new StateStoreException(
        "state store " + redact(url) + ": cannot " + what + ": " + e.getMessage(), e);
  }

  /** JDBC URLs may carry a password as a parameter; never print it. */
  static String redact(String url) {
    return url.replaceAll("(?i)(password=)[^&;]*", "$1***");
  }
}
