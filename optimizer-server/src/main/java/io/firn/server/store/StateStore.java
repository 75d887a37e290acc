/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.store;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.db.ManagedDataSource;
import io.firn.server.StateStoreConfiguration;
import io.firn.server.TableRuntime;
import io.firn.server.optimizing.ProcessRecord;
import io.firn.server.optimizing.TableStateRecord;
import io.firn.server.optimizing.TaskRecord;
import io.firn.server.optimizing.WorkerRecord;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's persistent state in plain JDBC, for H2 (embedded default) and PostgreSQL: the one
 * way in for the rest of the server. The schema is made by the versioned SQL files of {@link
 * Migrations}; each table's SQL lives in its own class ({@link TableRuntimeRows}, {@link
 * ProcessRows}, {@link TaskRows}, {@link WorkerRows}), whose one row write is the only writer of
 * its rows. Statuses are the optimizing side's enums, stored as their lower-case labels.
 *
 * <p>Connections come from a pool (Dropwizard's {@code DataSourceFactory}, tomcat-jdbc) that
 * validates each one when it is borrowed, so a database restart or a terminated session costs at
 * most the write that met it. Every write is one transaction.
 *
 * <p>The server's memory is the truth; the store mirrors the latest state of each row (ADR 0016).
 * Writes are write-behind (ADR 0023): a write records the latest state of each row it changes in
 * memory (a newer write of the same row replaces it, in the row's place) and returns at once,
 * without the database; the store's writer thread writes the pending rows in the order they were
 * first changed, in fenced transactions, outside any lock of the caller. When the database does not
 * answer, the rows stay pending, the writer tries again every {@code retryInterval} and {@link
 * #status()} reports the outage (the health check is red). A row the database answers with an error
 * (a bad row, not a lost connection) is dropped, logged at ERROR with its key and counted, and the
 * health check is red until a later state of that row is written. Reads see the pending rows over
 * the database's. {@link RowWriter} does all of that; the start-up writes ({@link
 * #failRunningProcesses}, the migrations) stay synchronous and throw.
 *
 * <p>Reads run on their own pooled connections. Callers may hold their own locks while calling in:
 * a write never waits for the database; the store never calls out.
 */
public final class StateStore implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StateStore.class);

  private final String url;
  private final ManagedDataSource dataSource;
  private final RowWriter writer;
  private final Duration flushTimeout;

  private StateStore(
      String url, ManagedDataSource dataSource, RowWriter writer, Duration flushTimeout) {
    this.url = url;
    this.dataSource = dataSource;
    this.writer = writer;
    this.flushTimeout = flushTimeout;
  }

  /**
   * Connects with the default pool settings and applies every migration not applied yet; for tests
   * and tools (no metrics are exported).
   *
   * @throws StateStoreException when the database cannot be reached or a migration fails
   */
  public static StateStore open(String url, String user, String password) {
    StateStoreConfiguration configuration = new StateStoreConfiguration();
    configuration.setUrl(url);
    configuration.setUser(user);
    configuration.setPassword(password);
    return open(configuration, new MetricRegistry(), new SimpleMeterRegistry());
  }

  /**
   * Connects and applies every migration not applied yet.
   *
   * @param poolMetrics where the pool registers its Dropwizard gauges
   * @param meters where the store registers its {@code firn_state_store_*} metrics
   * @throws StateStoreException when the database cannot be reached or a migration fails
   */
  public static StateStore open(
      StateStoreConfiguration configuration, MetricRegistry poolMetrics, MeterRegistry meters) {
    String url = configuration.getUrl();
    ManagedDataSource dataSource =
        configuration.dataSourceFactory().build(poolMetrics, "state-store");
    RowWriter writer =
        new RowWriter(
            url,
            dataSource,
            configuration.getRetryInterval().toJavaDuration(),
            configuration.getFlushTimeout().toJavaDuration(),
            meters);
    StateStore store =
        new StateStore(url, dataSource, writer, configuration.getFlushTimeout().toJavaDuration());
    try {
      dataSource.start();
      try (Connection connection = dataSource.getConnection()) {
        // Connects once before migrating, for a clear message.
        connection.isValid(1);
      } catch (SQLException e) {
        throw new StateStoreException(
            "cannot connect to the state store " + redact(url) + ": " + e.getMessage(), e);
      }
      try (Connection connection = dataSource.getConnection()) {
        Migrations.migrate(connection, Migrations.latest());
      } catch (SQLException e) {
        throw failure(url, "migrate", e);
      }
    } catch (Exception e) {
      store.close();
      if (e instanceof StateStoreException stateStore) {
        throw stateStore;
      }
      throw new StateStoreException(
          "cannot open the state store " + redact(url) + ": " + e.getMessage(), e);
    }
    writer.start();
    return store;
  }

  /** The highest applied migration version (0 for an empty database). */
  public int schemaVersion() {
    return read("read schema_version", Migrations::version);
  }

  // ---------------------------------------------------------------- replicas

  /**
   * Makes every later write check {@code fence} in its own transaction first (ADR 0021): a write
   * the fence refuses is not made.
   */
  public void fence(WriteFence fence) {
    writer.fence(fence);
  }

  /** The pooled data source, for the leader lease that shares this database. */
  public javax.sql.DataSource dataSource() {
    return dataSource;
  }

  // ---------------------------------------------------------------- writes

  /** Inserts or replaces the watcher's columns of {@code runtime}'s table. */
  public void save(TableRuntime runtime) {
    writer.write(
        "save the runtime of " + runtime.qualifiedName(),
        List.of(TableRuntimeRows.Write.runtime(runtime)));
  }

  /** Forgets a table (dropped, or no longer matched by the patterns). */
  public void delete(String catalog, String namespace, String table) {
    writer.write(
        "delete the runtime of " + catalog + "." + namespace + "." + table,
        List.of(TableRuntimeRows.Write.delete(catalog, namespace, table)));
  }

  /** Writes the optimizing state (and the planning verdict) of a table the watcher created. */
  public void saveTableState(TableStateRecord state) {
    writer.write(
        "save the optimizing state of "
            + state.catalog()
            + "."
            + state.namespace()
            + "."
            + state.table(),
        List.of(TableRuntimeRows.Write.state(state)));
  }

  /** Inserts or replaces a process row. */
  public void saveProcess(ProcessRecord p) {
    writer.write("save process " + p.processId(), List.of(new ProcessRows.Write(p)));
  }

  /** Inserts or replaces task rows (written in order, in the writer's transactions). */
  public void saveTasks(List<TaskRecord> tasks) {
    if (tasks.isEmpty()) {
      return;
    }
    List<RowWrite> writes = new ArrayList<>(tasks.size());
    for (TaskRecord t : tasks) {
      writes.add(new TaskRows.Write(t));
    }
    writer.write("save " + tasks.size() + " task(s) of " + tasks.get(0).processId(), writes);
  }

  /** Inserts or replaces a worker row. */
  public void saveWorker(WorkerRecord w) {
    writer.write("save worker " + w.workerId(), List.of(new WorkerRows.Write(w.workerId(), w)));
  }

  /** Removes a worker row (it expired or deregistered). */
  public void deleteWorker(String workerId) {
    writer.write("delete worker " + workerId, List.of(new WorkerRows.Write(workerId, null)));
  }

  /**
   * Marks every process still running as failed with the message, and its unfinished tasks as
   * cancelled, in one fenced transaction; used at start-up, when no process can still be running
   * and the database has just answered. Synchronous, unlike the other writes: it runs on the
   * caller's thread after the pending rows and throws when it fails.
   *
   * @return the processes changed
   */
  public int failRunningProcesses(String message, Instant now) {
    return writer.writeNow(
        "fail the processes left running",
        c -> {
          TaskRows.cancelOfRunningProcesses(c, message, now);
          return ProcessRows.failRunning(c, message, now);
        });
  }

  // ---------------------------------------------------------------- reads

  /** One read on a pooled connection. */
  private interface Query<T> {
    T run(Connection c) throws SQLException;
  }

  private <T> T read(String what, Query<T> query) {
    try (Connection c = dataSource.getConnection()) {
      return query.run(c);
    } catch (SQLException e) {
      throw failure(url, what, e);
    }
  }

  /**
   * Waits until the database has every pending row, or {@code timeout} has passed.
   *
   * @return whether nothing is pending
   */
  public boolean flush(Duration timeout) {
    return writer.flush(timeout);
  }

  /**
   * Every table's watcher columns, as stored; read at start-up, after the pending rows are written
   * (none are at start-up; waits up to the flush timeout).
   */
  public List<TableRuntime> loadAll() {
    writer.flush(flushTimeout);
    return read("load table_runtime", TableRuntimeRows::runtimes);
  }

  /**
   * The optimizing state of every known table (rows the watcher created); read at start-up, after
   * the pending rows are written (as {@link #loadAll}).
   *
   * @throws UnknownStoredValueException for a state this version of Firn does not know
   */
  public List<TableStateRecord> loadTableStates() {
    writer.flush(flushTimeout);
    return read("load the optimizing state of the tables", TableRuntimeRows::states);
  }

  /**
   * The newest processes, newest first, pending rows included.
   *
   * @param catalog with namespace and table: only this table's; all three null for every table
   * @throws UnknownStoredValueException for a status this version of Firn does not know
   */
  public List<ProcessRecord> processes(
      @Nullable String catalog, @Nullable String namespace, @Nullable String table, int limit) {
    ProcessRows.Filter filter = new ProcessRows.Filter(catalog, namespace, table);
    List<ProcessRows.Write> unwritten = writer.pending(ProcessRows.Write.class);
    List<ProcessRecord> stored = read("read processes", c -> ProcessRows.newest(c, filter, limit));
    return ProcessRows.overlay(stored, unwritten, filter, limit);
  }

  /**
   * {@link #processes} for a caller that can do without the stored history: while the database does
   * not answer, the kept rows alone (often none) instead of an exception. The planner's throughput
   * estimate uses it, so that an outage never fails a plan (and parks its table).
   */
  public List<ProcessRecord> pastProcesses(
      @Nullable String catalog, @Nullable String namespace, @Nullable String table, int limit) {
    try {
      return processes(catalog, namespace, table, limit);
    } catch (StateStoreException e) {
      LOG.debug("{}; using the kept rows only", e.getMessage());
      return ProcessRows.overlay(
          List.of(),
          writer.pending(ProcessRows.Write.class),
          new ProcessRows.Filter(catalog, namespace, table),
          limit);
    }
  }

  /** One process, or null; a pending row wins over the stored one. */
  public @Nullable ProcessRecord process(String processId) {
    for (ProcessRows.Write w : writer.pending(ProcessRows.Write.class)) {
      if (w.record().processId().equals(processId)) {
        return w.record();
      }
    }
    return read(
            "read process " + processId, c -> Optional.ofNullable(ProcessRows.byId(c, processId)))
        .orElse(null);
  }

  /** The tasks of a process in task order, pending rows included. */
  public List<TaskRecord> tasks(String processId) {
    List<TaskRows.Write> unwritten = writer.pending(TaskRows.Write.class);
    List<TaskRecord> stored =
        read("read the tasks of " + processId, c -> TaskRows.ofProcess(c, processId));
    return TaskRows.overlay(stored, unwritten, processId);
  }

  // ---------------------------------------------------------------- health

  /**
   * How the writes reach the database.
   *
   * @param failingSince when writes started failing because the database did not answer; null while
   *     it answers
   * @param pendingRows rows only memory holds (changed, not written yet)
   * @param lastError the last failure, while failing
   * @param refusedRows rows the database refused (an error, not an outage) whose state no later
   *     write has brought to it
   * @param lastRefused the latest refused row and the database's message; null when none
   * @param writingSince when the transaction the writer waits for now started; null between
   *     transactions
   */
  public record Status(
      @Nullable Instant failingSince,
      int pendingRows,
      @Nullable String lastError,
      int refusedRows,
      @Nullable String lastRefused,
      @Nullable Instant writingSince) {
    /** Whether the database answers the writes (pending rows are on their way). */
    public boolean inSync() {
      return failingSince == null;
    }
  }

  public Status status() {
    return writer.status();
  }

  /** A cheap round trip on a pooled connection, for the health check. */
  public boolean isReachable() {
    try (Connection c = dataSource.getConnection()) {
      return c.isValid(2);
    } catch (SQLException e) {
      return false;
    }
  }

  /**
   * Refuses writes from now on, writes the pending rows for up to the flush timeout, and closes the
   * pool. Rows the database does not take by then are lost with the process: logged as an error
   * with their count and keys.
   */
  @Override
  public void close() {
    writer.close();
    try {
      dataSource.stop();
    } catch (Exception e) {
      throw new StateStoreException(
          "state store " + redact(url) + ": cannot close: " + e.getMessage(), e);
    }
  }

  static StateStoreException failure(String url, String what, SQLException e) {
    return new StateStoreException(
        "state store " + redact(url) + ": cannot " + what + ": " + e.getMessage(), e);
  }

  /** JDBC URLs may carry a password as a parameter; never print it. */
  static String redact(String url) {
    return url.replaceAll("(?i)(password=)[^&;]*", "$1***");
  }
}
