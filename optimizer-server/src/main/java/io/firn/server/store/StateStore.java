package io.firn.server.store;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.db.ManagedDataSource;
import io.firn.server.StateStoreConfiguration;
import io.firn.server.TableRuntime;
import io.firn.server.optimizing.ProcessRecord;
import io.firn.server.optimizing.TableStateRecord;
import io.firn.server.optimizing.TaskRecord;
import io.firn.server.optimizing.WorkerRecord;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's persistent state in plain JDBC, for H2 (embedded default) and PostgreSQL. The schema
 * is created by versioned migrations recorded in {@code schema_version}; SQL stays in the subset
 * both databases share (no upsert syntax, timestamps as epoch milliseconds).
 *
 * <p>Connections come from a pool (Dropwizard's {@code DataSourceFactory}, tomcat-jdbc) that
 * validates each one when it is borrowed, so a database restart or a terminated session costs at
 * most the write that met it. Every write is one transaction.
 *
 * <p>The server's memory is the truth; the store mirrors the latest state of each row (ADR 0016).
 * When a write fails because the database does not answer, the store keeps that row's latest state
 * in memory (a newer write of the same row replaces it) and returns as if written; from then on
 * every write is kept that way, a background thread re-writes the kept rows every {@code
 * retryInterval} until the database answers, and {@link #status()} reports the outage (the health
 * check is red). A write the database answers with an error (a bad row, not a lost connection)
 * throws {@link StateStoreException} as before. Reads see the kept rows over the database's.
 *
 * <p>Writes are serialized under one lock, so a row's writes reach the database in the order they
 * were made; reads run on their own pooled connections. Callers may hold their own locks while
 * calling in; the store never calls out.
 */
public final class StateStore implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StateStore.class);

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
                      + " NOT NULL")),
          new Migration(
              "leader lease of several replicas",
              List.of(
                  "CREATE TABLE firn_leader ("
                      + " id INTEGER NOT NULL PRIMARY KEY,"
                      + " holder VARCHAR(255),"
                      + " epoch BIGINT NOT NULL,"
                      + " renewed_at_ms BIGINT NOT NULL,"
                      + " expires_at_ms BIGINT NOT NULL,"
                      + " advertised_url VARCHAR(1024))",
                  "INSERT INTO firn_leader"
                      + " (id, holder, epoch, renewed_at_ms, expires_at_ms, advertised_url)"
                      + " VALUES (1, NULL, 0, 0, 0, NULL)")));

  /** One schema change: its statements run in one transaction where the database allows. */
  record Migration(String description, List<String> statements) {}

  private static final int MAX_REASON = 4000;

  /** Rows written in one transaction when kept rows are re-written. */
  private static final int REWRITE_BATCH = 200;

  /** How often a continuing outage is logged again. */
  private static final Duration REPORT_EVERY = Duration.ofMinutes(1);

  private final String url;
  private final ManagedDataSource dataSource;
  private final Duration retryInterval;
  private final ScheduledExecutorService retrier;
  private final Counter outages;
  private final Counter rowsDropped;
  private final AtomicInteger keptRows = new AtomicInteger();

  /** Serializes writes; guards the fields below. */
  private final Object writeLock = new Object();

  /** The latest state of each row the database does not have yet, by row key. */
  private final Map<String, RowWrite> kept = new LinkedHashMap<>();

  /** When writes started failing; null while the database has every row. */
  private @Nullable Instant failingSince;

  /** Checked in every write's transaction when several replicas share the store (ADR 0021). */
  private volatile @Nullable WriteFence fence;

  private @Nullable String lastError;
  private @Nullable Instant lastReport;
  private boolean closed;

  private StateStore(
      String url, ManagedDataSource dataSource, Duration retryInterval, MeterRegistry meters) {
    this.url = url;
    this.dataSource = dataSource;
    this.retryInterval = retryInterval;
    this.retrier =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread thread = new Thread(r, "firn-state-store-rewrite");
              thread.setDaemon(true);
              return thread;
            });
    Gauge.builder("firn.state.store.pending.rows", keptRows, AtomicInteger::get)
        .description(
            "Rows whose latest state only the server's memory holds: their write failed because"
                + " the state store did not answer; re-written when it does")
        .register(meters);
    this.outages =
        Counter.builder("firn.state.store.outages")
            .description(
                "Times writes started failing because the state store did not answer (rows kept"
                    + " in memory from then until it answers)")
            .register(meters);
    this.rowsDropped =
        Counter.builder("firn.state.store.rows.dropped")
            .description("Kept rows the database refused when they were re-written (logged)")
            .register(meters);
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
    StateStore store =
        new StateStore(url, dataSource, configuration.getRetryInterval().toJavaDuration(), meters);
    try {
      dataSource.start();
      try (Connection connection = dataSource.getConnection()) {
        // Connects once before migrating, for a clear message.
        connection.isValid(1);
      } catch (SQLException e) {
        throw new StateStoreException(
            "cannot connect to the state store " + redact(url) + ": " + e.getMessage(), e);
      }
      store.migrate();
    } catch (Exception e) {
      store.close();
      if (e instanceof StateStoreException stateStore) {
        throw stateStore;
      }
      throw new StateStoreException(
          "cannot open the state store " + redact(url) + ": " + e.getMessage(), e);
    }
    long every = store.retryInterval.toMillis();
    store.retrier.scheduleWithFixedDelay(store::rewriteKept, every, every, TimeUnit.MILLISECONDS);
    return store;
  }

  // ---------------------------------------------------------------- schema

  /** The highest applied migration version (0 for an empty database). */
  public int schemaVersion() {
    try (Connection c = dataSource.getConnection()) {
      return schemaVersion(c);
    } catch (SQLException e) {
      throw failure("read schema_version", e);
    }
  }

  private static int schemaVersion(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT MAX(version) FROM schema_version")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  private void migrate() {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(true);
      try (Statement s = c.createStatement()) {
        s.execute(
            "CREATE TABLE IF NOT EXISTS schema_version ("
                + " version INTEGER NOT NULL PRIMARY KEY,"
                + " description VARCHAR(255) NOT NULL,"
                + " applied_at_ms BIGINT NOT NULL)");
      }
      int current = schemaVersion(c);
      for (int version = current + 1; version <= MIGRATIONS.size(); version++) {
        Migration migration = MIGRATIONS.get(version - 1);
        c.setAutoCommit(false);
        try (Statement s = c.createStatement();
            PreparedStatement record =
                c.prepareStatement(
                    "INSERT INTO schema_version (version, description, applied_at_ms)"
                        + " VALUES (?, ?, ?)")) {
          for (String statement : migration.statements()) {
            s.execute(statement);
          }
          record.setInt(1, version);
          record.setString(2, migration.description());
          record.setLong(3, System.currentTimeMillis());
          record.executeUpdate();
          c.commit();
        } catch (SQLException e) {
          rollbackQuietly(c);
          throw failure("apply migration " + version + " (" + migration.description() + ")", e);
        } finally {
          c.setAutoCommit(true);
        }
      }
    } catch (SQLException e) {
      throw failure("migrate", e);
    }
  }

  // ---------------------------------------------------------------- replicas

  /**
   * Makes every later write check {@code fence} in its own transaction first (ADR 0021): a write
   * the fence refuses is not made.
   */
  public void fence(WriteFence fence) {
    this.fence = fence;
  }

  /** The pooled data source, for the leader lease that shares this database. */
  public javax.sql.DataSource dataSource() {
    return dataSource;
  }

  // ---------------------------------------------------------------- writes

  /** Inserts or replaces the row of {@code runtime}'s table. */
  public void save(TableRuntime runtime) {
    write(
        "save the runtime of " + runtime.qualifiedName(), List.of(TableRowWrite.runtime(runtime)));
  }

  /** Forgets a table (dropped, or no longer matched by the patterns). */
  public void delete(String catalog, String namespace, String table) {
    write(
        "delete the runtime of " + catalog + "." + namespace + "." + table,
        List.of(TableRowWrite.delete(catalog, namespace, table)));
  }

  /** Writes the optimizing state (and the planning verdict) of a table the watcher created. */
  public void saveTableState(TableStateRecord state) {
    write(
        "save the optimizing state of "
            + state.catalog()
            + "."
            + state.namespace()
            + "."
            + state.table(),
        List.of(TableRowWrite.state(state)));
  }

  /** Inserts or replaces a process row. */
  public void saveProcess(ProcessRecord p) {
    write("save process " + p.processId(), List.of(new ProcessWrite(p)));
  }

  /** Inserts or replaces task rows, in one transaction. */
  public void saveTasks(List<TaskRecord> tasks) {
    if (tasks.isEmpty()) {
      return;
    }
    List<RowWrite> writes = new ArrayList<>(tasks.size());
    for (TaskRecord t : tasks) {
      writes.add(new TaskWrite(t));
    }
    write("save " + tasks.size() + " task(s) of " + tasks.get(0).processId(), writes);
  }

  /** Inserts or replaces a worker row. */
  public void saveWorker(WorkerRecord w) {
    write("save worker " + w.workerId(), List.of(new WorkerWrite(w.workerId(), w)));
  }

  /** Removes a worker row (it expired or deregistered). */
  public void deleteWorker(String workerId) {
    write("delete worker " + workerId, List.of(new WorkerWrite(workerId, null)));
  }

  /**
   * Marks every process still running as failed with the message, and its unfinished tasks as
   * cancelled, in one transaction; used at start-up, when no process can still be running and the
   * database has just answered (this write is not kept: it throws when it fails).
   *
   * @return the processes changed
   */
  public int failRunningProcesses(String message, Instant now) {
    synchronized (writeLock) {
      try (Connection c = dataSource.getConnection()) {
        c.setAutoCommit(false);
        try (PreparedStatement tasks =
                c.prepareStatement(
                    "UPDATE optimizing_task SET status = 'cancelled', message = ?,"
                        + " finished_at_ms = ? WHERE status IN ('pending', 'leased', 'succeeded')"
                        + " AND process_id IN"
                        + " (SELECT process_id FROM optimizing_process WHERE status = 'running')");
            PreparedStatement processes =
                c.prepareStatement(
                    "UPDATE optimizing_process SET status = 'failed', message = ?,"
                        + " finished_at_ms = ? WHERE status = 'running'")) {
          tasks.setString(1, message);
          tasks.setLong(2, now.toEpochMilli());
          tasks.executeUpdate();
          processes.setString(1, message);
          processes.setLong(2, now.toEpochMilli());
          int changed = processes.executeUpdate();
          c.commit();
          return changed;
        } catch (SQLException e) {
          rollbackQuietly(c);
          throw e;
        } finally {
          autoCommitQuietly(c);
        }
      } catch (SQLException e) {
        throw failure("fail the processes left running", e);
      }
    }
  }

  /**
   * Writes {@code writes} in one transaction, or keeps them for re-writing when the database does
   * not answer (or has not answered since an earlier write failed).
   */
  private void write(String what, List<RowWrite> writes) {
    synchronized (writeLock) {
      if (closed) {
        throw new StateStoreException("state store " + redact(url) + " is closed: cannot " + what);
      }
      if (failingSince == null) {
        try {
          writeInTransaction(writes);
          return;
        } catch (WriteFailure f) {
          if (!f.outage) {
            throw failure(what, f.cause);
          }
          outages.increment();
          failingSince = Instant.now();
          lastError = f.cause.toString();
          lastReport = failingSince;
          LOG.error(
              "state store {}: cannot {} ({}); the server keeps running on its in-memory state,"
                  + " keeps the latest state of every row changed from now on and writes them"
                  + " when the database answers again (tried every {} ms); until then the"
                  + " state-store health check is red and firn_state_store_pending_rows counts the"
                  + " kept rows",
              redact(url),
              what,
              f.cause.getMessage(),
              retryInterval.toMillis());
        }
      }
      for (RowWrite w : writes) {
        kept.merge(w.key(), w, (older, newer) -> newer.after(older));
      }
      keptRows.set(kept.size());
    }
  }

  /**
   * Re-writes the kept rows (on the retry thread). The database work happens outside the write lock
   * so that a slow database never blocks the callers; while rows are kept, callers only add to
   * {@link #kept}, so this thread is the only writer. A row changed again meanwhile stays kept (its
   * newer state is written in the next batch).
   */
  private void rewriteKept() {
    try {
      while (true) {
        List<RowWrite> batch;
        synchronized (writeLock) {
          if (failingSince == null) {
            return;
          }
          if (kept.isEmpty()) {
            LOG.info(
                "state store {}: the database answers again after {}; every kept row is written",
                redact(url),
                Duration.between(failingSince, Instant.now()));
            failingSince = null;
            lastError = null;
            return;
          }
          batch = new ArrayList<>(Math.min(REWRITE_BATCH, kept.size()));
          for (RowWrite w : kept.values()) {
            batch.add(w);
            if (batch.size() == REWRITE_BATCH) {
              break;
            }
          }
        }
        List<RowWrite> done = new ArrayList<>(batch);
        try {
          writeInTransaction(batch);
        } catch (WriteFailure f) {
          if (f.outage) {
            stillFailing(f.cause);
            return;
          }
          // A row the database refuses: write one at a time, drop (and log) only the refused.
          done.clear();
          for (RowWrite w : batch) {
            try {
              writeInTransaction(List.of(w));
            } catch (WriteFailure one) {
              if (one.outage) {
                forget(done);
                stillFailing(one.cause);
                return;
              }
              rowsDropped.increment();
              LOG.error(
                  "state store {}: the database refuses a kept row; dropped: {}: {}",
                  redact(url),
                  w.key(),
                  one.cause.getMessage());
            }
            done.add(w);
          }
        }
        forget(done);
      }
    } catch (RuntimeException e) {
      // Never let the scheduled task die: it is the only way back.
      LOG.error("state store {}: re-writing kept rows failed", redact(url), e);
    }
  }

  /** Removes written rows from {@link #kept} unless they changed again meanwhile. */
  private void forget(List<RowWrite> written) {
    synchronized (writeLock) {
      for (RowWrite w : written) {
        kept.remove(w.key(), w);
      }
      keptRows.set(kept.size());
    }
  }

  private void stillFailing(SQLException e) {
    synchronized (writeLock) {
      lastError = e.toString();
      Instant now = Instant.now();
      if (lastReport == null || !now.isBefore(lastReport.plus(REPORT_EVERY))) {
        lastReport = now;
        LOG.error(
            "state store {}: still not answering after {}; {} row(s) kept in memory: {}",
            redact(url),
            failingSince == null ? Duration.ZERO : Duration.between(failingSince, now),
            kept.size(),
            e.getMessage());
      } else {
        LOG.debug("state store {}: still not answering: {}", redact(url), e.getMessage());
      }
    }
  }

  /** A write that did not happen; {@code outage}: because the database did not answer. */
  private static final class WriteFailure extends Exception {
    private static final long serialVersionUID = 1L;
    final transient SQLException cause;
    final boolean outage;

    WriteFailure(SQLException cause, boolean outage) {
      super(cause);
      this.cause = cause;
      this.outage = outage;
    }
  }

  private void writeInTransaction(List<RowWrite> writes) throws WriteFailure {
    Connection c;
    try {
      c = dataSource.getConnection();
    } catch (SQLException e) {
      throw new WriteFailure(e, true);
    }
    try {
      try {
        c.setAutoCommit(false);
        WriteFence guard = fence;
        if (guard != null && !guard.holds(c)) {
          rollbackQuietly(c);
          guard.refused(writes.size() + " row(s), the first " + writes.get(0).key());
          throw new WriteFailure(
              new SQLException("refused: this server does not hold the leader lease"), false);
        }
        for (RowWrite w : writes) {
          w.write(c);
        }
        c.commit();
      } catch (SQLException e) {
        rollbackQuietly(c);
        throw new WriteFailure(e, isOutage(e, c));
      } finally {
        autoCommitQuietly(c);
      }
    } finally {
      try {
        c.close();
      } catch (SQLException e) {
        LOG.debug("state store: closing a connection failed", e);
      }
    }
  }

  /**
   * Whether a failed statement failed because the database is gone (a closed or broken connection,
   * a server shutting down, too many connections) rather than because of the statement.
   */
  static boolean isOutage(SQLException e, Connection c) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLTransientException
          || t instanceof SQLRecoverableException
          || t instanceof SQLNonTransientConnectionException) {
        return true;
      }
      if (t instanceof SQLException sql && sql.getSQLState() != null) {
        String state = sql.getSQLState();
        // 08: connection exception; 57P: operator intervention (shutdown, terminated backend);
        // 53: insufficient resources (too many connections, disk full); 40: rolled back.
        if (state.startsWith("08")
            || state.startsWith("57P")
            || state.startsWith("53")
            || state.startsWith("40")) {
          return true;
        }
      }
    }
    try {
      return c.isClosed() || !c.isValid(2);
    } catch (SQLException notValid) {
      return true;
    }
  }

  private static void rollbackQuietly(Connection c) {
    try {
      c.rollback();
    } catch (SQLException e) {
      LOG.debug("state store: rollback failed", e);
    }
  }

  private static void autoCommitQuietly(Connection c) {
    try {
      c.setAutoCommit(true);
    } catch (SQLException e) {
      LOG.debug("state store: resetting auto-commit failed", e);
    }
  }

  // ---------------------------------------------------------------- the rows

  /** The latest unwritten state of one row (or its removal), written inside a transaction. */
  private interface RowWrite {
    /** The row's identity: one kept write per key. */
    String key();

    void write(Connection c) throws SQLException;

    /** This write combined with the older kept write of the same key. */
    default RowWrite after(RowWrite older) {
      return this;
    }
  }

  private static String rowKey(String kind, String... parts) {
    return kind + ":" + String.join("\u0000", parts);
  }

  /**
   * A {@code table_runtime} row: the watcher's columns ({@code runtime}) and the optimizing columns
   * ({@code state}) are written by different callers, and both write {@code needs_plan} and {@code
   * reason}; {@code runtimeLast} says which came last.
   */
  private record TableRowWrite(
      String key,
      String catalog,
      String namespace,
      String table,
      boolean deleteFirst,
      @Nullable TableRuntime runtime,
      @Nullable TableStateRecord state,
      boolean runtimeLast)
      implements RowWrite {
    static TableRowWrite runtime(TableRuntime r) {
      return new TableRowWrite(
          rowKey("table", r.catalog(), r.namespace(), r.table()),
          r.catalog(),
          r.namespace(),
          r.table(),
          false,
          r,
          null,
          true);
    }

    static TableRowWrite state(TableStateRecord s) {
      return new TableRowWrite(
          rowKey("table", s.catalog(), s.namespace(), s.table()),
          s.catalog(),
          s.namespace(),
          s.table(),
          false,
          null,
          s,
          false);
    }

    static TableRowWrite delete(String catalog, String namespace, String table) {
      return new TableRowWrite(
          rowKey("table", catalog, namespace, table),
          catalog,
          namespace,
          table,
          true,
          null,
          null,
          false);
    }

    @Override
    public RowWrite after(RowWrite older) {
      if (deleteFirst || !(older instanceof TableRowWrite o)) {
        return this;
      }
      return new TableRowWrite(
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
        deleteTableRow(c, catalog, namespace, table);
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

  private record ProcessWrite(ProcessRecord p) implements RowWrite {
    @Override
    public String key() {
      return rowKey("process", p.processId());
    }

    @Override
    public void write(Connection c) throws SQLException {
      writeProcess(c, p);
    }
  }

  private record TaskWrite(TaskRecord t) implements RowWrite {
    @Override
    public String key() {
      return rowKey("task", t.processId(), Integer.toString(t.taskNumber()));
    }

    @Override
    public void write(Connection c) throws SQLException {
      writeTask(c, t);
    }
  }

  /** {@code worker} null: the row's removal. */
  private record WorkerWrite(String workerId, @Nullable WorkerRecord worker) implements RowWrite {
    @Override
    public String key() {
      return rowKey("worker", workerId);
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

  private static void deleteTableRow(Connection c, String catalog, String namespace, String table)
      throws SQLException {
    try (PreparedStatement delete =
        c.prepareStatement(
            "DELETE FROM table_runtime"
                + " WHERE catalog_name = ? AND namespace_name = ? AND table_name = ?")) {
      delete.setString(1, catalog);
      delete.setString(2, namespace);
      delete.setString(3, table);
      delete.executeUpdate();
    }
  }

  private static void upsertRuntime(Connection c, TableRuntime runtime) throws SQLException {
    String reason = truncate(runtime.reason());
    try (PreparedStatement update =
        c.prepareStatement(
            "UPDATE table_runtime SET snapshot_id = ?, needs_plan = ?, reason = ?,"
                + " evaluated_at_ms = ?, health = ?, data_files = ?, equality_delete_files = ?,"
                + " position_delete_files = ?"
                + " WHERE catalog_name = ? AND namespace_name = ? AND table_name = ?")) {
      setLong(update, 1, runtime.snapshotId());
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
    }
    try (PreparedStatement insert =
        c.prepareStatement(
            "INSERT INTO table_runtime (catalog_name, namespace_name, table_name, snapshot_id,"
                + " needs_plan, reason, evaluated_at_ms, health, data_files,"
                + " equality_delete_files, position_delete_files)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
      insert.setString(1, runtime.catalog());
      insert.setString(2, runtime.namespace());
      insert.setString(3, runtime.table());
      setLong(insert, 4, runtime.snapshotId());
      insert.setBoolean(5, runtime.needsPlan());
      insert.setString(6, reason);
      insert.setLong(7, runtime.evaluatedAt().toEpochMilli());
      insert.setInt(8, runtime.health());
      insert.setLong(9, runtime.dataFiles());
      insert.setLong(10, runtime.equalityDeleteFiles());
      insert.setLong(11, runtime.positionDeleteFiles());
      insert.executeUpdate();
    }
  }

  private static void updateState(Connection c, TableStateRecord state) throws SQLException {
    try (PreparedStatement update =
        c.prepareStatement(
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
    }
  }

  private static void writeProcess(Connection c, ProcessRecord p) throws SQLException {
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
  }

  private static void writeTask(Connection c, TaskRecord t) throws SQLException {
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
      delete.setString(1, t.processId());
      delete.setInt(2, t.taskNumber());
      delete.executeUpdate();
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
      insert.executeUpdate();
    }
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
      throw failure(what, e);
    }
  }

  /** The kept (not yet written) rows of one kind, oldest first. */
  private <T extends RowWrite> List<T> keptOf(Class<T> kind) {
    synchronized (writeLock) {
      if (kept.isEmpty()) {
        return List.of();
      }
      List<T> all = new ArrayList<>();
      for (RowWrite w : kept.values()) {
        if (kind.isInstance(w)) {
          all.add(kind.cast(w));
        }
      }
      return all;
    }
  }

  /** Every table's watcher columns, as stored; read at start-up. */
  public List<TableRuntime> loadAll() {
    return read(
        "load table_runtime",
        c -> {
          List<TableRuntime> all = new ArrayList<>();
          try (Statement s = c.createStatement();
              ResultSet rs =
                  s.executeQuery(
                      "SELECT catalog_name, namespace_name, table_name, snapshot_id, needs_plan,"
                          + " reason, evaluated_at_ms, health, data_files, equality_delete_files,"
                          + " position_delete_files FROM table_runtime"
                          + " ORDER BY catalog_name, namespace_name, table_name")) {
            while (rs.next()) {
              all.add(
                  new TableRuntime(
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
                      rs.getLong(11)));
            }
          }
          return all;
        });
  }

  /** The optimizing state of every known table (rows the watcher created); read at start-up. */
  public List<TableStateRecord> loadTableStates() {
    return read(
        "load the optimizing state of the tables",
        c -> {
          List<TableStateRecord> all = new ArrayList<>();
          try (Statement s = c.createStatement();
              ResultSet rs =
                  s.executeQuery(
                      "SELECT catalog_name, namespace_name, table_name, snapshot_id, needs_plan,"
                          + " reason, evaluated_at_ms, state, state_since_ms, paused,"
                          + " parked_reason, parked_until_ms, failures, last_process_id, health,"
                          + " data_files, equality_delete_files, position_delete_files"
                          + " FROM table_runtime"
                          + " ORDER BY catalog_name, namespace_name, table_name")) {
            while (rs.next()) {
              all.add(
                  new TableStateRecord(
                      rs.getString(1),
                      rs.getString(2),
                      rs.getString(3),
                      longOrNull(rs, 4),
                      rs.getBoolean(5),
                      rs.getString(6),
                      Instant.ofEpochMilli(rs.getLong(7)),
                      rs.getString(8),
                      Instant.ofEpochMilli(rs.getLong(9)),
                      rs.getBoolean(10),
                      rs.getString(11),
                      instant(rs, 12),
                      rs.getInt(13),
                      rs.getString(14),
                      rs.getInt(15),
                      rs.getLong(16),
                      rs.getLong(17),
                      rs.getLong(18)));
            }
          }
          return all;
        });
  }

  /**
   * The newest processes, newest first, kept rows included.
   *
   * @param catalog with namespace and table: only this table's; all three null for every table
   */
  public List<ProcessRecord> processes(
      @Nullable String catalog, @Nullable String namespace, @Nullable String table, int limit) {
    List<ProcessWrite> unwritten = keptOf(ProcessWrite.class);
    String where =
        catalog == null ? "" : " WHERE catalog_name = ? AND namespace_name = ? AND table_name = ?";
    List<ProcessRecord> stored =
        read(
            "read processes",
            c -> {
              List<ProcessRecord> all = new ArrayList<>();
              try (PreparedStatement query =
                  c.prepareStatement(
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
              }
              return all;
            });
    if (unwritten.isEmpty()) {
      return stored;
    }
    Map<String, ProcessRecord> merged = new LinkedHashMap<>();
    for (ProcessRecord p : stored) {
      merged.put(p.processId(), p);
    }
    for (ProcessWrite w : unwritten) {
      ProcessRecord p = w.p();
      if (catalog == null
          || (p.catalog().equals(catalog)
              && p.namespace().equals(namespace)
              && p.table().equals(table))) {
        merged.put(p.processId(), p);
      }
    }
    return merged.values().stream()
        .sorted(
            Comparator.comparing(ProcessRecord::createdAt)
                .reversed()
                .thenComparing(ProcessRecord::processId))
        .limit(limit)
        .toList();
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
      return keptOf(ProcessWrite.class).stream()
          .map(ProcessWrite::p)
          .filter(
              p ->
                  catalog == null
                      || (p.catalog().equals(catalog)
                          && p.namespace().equals(namespace)
                          && p.table().equals(table)))
          .sorted(
              Comparator.comparing(ProcessRecord::createdAt)
                  .reversed()
                  .thenComparing(ProcessRecord::processId))
          .limit(limit)
          .toList();
    }
  }

  /** One process, or null; a kept row wins over the stored one. */
  public @Nullable ProcessRecord process(String processId) {
    for (ProcessWrite w : keptOf(ProcessWrite.class)) {
      if (w.p().processId().equals(processId)) {
        return w.p();
      }
    }
    return read(
        "read process " + processId,
        c -> {
          try (PreparedStatement query =
              c.prepareStatement(PROCESS_COLUMNS + " WHERE process_id = ?")) {
            query.setString(1, processId);
            try (ResultSet rs = query.executeQuery()) {
              return rs.next() ? process(rs) : null;
            }
          }
        });
  }

  /** The tasks of a process in task order, kept rows included. */
  public List<TaskRecord> tasks(String processId) {
    Map<Integer, TaskRecord> merged = new java.util.TreeMap<>();
    List<TaskWrite> unwritten = keptOf(TaskWrite.class);
    List<TaskRecord> stored =
        read(
            "read the tasks of " + processId,
            c -> {
              List<TaskRecord> all = new ArrayList<>();
              try (PreparedStatement query =
                  c.prepareStatement(
                      "SELECT process_id, task_number, partition_path, status, attempts,"
                          + " attempt_id, worker_id, rewrite_files, convert_files, rewrite_bytes,"
                          + " started_at_ms, finished_at_ms, message, rows_read, rows_written,"
                          + " bytes_written FROM optimizing_task WHERE process_id = ?"
                          + " ORDER BY task_number")) {
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
              }
              return all;
            });
    for (TaskRecord t : stored) {
      merged.put(t.taskNumber(), t);
    }
    for (TaskWrite w : unwritten) {
      if (w.t().processId().equals(processId)) {
        merged.put(w.t().taskNumber(), w.t());
      }
    }
    return List.copyOf(merged.values());
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

  private static @Nullable Instant instant(ResultSet rs, int column) throws SQLException {
    long millis = rs.getLong(column);
    return rs.wasNull() ? null : Instant.ofEpochMilli(millis);
  }

  private static @Nullable Long longOrNull(ResultSet rs, int column) throws SQLException {
    long value = rs.getLong(column);
    return rs.wasNull() ? null : value;
  }

  private static void setLong(PreparedStatement statement, int index, @Nullable Long value)
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

  // ---------------------------------------------------------------- health

  /**
   * Whether the database has every row.
   *
   * @param failingSince when writes started failing; null while the database has every row
   * @param pendingRows rows only memory holds
   * @param lastError the last failure, while failing
   */
  public record Status(
      @Nullable Instant failingSince, int pendingRows, @Nullable String lastError) {
    public boolean inSync() {
      return failingSince == null;
    }
  }

  public Status status() {
    synchronized (writeLock) {
      return new Status(failingSince, kept.size(), lastError);
    }
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
   * Stops re-writing, tries once more to write the kept rows, and closes the pool. Rows the
   * database still does not take are lost with the process: logged as an error with their count.
   */
  @Override
  public void close() {
    retrier.shutdown();
    try {
      if (!retrier.awaitTermination(30, TimeUnit.SECONDS)) {
        retrier.shutdownNow();
      }
    } catch (InterruptedException e) {
      retrier.shutdownNow();
      Thread.currentThread().interrupt();
    }
    rewriteKept();
    synchronized (writeLock) {
      closed = true;
      if (!kept.isEmpty()) {
        LOG.error(
            "state store {}: closing with {} row(s) the database never took (down since {}):"
                + " their latest state is lost; the next start sees older rows: {}",
            redact(url),
            kept.size(),
            failingSince,
            lastError);
      }
    }
    try {
      dataSource.stop();
    } catch (Exception e) {
      throw new StateStoreException(
          "state store " + redact(url) + ": cannot close: " + e.getMessage(), e);
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
