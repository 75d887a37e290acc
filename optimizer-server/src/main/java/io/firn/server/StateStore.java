package io.firn.server;

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
 * <p>One connection, used under this object's lock: the watcher is the only writer for now.
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
                      + " PRIMARY KEY (catalog_name, namespace_name, table_name))")));

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
                + " evaluated_at_ms = ?"
                + " WHERE catalog_name = ? AND namespace_name = ? AND table_name = ?")) {
      setSnapshot(update, 1, runtime.snapshotId());
      update.setBoolean(2, runtime.needsPlan());
      update.setString(3, reason);
      update.setLong(4, runtime.evaluatedAt().toEpochMilli());
      update.setString(5, runtime.catalog());
      update.setString(6, runtime.namespace());
      update.setString(7, runtime.table());
      if (update.executeUpdate() > 0) {
        return;
      }
      try (PreparedStatement insert =
          connection.prepareStatement(
              "INSERT INTO table_runtime (catalog_name, namespace_name, table_name, snapshot_id,"
                  + " needs_plan, reason, evaluated_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
        insert.setString(1, runtime.catalog());
        insert.setString(2, runtime.namespace());
        insert.setString(3, runtime.table());
        setSnapshot(insert, 4, runtime.snapshotId());
        insert.setBoolean(5, runtime.needsPlan());
        insert.setString(6, reason);
        insert.setLong(7, runtime.evaluatedAt().toEpochMilli());
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
                    + " evaluated_at_ms FROM table_runtime"
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
                Instant.ofEpochMilli(rs.getLong(7))));
      }
    } catch (SQLException e) {
      throw failure("load table_runtime", e);
    }
    return all;
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
