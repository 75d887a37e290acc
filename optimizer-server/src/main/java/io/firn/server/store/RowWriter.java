/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
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
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How rows reach the database, write-behind (ADR 0023): a write only records the latest state of
 * each row it changes in memory, by the row's key and in the order rows were first changed, and
 * returns; a thread of its own writes the pending rows in transactions of up to {@value #BATCH}
 * rows on a pooled connection, each checking the write fence first (ADR 0021), so that no caller
 * ever waits for the database. When the database does not answer, the rows stay pending and the
 * thread tries again every {@code retryInterval} (ADR 0016); a row the database refuses (not an
 * outage) is dropped, logged and counted, and the health check is red until a later write of that
 * row succeeds.
 */
final class RowWriter {
  private static final Logger LOG = LoggerFactory.getLogger(RowWriter.class);

  /** Rows written in one transaction. */
  static final int BATCH = 200;

  /** How often a continuing outage is logged again. */
  private static final Duration REPORT_EVERY = Duration.ofMinutes(1);

  /** Refused rows remembered by key for the health check; more only raise the count. */
  private static final int REFUSED_KEYS = 1000;

  private final String url;
  private final DataSource dataSource;
  private final Duration retryInterval;
  private final Duration flushTimeout;
  private final Thread thread;
  private final Counter outages;
  private final Counter rowsRefused;
  private final AtomicInteger pendingRows = new AtomicInteger();

  /** Guards the fields below; notified when rows are added or written and when closing. */
  private final Object lock = new Object();

  /** One transaction at a time: the writer thread's and {@link #writeNow}'s. */
  private final Object transactions = new Object();

  /**
   * The latest state of each row the database does not have yet, by row key, in the order rows were
   * first changed. A row stays here while it is written and leaves only when the written state is
   * still its latest.
   */
  private final Map<String, RowWrite> pending = new LinkedHashMap<>();

  /** Rows the database refused, by key, with the refusal; a later written state clears one. */
  private final Map<String, String> refused = new LinkedHashMap<>();

  /** Refused rows not remembered in {@link #refused} (more than {@value #REFUSED_KEYS}). */
  private int refusedUnnamed;

  /** When writes started failing because the database did not answer; null while it answers. */
  private @Nullable Instant failingSince;

  /** When the transaction the writer waits for started; null between transactions. */
  private @Nullable Instant writingSince;

  /** Checked in every transaction when several replicas share the store (ADR 0021). */
  private volatile @Nullable WriteFence fence;

  private @Nullable String lastError;
  private @Nullable Instant lastReport;
  private boolean closing;

  RowWriter(
      String url,
      DataSource dataSource,
      Duration retryInterval,
      Duration flushTimeout,
      MeterRegistry meters) {
    this.url = url;
    this.dataSource = dataSource;
    this.retryInterval = retryInterval;
    this.flushTimeout = flushTimeout;
    this.thread = new Thread(this::run, "firn-state-store-writer");
    thread.setDaemon(true);
    Gauge.builder("firn.state.store.pending.rows", pendingRows, AtomicInteger::get)
        .description(
            "Rows whose latest state only the server's memory holds: changed and not written yet"
                + " (a handful normally; growing while the state store does not answer)")
        .register(meters);
    this.outages =
        Counter.builder("firn.state.store.outages")
            .description(
                "Times writes started failing because the state store did not answer (rows kept"
                    + " in memory from then until it answers)")
            .register(meters);
    this.rowsRefused =
        Counter.builder("firn.state.store.rows.dropped")
            .description(
                "Rows the database refused (an error, not an outage): their state is not written;"
                    + " logged with the row")
            .register(meters);
  }

  /** Starts the writer thread. */
  void start() {
    thread.start();
  }

  void fence(WriteFence fence) {
    this.fence = fence;
  }

  /**
   * Records the latest state of each of {@code writes}' rows for the writer thread and returns: a
   * row already pending takes the newer state in its place.
   *
   * @throws StateStoreException when the store is closed
   */
  void write(String what, List<RowWrite> writes) {
    synchronized (lock) {
      if (closing) {
        throw new StateStoreException("state store " + redact(url) + " is closed: cannot " + what);
      }
      for (RowWrite w : writes) {
        pending.merge(w.key(), w, (older, newer) -> newer.after(older));
      }
      pendingRows.set(pending.size());
      lock.notifyAll();
    }
  }

  /** Work inside one fenced transaction of the writer. */
  interface Transaction<T> {
    T run(Connection c) throws SQLException;
  }

  /**
   * Runs {@code work} as one fenced transaction on the caller's thread, after the pending rows
   * (waits up to the flush timeout for them), and never keeps it: for start-up, when the database
   * has just answered.
   *
   * @throws StateStoreException when it fails or the fence refuses it
   */
  <T> T writeNow(String what, Transaction<T> work) {
    flush(flushTimeout);
    try {
      return inTransaction(what, work);
    } catch (WriteFailure f) {
      throw StateStore.failure(url, what, f.cause);
    }
  }

  /**
   * Waits until the database has every row pending now or later, or {@code timeout} has passed.
   *
   * @return whether nothing is pending
   */
  boolean flush(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (lock) {
      while (!pending.isEmpty()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        try {
          lock.wait(Math.max(1, left / 1_000_000));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
      return true;
    }
  }

  /** The pending (not yet written) rows of one kind, in the order they were first changed. */
  <T extends RowWrite> List<T> pending(Class<T> kind) {
    synchronized (lock) {
      if (pending.isEmpty()) {
        return List.of();
      }
      List<T> all = new ArrayList<>();
      for (RowWrite w : pending.values()) {
        if (kind.isInstance(w)) {
          all.add(kind.cast(w));
        }
      }
      return all;
    }
  }

  StateStore.Status status() {
    synchronized (lock) {
      String lastRefused = null;
      for (Map.Entry<String, String> e : refused.entrySet()) {
        lastRefused = readable(e.getKey()) + ": " + e.getValue();
      }
      return new StateStore.Status(
          failingSince,
          pending.size(),
          lastError,
          refused.size() + refusedUnnamed,
          lastRefused,
          writingSince);
    }
  }

  /**
   * Refuses writes from now on and lets the writer thread write what is pending for up to the flush
   * timeout (trying again every {@code retryInterval} while the database does not answer). Rows
   * still pending then are lost with the process: logged as an error with their count and keys.
   */
  void close() {
    synchronized (lock) {
      if (closing) {
        return;
      }
      closing = true;
      lock.notifyAll();
    }
    try {
      thread.join(Math.max(1, flushTimeout.toMillis()));
      if (thread.isAlive()) {
        // Stuck in the database (or waiting to try again): give up.
        thread.interrupt();
        thread.join(1000);
      }
    } catch (InterruptedException e) {
      thread.interrupt();
      Thread.currentThread().interrupt();
    }
    synchronized (lock) {
      if (!pending.isEmpty()) {
        List<String> keys = new ArrayList<>();
        for (String key : pending.keySet()) {
          if (keys.size() == 20) {
            keys.add("...");
            break;
          }
          keys.add(readable(key));
        }
        LOG.error(
            "state store {}: closing with {} row(s) the database did not take within {} ms"
                + " (failing since {}: {}): their latest state is lost; the next start sees older"
                + " rows: {}",
            redact(url),
            pending.size(),
            flushTimeout.toMillis(),
            failingSince,
            lastError,
            keys);
      }
    }
  }

  /** The writer thread: writes batches of pending rows until closed and nothing is pending. */
  private void run() {
    while (true) {
      List<RowWrite> batch;
      synchronized (lock) {
        try {
          while (pending.isEmpty() && !closing) {
            lock.wait();
          }
        } catch (InterruptedException e) {
          return;
        }
        if (pending.isEmpty()) {
          return;
        }
        batch = new ArrayList<>(Math.min(BATCH, pending.size()));
        for (RowWrite w : pending.values()) {
          batch.add(w);
          if (batch.size() == BATCH) {
            break;
          }
        }
        writingSince = Instant.now();
      }
      boolean written;
      try {
        written = writeBatch(batch);
      } catch (RuntimeException e) {
        // Never let the thread die: it is the only way rows reach the database.
        LOG.error("state store {}: writing {} row(s) failed", redact(url), batch.size(), e);
        written = false;
      } finally {
        synchronized (lock) {
          writingSince = null;
        }
      }
      if (!written && !waitToRetry()) {
        return;
      }
    }
  }

  /**
   * Waits {@code retryInterval} before the next try, or less when closing starts meanwhile (close
   * then gets one prompt try).
   *
   * @return false when interrupted
   */
  private boolean waitToRetry() {
    long end = System.nanoTime() + retryInterval.toNanos();
    synchronized (lock) {
      boolean wasClosing = closing;
      try {
        while (wasClosing || !closing) {
          long left = end - System.nanoTime();
          if (left <= 0) {
            return true;
          }
          lock.wait(Math.max(1, left / 1_000_000));
        }
        return true;
      } catch (InterruptedException e) {
        return false;
      }
    }
  }

  /**
   * Writes one batch in one transaction; on a refusal, its rows one at a time, dropping (and
   * logging) only the refused ones.
   *
   * @return false when the database did not answer (the rows stay pending)
   */
  private boolean writeBatch(List<RowWrite> batch) {
    try {
      inTransaction(batch.size() + " row(s), the first " + readable(batch.get(0).key()), batch);
      written(batch, batch);
      return true;
    } catch (WriteFailure f) {
      if (f.outage) {
        failing(f.cause);
        return false;
      }
      if (f.fenced) {
        fenced(batch);
        return true;
      }
    }
    List<RowWrite> done = new ArrayList<>();
    List<RowWrite> ok = new ArrayList<>();
    for (RowWrite w : batch) {
      try {
        inTransaction("the row " + readable(w.key()), List.of(w));
        ok.add(w);
      } catch (WriteFailure one) {
        if (one.outage) {
          written(done, ok);
          failing(one.cause);
          return false;
        }
        if (one.fenced) {
          written(done, ok);
          fenced(batch.subList(done.size(), batch.size()));
          return true;
        }
        refuse(w, one.cause);
      }
      done.add(w);
    }
    written(done, ok);
    return true;
  }

  /**
   * Removes {@code done} from {@link #pending} unless they changed again meanwhile; {@code ok}, the
   * ones the database took, are no longer refused; ends an outage.
   */
  private void written(List<RowWrite> done, List<RowWrite> ok) {
    synchronized (lock) {
      for (RowWrite w : done) {
        pending.remove(w.key(), w);
      }
      for (RowWrite w : ok) {
        refused.remove(w.key());
      }
      pendingRows.set(pending.size());
      if (failingSince != null && !ok.isEmpty()) {
        LOG.info(
            "state store {}: the database answers again after {}; {} row(s) still pending",
            redact(url),
            Duration.between(failingSince, Instant.now()),
            pending.size());
        failingSince = null;
        lastError = null;
      }
      lock.notifyAll();
    }
  }

  private void refuse(RowWrite w, SQLException e) {
    rowsRefused.increment();
    LOG.error(
        "state store {}: the database refuses the row {}; its state is not written (the next"
            + " change of the row writes it again): {}",
        redact(url),
        readable(w.key()),
        e.getMessage());
    synchronized (lock) {
      String message = String.valueOf(e.getMessage());
      if (refused.remove(w.key()) != null || refused.size() < REFUSED_KEYS) {
        refused.put(w.key(), message);
      } else {
        refusedUnnamed++;
      }
    }
  }

  /** Rows the fence refused: dropped, this server does not lead (the fence has said so). */
  private void fenced(List<RowWrite> rows) {
    LOG.error(
        "state store {}: {} row(s) not written: this server does not hold the leader lease",
        redact(url),
        rows.size());
    written(rows, List.of());
  }

  private void failing(SQLException e) {
    synchronized (lock) {
      lastError = e.toString();
      Instant now = Instant.now();
      if (failingSince == null) {
        outages.increment();
        failingSince = now;
        lastReport = now;
        LOG.error(
            "state store {}: the database does not answer ({}); the server keeps running on its"
                + " in-memory state, keeps the latest state of every changed row and writes them"
                + " when the database answers again (tried every {} ms); until then the"
                + " state-store health check is red and firn_state_store_pending_rows counts the"
                + " kept rows",
            redact(url),
            e.getMessage(),
            retryInterval.toMillis());
      } else if (lastReport == null || !now.isBefore(lastReport.plus(REPORT_EVERY))) {
        lastReport = now;
        LOG.error(
            "state store {}: still not answering after {}; {} row(s) kept in memory: {}",
            redact(url),
            Duration.between(failingSince, now),
            pending.size(),
            e.getMessage());
      } else {
        LOG.debug("state store {}: still not answering: {}", redact(url), e.getMessage());
      }
    }
  }

  /** A row key as logged: its parts separated by slashes. */
  private static String readable(String key) {
    return key.replace('\u0000', '/');
  }

  /**
   * A write that did not happen; {@code outage}: because the database did not answer; {@code
   * fenced}: because the fence refused it.
   */
  private static final class WriteFailure extends Exception {
    private static final long serialVersionUID = 1L;
    final transient SQLException cause;
    final boolean outage;
    final boolean fenced;

    WriteFailure(SQLException cause, boolean outage, boolean fenced) {
      super(cause);
      this.cause = cause;
      this.outage = outage;
      this.fenced = fenced;
    }
  }

  private void inTransaction(String what, List<RowWrite> writes) throws WriteFailure {
    inTransaction(
        what,
        c -> {
          for (RowWrite w : writes) {
            w.write(c);
          }
          return writes.size();
        });
  }

  /**
   * Runs {@code work} in one transaction on a pooled connection, after the fence, one transaction
   * at a time.
   *
   * @param what names the rows for the fence's refusal
   */
  private <T> T inTransaction(String what, Transaction<T> work) throws WriteFailure {
    synchronized (transactions) {
      Connection c;
      try {
        c = dataSource.getConnection();
      } catch (SQLException e) {
        throw new WriteFailure(e, true, false);
      }
      try {
        try {
          c.setAutoCommit(false);
          WriteFence guard = fence;
          if (guard != null && !guard.holds(c)) {
            Jdbc.rollbackQuietly(c);
            guard.refused(what);
            throw new WriteFailure(
                new SQLException("refused: this server does not hold the leader lease"),
                false,
                true);
          }
          T result = work.run(c);
          c.commit();
          return result;
        } catch (SQLException e) {
          Jdbc.rollbackQuietly(c);
          throw new WriteFailure(e, isOutage(e, c), false);
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
