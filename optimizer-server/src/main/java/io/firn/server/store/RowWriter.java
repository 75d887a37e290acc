package io.firn.server.store;

import static io.firn.server.store.StateStore.redact;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How rows reach the database: writes are serialized under one lock, so a row's writes arrive in
 * the order they were made; each is one transaction on a pooled connection that checks the write
 * fence first (ADR 0021). When the database does not answer, the latest state of each written row
 * is kept here by its key, from then on every write is kept without trying the database, and a
 * thread of its own re-writes the kept rows every {@code retryInterval} until the database has them
 * all (ADR 0016).
 */
final class RowWriter {
  private static final Logger LOG = LoggerFactory.getLogger(RowWriter.class);

  /** Rows written in one transaction when kept rows are re-written. */
  private static final int REWRITE_BATCH = 200;

  /** How often a continuing outage is logged again. */
  private static final Duration REPORT_EVERY = Duration.ofMinutes(1);

  private final String url;
  private final DataSource dataSource;
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

  RowWriter(String url, DataSource dataSource, Duration retryInterval, MeterRegistry meters) {
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

  /** Starts re-writing kept rows every {@code retryInterval}. */
  void start() {
    long every = retryInterval.toMillis();
    retrier.scheduleWithFixedDelay(this::rewriteKept, every, every, TimeUnit.MILLISECONDS);
  }

  void fence(WriteFence fence) {
    this.fence = fence;
  }

  /**
   * Writes {@code writes} in one transaction, or keeps them for re-writing when the database does
   * not answer (or has not answered since an earlier write failed).
   *
   * @throws StateStoreException when the database refuses the rows (not an outage) or the fence
   *     refuses the write
   */
  void write(String what, List<RowWrite> writes) {
    synchronized (writeLock) {
      if (closed) {
        throw new StateStoreException("state store " + redact(url) + " is closed: cannot " + what);
      }
      if (failingSince == null) {
        try {
          inTransaction(writes.size() + " row(s), the first " + writes.get(0).key(), writes);
          return;
        } catch (WriteFailure f) {
          if (!f.outage) {
            throw StateStore.failure(url, what, f.cause);
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

  /** Work inside one fenced transaction of the writer. */
  interface Transaction<T> {
    T run(Connection c) throws SQLException;
  }

  /**
   * Runs {@code work} as one fenced write transaction, in order with the other writes, and never
   * keeps it: when the database does not answer it throws (for start-up, when the database has just
   * answered).
   *
   * @throws StateStoreException when it fails or the fence refuses it
   */
  <T> T writeNow(String what, Transaction<T> work) {
    synchronized (writeLock) {
      try {
        return inTransaction(what, work);
      } catch (WriteFailure f) {
        throw StateStore.failure(url, what, f.cause);
      }
    }
  }

  /** The kept (not yet written) rows of one kind, oldest first. */
  <T extends RowWrite> List<T> kept(Class<T> kind) {
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

  StateStore.Status status() {
    synchronized (writeLock) {
      return new StateStore.Status(failingSince, kept.size(), lastError);
    }
  }

  /**
   * Stops re-writing, tries once more to write the kept rows, and refuses writes from then on. Rows
   * the database still does not take are lost with the process: logged as an error with their
   * count.
   */
  void close() {
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
          inTransaction(batch.size() + " kept row(s), the first " + batch.get(0).key(), batch);
        } catch (WriteFailure f) {
          if (f.outage) {
            stillFailing(f.cause);
            return;
          }
          // A row the database refuses: write one at a time, drop (and log) only the refused.
          done.clear();
          for (RowWrite w : batch) {
            try {
              inTransaction("the kept row " + w.key(), List.of(w));
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

  private void inTransaction(String what, List<RowWrite> writes) throws WriteFailure {
    inTransaction(
        what,
        c -> {
          for (RowWrite w : writes) {
            w.write(c);
          }
          return null;
        });
  }

  /**
   * Runs {@code work} in one transaction on a pooled connection, after the fence.
   *
   * @param what names the rows for the fence's refusal
   */
  private <T> T inTransaction(String what, Transaction<T> work) throws WriteFailure {
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
          Jdbc.rollbackQuietly(c);
          guard.refused(what);
          throw new WriteFailure(
              new SQLException("refused: this server does not hold the leader lease"), false);
        }
        T result = work.run(c);
        c.commit();
        return result;
      } catch (SQLException e) {
        Jdbc.rollbackQuietly(c);
        throw new WriteFailure(e, isOutage(e, c));
      } catch (RuntimeException e) {
        // Not committed by the auto-commit reset below.
        Jdbc.rollbackQuietly(c);
        throw e;
      } finally {
        Jdbc.autoCommitQuietly(c);
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
}
