/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.remote;

import io.firn.core.catalog.CatalogCredentials;
import io.firn.core.catalog.CatalogSettings;
import io.firn.core.catalog.Catalogs;
import io.firn.core.commit.Committer;
import io.firn.core.protocol.Ack;
import io.firn.core.protocol.CompleteRequest;
import io.firn.core.protocol.FailRequest;
import io.firn.core.protocol.HeartbeatRequest;
import io.firn.core.protocol.HeartbeatResponse;
import io.firn.core.protocol.PollRequest;
import io.firn.core.protocol.PollResponse;
import io.firn.core.protocol.RegisterRequest;
import io.firn.core.protocol.RegisterResponse;
import io.firn.core.protocol.TaskAssignment;
import io.firn.core.protocol.UnknownWorkerException;
import io.firn.core.protocol.WorkerNotAuthorizedException;
import io.firn.core.protocol.WorkerProtocol;
import io.firn.worker.remote.TaskRunner.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker loop every runtime hosts (ADR 0009, 0029): registers, and on each of its slots polls
 * the server for a task, runs it with its {@link TaskRunner} (by default the executor, in the
 * slot's thread) and hands the result in. A heartbeat thread extends the leases of running attempts
 * and cancels, through the runner, the attempts the server no longer wants; their output is not
 * handed in but deleted.
 *
 * <p>Nothing is committed here: the server commits. When the server's answer to a completion is
 * lost, the output is kept (it may already be committed); orphan cleanup removes it if not. After
 * {@link #close()} nothing more is handed in or reported: the leases of attempts still running
 * expire and the server redoes those tasks.
 */
public final class Worker implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Worker.class);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);
  private static final int COMPLETE_ATTEMPTS = 5;
  private static final String STOPPED = "the Firn worker stopped";

  private final WorkerProtocol server;
  private final WorkerSettings settings;
  private final TaskRunner runner;
  private final Map<String, Catalog> catalogs = new ConcurrentHashMap<>();
  private final Map<String, AtomicBoolean> running = new ConcurrentHashMap<>();
  private final AtomicBoolean stopping = new AtomicBoolean();
  private final AtomicBoolean handInClosed = new AtomicBoolean();
  private final AtomicLong completed = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private final AtomicLong abandoned = new AtomicLong();
  private final List<Thread> slots = new ArrayList<>();
  private final Object registration = new Object();
  private final Map<String, String> localCatalog;
  private final AtomicReference<@Nullable String> refusal = new AtomicReference<>();

  /** The session with the server; null before the first poll and after the server forgot it. */
  private volatile @Nullable RegisterResponse registered;

  /** Started by {@link #start()}; null before. */
  private @Nullable ScheduledExecutorService heartbeats;

  private long lastHeartbeat = Long.MIN_VALUE;

  /**
   * A worker running tasks in its slot threads, whose own catalog properties come from {@code
   * FIRN_CATALOG_PROPERTIES}, if set.
   */
  public Worker(WorkerProtocol server, WorkerSettings settings) {
    this(server, settings, CatalogCredentials.localProperties(System.getenv()));
  }

  /**
   * A worker running tasks in its slot threads ({@link InThreadRunner}).
   *
   * @param localCatalog the worker's own catalog properties ({@code <catalog>.<property>}), laid
   *     over what the server sends (credentials the server withholds, ADR 0017)
   */
  public Worker(WorkerProtocol server, WorkerSettings settings, Map<String, String> localCatalog) {
    this(server, settings, localCatalog, new InThreadRunner());
  }

  /**
   * @param localCatalog the worker's own catalog properties ({@code <catalog>.<property>}), laid
   *     over what the server sends (credentials the server withholds, ADR 0017)
   * @param runner how each leased task runs
   */
  public Worker(
      WorkerProtocol server,
      WorkerSettings settings,
      Map<String, String> localCatalog,
      TaskRunner runner) {
    this.server = server;
    this.settings = settings;
    this.localCatalog = Map.copyOf(localCatalog);
    this.runner = runner;
  }

  /** Starts the slots and the heartbeat; returns at once. Registration happens on first poll. */
  public synchronized void start() {
    if (!slots.isEmpty()) {
      throw new IllegalStateException("worker already started");
    }
    for (int i = 0; i < settings.slots(); i++) {
      Thread slot = new Thread(this::slotLoop, "firn-worker-slot-" + i);
      slot.setDaemon(true);
      slots.add(slot);
      slot.start();
    }
    ScheduledExecutorService beats =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread thread = new Thread(r, "firn-worker-heartbeat");
              thread.setDaemon(true);
              return thread;
            });
    beats.scheduleWithFixedDelay(this::heartbeatLogged, 250, 250, TimeUnit.MILLISECONDS);
    heartbeats = beats;
  }

  /**
   * Stops polling and waits up to the drain time for running tasks to be handed in. Tasks still
   * running after that are abandoned: cancelled through the runner, their slots interrupted, and
   * nothing of them is handed in or reported any more; their leases expire and other workers redo
   * them. Cleans up even when interrupted while waiting.
   */
  @Override
  public void close() throws InterruptedException {
    stopping.set(true);
    long deadline = System.nanoTime() + settings.drain().toNanos();
    try {
      for (Thread slot : slots) {
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (left > 0) {
          slot.join(left);
        }
      }
    } finally {
      handInClosed.set(true);
      for (String attempt : running.keySet()) {
        cancel(attempt, STOPPED);
      }
      for (Thread slot : slots) {
        if (slot.isAlive()) {
          slot.interrupt();
        }
      }
      if (heartbeats != null) {
        heartbeats.shutdownNow();
      }
      for (Catalog catalog : catalogs.values()) {
        if (catalog instanceof AutoCloseable closeable) {
          try {
            closeable.close();
          } catch (Exception e) {
            LOG.debug("closing a catalog", e);
          }
        }
      }
    }
  }

  /** Why the server refused this worker (its token), or null while it has not. */
  public @Nullable String refusal() {
    return refusal.get();
  }

  /** Attempts handed in and accepted. */
  public long completed() {
    return completed.get();
  }

  /** Attempts that failed. */
  public long failed() {
    return failed.get();
  }

  /** Attempts abandoned (stale, rejected, cancelled or stopped); output they wrote was deleted. */
  public long abandoned() {
    return abandoned.get();
  }

  /** The attempts running now. */
  public List<String> runningAttempts() {
    return List.copyOf(running.keySet());
  }

  private void slotLoop() {
    long backoff = 0;
    while (!stopping.get()) {
      try {
        RegisterResponse session = session();
        PollResponse response =
            server.poll(
                new PollRequest(
                    WorkerProtocol.VERSION,
                    session.workerId(),
                    session.workerSecret(),
                    settings.pollWait().toMillis()));
        backoff = 0;
        if (response.task() != null) {
          run(session, response.task());
        }
      } catch (UnknownWorkerException e) {
        LOG.info("{}; registering again", e.getMessage());
        forget();
      } catch (WorkerNotAuthorizedException e) {
        // A wrong or missing token does not fix itself: stop instead of retrying forever.
        if (refusal.compareAndSet(null, e.getMessage())) {
          LOG.error("{}; this worker stops", e.getMessage());
        }
        stopping.set(true);
        return;
      } catch (RuntimeException e) {
        if (stopping.get()) {
          return;
        }
        backoff = backoff == 0 ? 500 : Math.min(backoff * 2, MAX_BACKOFF.toMillis());
        LOG.warn(
            "cannot reach the optimizer server ({}); retrying in {} ms", e.getMessage(), backoff);
        if (!sleep(backoff)) {
          return;
        }
      }
    }
  }

  private RegisterResponse session() {
    RegisterResponse session = registered;
    if (session != null) {
      return session;
    }
    synchronized (registration) {
      RegisterResponse current = registered;
      if (current == null) {
        current =
            server.register(
                new RegisterRequest(
                    WorkerProtocol.VERSION,
                    settings.name(),
                    settings.group(),
                    settings.slots(),
                    settings.engine(),
                    settings.engineVersion()));
        registered = current;
        LOG.info(
            "registered with the optimizer server as {} (group {}, {} slot(s))",
            current.workerId(),
            settings.group(),
            settings.slots());
      }
      return current;
    }
  }

  private void forget() {
    synchronized (registration) {
      registered = null;
    }
  }

  private void run(RegisterResponse session, TaskAssignment assignment) {
    String attempt = assignment.attemptId();
    AtomicBoolean abandon = new AtomicBoolean();
    running.put(attempt, abandon);
    try {
      LOG.info(
          "running {} (attempt {}){}: {} {} partition {}, {} files to rewrite, {} to convert",
          assignment.taskId(),
          attempt,
          runner.where(),
          assignment.type(),
          assignment.catalog() + "." + assignment.table(),
          assignment.partition().isEmpty() ? "<unpartitioned>" : assignment.partition(),
          assignment.rewrite().size(),
          assignment.convert().size());
      Outcome outcome;
      try {
        outcome = runner.run(assignment, lease(session, abandon));
      } catch (RuntimeException e) {
        fail(session, assignment, e.toString(), e);
        return;
      }
      if (outcome instanceof Outcome.Cancelled) {
        abandoned.incrementAndGet();
      } else if (outcome instanceof Outcome.Completed done) {
        String wrong = mismatch(assignment, done.completion());
        if (wrong != null) {
          // Never hand in nor delete files that may be another attempt's.
          fail(session, assignment, wrong, null);
        } else {
          handIn(session, assignment, done.completion(), abandon);
        }
      } else {
        fail(
            session,
            assignment,
            outcome instanceof Outcome.Failed failure
                ? failure.reason()
                : "the task runner returned no outcome",
            null);
      }
    } finally {
      running.remove(attempt);
    }
  }

  /**
   * Why {@code completion} cannot be handed in for {@code assignment}; null when it can. A runtime
   * outside NullAway's checks (a Spark function's result) may hand back no completion at all.
   */
  static @Nullable String mismatch(
      TaskAssignment assignment, @Nullable CompleteRequest completion) {
    if (completion == null) {
      return "the task runner returned no completion";
    }
    if (!assignment.attemptId().equals(completion.attemptId())) {
      return "the task runner returned the completion of attempt "
          + completion.attemptId()
          + " for attempt "
          + assignment.attemptId()
          + "; nothing was handed in";
    }
    return null;
  }

  private void handIn(
      RegisterResponse session,
      TaskAssignment assignment,
      CompleteRequest unsigned,
      AtomicBoolean abandon) {
    CompleteRequest request = unsigned.signedBy(session.workerId(), session.workerSecret());
    if (abandon.get()) {
      drop(session, assignment, request, "the server no longer wants this attempt");
      return;
    }
    HandIn handIn = complete(request);
    Ack ack = handIn.ack();
    if (ack == null) {
      LOG.error(
          "no answer from the optimizer server to the completion of {}; keeping its {} output"
              + " file(s) (they may be committed; orphan cleanup removes them if not)",
          request.attemptId(),
          request.dataFiles().size() + request.deleteFiles().size());
    } else if (ack.accepted()) {
      completed.incrementAndGet();
    } else if (handIn.earlierTryLost()) {
      // An earlier try may have been accepted and committed before its answer was lost (and
      // the server restarted since): the files may be live, never delete them.
      LOG.warn(
          "the completion of {} was refused after an earlier try got no answer ({}); keeping its"
              + " output (it may be committed; orphan cleanup removes it if not)",
          request.attemptId(),
          ack.message());
    } else {
      drop(session, assignment, request, ack.message());
    }
  }

  /** The server's answer to a completion (null: none), and whether an earlier try got none. */
  private record HandIn(@Nullable Ack ack, boolean earlierTryLost) {}

  private HandIn complete(CompleteRequest request) {
    long backoff = 500;
    for (int attempt = 1; attempt <= COMPLETE_ATTEMPTS; attempt++) {
      if (handInClosed.get()) {
        return new HandIn(Ack.rejected(STOPPED + " before the attempt was handed in"), attempt > 1);
      }
      try {
        return new HandIn(server.complete(request), attempt > 1);
      } catch (UnknownWorkerException e) {
        // The server does not know this worker (it restarted, or forgot it): not accepted.
        forget();
        return new HandIn(Ack.rejected(e.getMessage()), attempt > 1);
      } catch (RuntimeException e) {
        LOG.warn(
            "handing in {} failed (try {}/{}): {}",
            request.attemptId(),
            attempt,
            COMPLETE_ATTEMPTS,
            e.getMessage());
        if (!sleep(backoff)) {
          return new HandIn(null, true);
        }
        backoff = Math.min(backoff * 2, MAX_BACKOFF.toMillis());
      }
    }
    return new HandIn(null, true);
  }

  /**
   * Counts a failed attempt and reports it to the server, which decides about retries; after {@link
   * #close()} only counts it (its lease expires).
   *
   * @param cause what the runner threw (its stack trace is logged), or null
   */
  private void fail(
      RegisterResponse session,
      TaskAssignment assignment,
      String reason,
      @Nullable Throwable cause) {
    failed.incrementAndGet();
    LOG.warn(
        "task {} attempt {} failed: {}",
        assignment.taskId(),
        assignment.attemptId(),
        reason,
        cause);
    if (handInClosed.get()) {
      return;
    }
    try {
      server.fail(
          new FailRequest(
              WorkerProtocol.VERSION,
              session.workerId(),
              session.workerSecret(),
              assignment.attemptId(),
              reason));
    } catch (RuntimeException e) {
      // The lease expires and the server retries the task anyway.
      LOG.warn("cannot report the failure of {}: {}", assignment.attemptId(), e.toString());
    }
  }

  /** Counts an abandoned attempt and deletes the output its completion names. */
  private void drop(
      RegisterResponse session, TaskAssignment assignment, CompleteRequest request, String why) {
    abandoned.incrementAndGet();
    LOG.info("dropping the output of {}: {}", assignment.attemptId(), why);
    // A slot that close() interrupted still cleans up once its attempt has ended.
    boolean interrupted = Thread.interrupted();
    try {
      Table table = catalog(session, assignment.catalog()).loadTable(parse(assignment.table()));
      Committer.deleteOutputs(
          table, List.of(ResultCodec.decode(request, assignment, taskNumber(assignment.taskId()))));
    } catch (RuntimeException e) {
      LOG.warn(
          "cannot delete the output of {} (orphan cleanup removes it): {}",
          assignment.attemptId(),
          e.toString());
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void heartbeatLogged() {
    RegisterResponse session = registered;
    if (session == null || running.isEmpty()) {
      return;
    }
    long now = System.nanoTime();
    // At the server's interval, but never less than three times per lease.
    long every = Math.min(session.heartbeatMillis(), Math.max(1, session.leaseMillis() / 3));
    if (lastHeartbeat != Long.MIN_VALUE
        && now - lastHeartbeat < TimeUnit.MILLISECONDS.toNanos(every)) {
      return;
    }
    lastHeartbeat = now;
    try {
      HeartbeatResponse response =
          server.heartbeat(
              new HeartbeatRequest(
                  WorkerProtocol.VERSION,
                  session.workerId(),
                  session.workerSecret(),
                  List.copyOf(running.keySet())));
      for (String attempt : response.abandon()) {
        AtomicBoolean flag = running.get(attempt);
        if (flag != null && !flag.getAndSet(true)) {
          LOG.info("the server asks to abandon attempt {}", attempt);
          cancel(attempt, "the optimizer server abandoned this attempt");
        }
      }
    } catch (UnknownWorkerException e) {
      forget();
    } catch (RuntimeException e) {
      LOG.warn("heartbeat failed: {}", e.getMessage());
    }
  }

  private void cancel(String attempt, String why) {
    try {
      runner.cancel(attempt, why);
    } catch (RuntimeException e) {
      LOG.warn("cannot cancel attempt {}: {}", attempt, e.toString());
    }
  }

  /** The server's catalog settings with this worker's own properties over them (ADR 0017). */
  private List<CatalogSettings> catalogs(RegisterResponse session) {
    return session.catalogs().stream()
        .map(c -> CatalogCredentials.withLocal(c, localCatalog))
        .toList();
  }

  private Catalog catalog(RegisterResponse session, String name) {
    return catalogs.computeIfAbsent(
        name,
        n -> {
          for (CatalogSettings settings : catalogs(session)) {
            if (settings.name().equals(n)) {
              return Catalogs.connect(settings);
            }
          }
          throw new IllegalStateException(
              "the server sent a task of catalog '" + n + "' but no settings for it");
        });
  }

  /** What a runner sees of one attempt of this worker. */
  private TaskRunner.Lease lease(RegisterResponse session, AtomicBoolean abandon) {
    return new TaskRunner.Lease() {
      @Override
      public String workerId() {
        return session.workerId();
      }

      @Override
      public List<CatalogSettings> catalogs() {
        return Worker.this.catalogs(session);
      }

      @Override
      public Catalog catalog(String name) {
        return Worker.this.catalog(session, name);
      }

      @Override
      public boolean stopped() {
        return abandon.get() || handInClosed.get();
      }
    };
  }

  private static TableIdentifier parse(String identifier) {
    return TableIdentifier.parse(identifier);
  }

  /** {@code processId/7} → 7. */
  static int taskNumber(String taskId) {
    int slash = taskId.lastIndexOf('/');
    try {
      return Integer.parseInt(taskId.substring(slash + 1));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private static boolean sleep(long millis) {
    try {
      Thread.sleep(millis);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
