package io.firn.worker.remote;

import io.firn.core.catalog.CatalogCredentials;
import io.firn.core.catalog.CatalogSettings;
import io.firn.core.catalog.Catalogs;
import io.firn.core.plan.RewriteTask;
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
import io.firn.core.protocol.TaskCodec;
import io.firn.core.protocol.UnknownWorkerException;
import io.firn.core.protocol.WorkerNotAuthorizedException;
import io.firn.core.protocol.WorkerProtocol;
import io.firn.worker.commit.Committer;
import io.firn.worker.executor.RewriteExecutor;
import io.firn.worker.executor.TaskResult;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker loop every runtime hosts (DESIGN.md §4.2): registers, and on each of its slots polls
 * the server for a task, runs it with the {@link RewriteExecutor} and hands the result in. A
 * heartbeat thread extends the leases of running attempts; attempts the server no longer wants are
 * finished but not handed in, and their output is deleted.
 *
 * <p>Nothing is committed here: the server commits. When the server's answer to a completion is
 * lost, the output is kept (it may already be committed); orphan cleanup removes it if not.
 */
public final class Worker implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Worker.class);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);
  private static final int COMPLETE_ATTEMPTS = 5;

  private final WorkerProtocol server;
  private final WorkerSettings settings;
  private final Map<String, Catalog> catalogs = new ConcurrentHashMap<>();
  private final Map<String, AtomicBoolean> running = new ConcurrentHashMap<>();
  private final AtomicBoolean stopping = new AtomicBoolean();
  private final AtomicLong completed = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private final AtomicLong abandoned = new AtomicLong();
  private final List<Thread> slots = new ArrayList<>();
  private final Object registration = new Object();
  private final Map<String, String> localCatalog;
  private final AtomicReference<String> refusal = new AtomicReference<>();
  private volatile RegisterResponse registered;
  private ScheduledExecutorService heartbeats;
  private long lastHeartbeat = Long.MIN_VALUE;

  /** A worker whose own catalog properties come from {@code FIRN_CATALOG_PROPERTIES}, if set. */
  public Worker(WorkerProtocol server, WorkerSettings settings) {
    this(server, settings, CatalogCredentials.localProperties(System.getenv()));
  }

  /**
   * @param localCatalog the worker's own catalog properties ({@code <catalog>.<property>}), laid
   *     over what the server sends (credentials the server withholds, ADR 0017)
   */
  public Worker(WorkerProtocol server, WorkerSettings settings, Map<String, String> localCatalog) {
    this.server = server;
    this.settings = settings;
    this.localCatalog = Map.copyOf(localCatalog);
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
    heartbeats =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread thread = new Thread(r, "firn-worker-heartbeat");
              thread.setDaemon(true);
              return thread;
            });
    heartbeats.scheduleWithFixedDelay(this::heartbeatLogged, 250, 250, TimeUnit.MILLISECONDS);
  }

  /**
   * Stops polling and waits up to the drain time for running tasks to be handed in. Tasks still
   * running after that are abandoned; their leases expire and other workers redo them.
   */
  @Override
  public void close() throws InterruptedException {
    stopping.set(true);
    long deadline = System.nanoTime() + settings.drain().toNanos();
    for (Thread slot : slots) {
      long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
      if (left > 0) {
        slot.join(left);
      }
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

  /** Why the server refused this worker (its token), or null while it has not. */
  public String refusal() {
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

  /** Attempts abandoned (stale or rejected), whose output was deleted. */
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
        if (refusal.compareAndSet(null, e.getMessage())) {
          LOG.error("{}; this worker stops", e.getMessage());
        }
        stopping.set(true);
        return;
      } catch (RuntimeException e) {
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
      if (registered == null) {
        registered =
            server.register(
                new RegisterRequest(
                    WorkerProtocol.VERSION,
                    settings.name(),
                    settings.group(),
                    settings.slots(),
                    settings.engine(),
                    settings.engineVersion()));
        LOG.info(
            "registered with the optimizer server as {} (group {}, {} slot(s))",
            registered.workerId(),
            settings.group(),
            settings.slots());
      }
      return registered;
    }
  }

  private void forget() {
    synchronized (registration) {
      registered = null;
    }
  }

  private void run(RegisterResponse session, TaskAssignment assignment) {
    AtomicBoolean abandon = new AtomicBoolean();
    running.put(assignment.attemptId(), abandon);
    Table table = null;
    TaskResult result = null;
    try {
      table = catalog(session, assignment.catalog()).loadTable(parse(assignment.table()));
      RewriteTask task = TaskCodec.decode(assignment, taskNumber(assignment.taskId()));
      LOG.info(
          "running {} (attempt {}): {} {} partition {}, {} files to rewrite, {} to convert",
          assignment.taskId(),
          assignment.attemptId(),
          assignment.type(),
          assignment.catalog() + "." + assignment.table(),
          assignment.partition().isEmpty() ? "<unpartitioned>" : assignment.partition(),
          assignment.rewrite().size(),
          assignment.convert().size());
      result =
          new RewriteExecutor(assignment.bloomThreshold())
              .execute(table, task, assignment.attemptId());
    } catch (RuntimeException e) {
      failed.incrementAndGet();
      LOG.warn("task {} attempt {} failed: {}", assignment.taskId(), assignment.attemptId(), e);
      try {
        server.fail(
            new FailRequest(
                WorkerProtocol.VERSION,
                session.workerId(),
                session.workerSecret(),
                assignment.attemptId(),
                e.toString()));
      } catch (RuntimeException reportFailed) {
        // The lease expires and the server retries the task anyway.
        LOG.warn("cannot report the failure of {}: {}", assignment.attemptId(), reportFailed);
      }
      running.remove(assignment.attemptId());
      return;
    }
    try {
      if (abandon.get()) {
        abandoned(table, result, assignment, "the server no longer wants this attempt");
        return;
      }
      CompleteRequest request =
          ResultCodec.encode(
              session.workerId(), session.workerSecret(), assignment.attemptId(), table, result);
      HandIn handIn = complete(request);
      Ack ack = handIn.ack();
      if (ack == null) {
        LOG.error(
            "no answer from the optimizer server to the completion of {}; keeping its {} output"
                + " file(s) (they may be committed; orphan cleanup removes them if not)",
            assignment.attemptId(),
            result.dataFiles().size() + result.positionDeletes().size());
      } else if (ack.accepted()) {
        completed.incrementAndGet();
      } else if (handIn.earlierTryLost()) {
        // An earlier try may have been accepted and committed before its answer was lost (and
        // the server restarted since): the files may be live, never delete them.
        LOG.warn(
            "the completion of {} was refused after an earlier try got no answer ({}); keeping its"
                + " output (it may be committed; orphan cleanup removes it if not)",
            assignment.attemptId(),
            ack.message());
      } else {
        abandoned(table, result, assignment, ack.message());
      }
    } finally {
      running.remove(assignment.attemptId());
    }
  }

  /** The server's answer to a completion (null: none), and whether an earlier try got none. */
  private record HandIn(Ack ack, boolean earlierTryLost) {}

  private HandIn complete(CompleteRequest request) {
    long backoff = 500;
    for (int attempt = 1; attempt <= COMPLETE_ATTEMPTS; attempt++) {
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

  private void abandoned(Table table, TaskResult result, TaskAssignment assignment, String why) {
    abandoned.incrementAndGet();
    LOG.info("dropping the output of {}: {}", assignment.attemptId(), why);
    Committer.deleteOutputs(table, List.of(result));
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
        }
      }
    } catch (UnknownWorkerException e) {
      forget();
    } catch (RuntimeException e) {
      LOG.warn("heartbeat failed: {}", e.getMessage());
    }
  }

  private Catalog catalog(RegisterResponse session, String name) {
    return catalogs.computeIfAbsent(
        name,
        n -> {
          for (CatalogSettings settings : session.catalogs()) {
            if (settings.name().equals(n)) {
              return Catalogs.connect(CatalogCredentials.withLocal(settings, localCatalog));
            }
          }
          throw new IllegalStateException(
              "the server sent a task of catalog '" + n + "' but no settings for it");
        });
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
