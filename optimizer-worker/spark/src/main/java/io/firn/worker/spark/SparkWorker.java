package io.firn.worker.spark;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.firn.core.catalog.CatalogCredentials;
import io.firn.core.catalog.CatalogSettings;
import io.firn.core.catalog.Catalogs;
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
import io.firn.worker.commit.Committer;
import io.firn.worker.remote.ResultCodec;
import io.firn.worker.remote.WorkerOptions;
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
import org.apache.spark.api.java.JavaSparkContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker loop of the Spark application, on the driver: registers once with all its slots
 * (engine {@code spark}, Spark's version), and on each slot thread polls for a task and runs it as
 * a one-partition Spark job on an executor ({@link RewriteFunction}), then hands the result in. A
 * heartbeat thread extends the leases of running attempts and cancels the Spark jobs of attempts
 * the server no longer wants.
 *
 * <p>Same rules as the executor's {@code Worker}: nothing is committed here; a rejected or
 * abandoned attempt's output is deleted; when the answer to a completion is lost the output is kept
 * (it may be committed). After {@link #close()} nothing more is handed in: a stopped application's
 * leases expire and the server redoes those tasks.
 */
public final class SparkWorker implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SparkWorker.class);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);
  private static final int COMPLETE_ATTEMPTS = 5;
  private static final ObjectMapper JSON =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  private final JavaSparkContext spark;
  private final WorkerProtocol server;
  private final WorkerOptions options;
  private final int slots;
  private final Map<String, AtomicBoolean> running = new ConcurrentHashMap<>();
  private final Map<String, Catalog> catalogs = new ConcurrentHashMap<>();
  private final AtomicBoolean stopping = new AtomicBoolean();
  private final AtomicReference<String> refusal = new AtomicReference<>();
  private final AtomicBoolean handInClosed = new AtomicBoolean();
  private final AtomicLong completed = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private final AtomicLong abandoned = new AtomicLong();
  private final List<Thread> threads = new ArrayList<>();
  private final Object registration = new Object();
  private volatile RegisterResponse registered;
  private final Map<String, String> localCatalog =
      CatalogCredentials.localProperties(System.getenv());
  private ScheduledExecutorService heartbeats;
  private long lastHeartbeat = Long.MIN_VALUE;

  /**
   * @param slots tasks leased and run at once, each as its own Spark job
   */
  public SparkWorker(
      JavaSparkContext spark, WorkerProtocol server, WorkerOptions options, int slots) {
    if (slots < 1) {
      throw new IllegalArgumentException("slots = " + slots + ": must be at least 1");
    }
    this.spark = spark;
    this.server = server;
    this.options = options;
    this.slots = slots;
  }

  /** Starts the slot threads and the heartbeat; returns at once. */
  public synchronized void start() {
    if (!threads.isEmpty()) {
      throw new IllegalStateException("worker already started");
    }
    for (int i = 0; i < slots; i++) {
      Thread thread = new Thread(this::slotLoop, "firn-spark-slot-" + i);
      thread.setDaemon(true);
      threads.add(thread);
      thread.start();
    }
    heartbeats =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread thread = new Thread(r, "firn-spark-heartbeat");
              thread.setDaemon(true);
              return thread;
            });
    heartbeats.scheduleWithFixedDelay(this::heartbeat, 250, 250, TimeUnit.MILLISECONDS);
  }

  /**
   * Stops polling and waits up to the drain time for running tasks to be handed in; then cancels
   * the Spark jobs still running. Their output is not handed in.
   */
  @Override
  public void close() throws InterruptedException {
    stopping.set(true);
    long deadline = System.nanoTime() + options.drain().toNanos();
    try {
      for (Thread thread : threads) {
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (left > 0) {
          thread.join(left);
        }
      }
    } finally {
      handInClosed.set(true);
      for (String attempt : running.keySet()) {
        spark.sc().cancelJobGroup(attempt, "the Firn worker stopped");
      }
      for (Thread thread : threads) {
        thread.interrupt();
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

  /** Why the server refused this worker (401/403: a wrong token); null while it is heard. */
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

  /** Attempts abandoned (stale, rejected or stopped), whose output was deleted. */
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
                    options.pollWait().toMillis()));
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
      if (registered == null) {
        registered =
            server.register(
                new RegisterRequest(
                    WorkerProtocol.VERSION,
                    options.name() + "@" + spark.sc().applicationId(),
                    options.group(),
                    slots,
                    "spark",
                    spark.version()));
        LOG.info(
            "registered with the optimizer server as {} (group {}, {} slot(s))",
            registered.workerId(),
            options.group(),
            slots);
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
    String attempt = assignment.attemptId();
    AtomicBoolean abandon = new AtomicBoolean();
    running.put(attempt, abandon);
    try {
      LOG.info(
          "running {} (attempt {}) as a Spark job: {} {} partition {}, {} files to rewrite, {} to"
              + " convert",
          assignment.taskId(),
          attempt,
          assignment.type(),
          assignment.catalog() + "." + assignment.table(),
          assignment.partition().isEmpty() ? "<unpartitioned>" : assignment.partition(),
          assignment.rewrite().size(),
          assignment.convert().size());
      TaskOutcome outcome;
      try {
        outcome = rewriteOnExecutor(session, assignment);
      } catch (RuntimeException e) {
        if (abandon.get() || handInClosed.get()) {
          abandoned.incrementAndGet();
          LOG.info("the Spark job of {} was cancelled: {}", attempt, e.getMessage());
          return;
        }
        fail(session, attempt, "the Spark job failed: " + e);
        return;
      }
      if (outcome.failure() != null) {
        fail(session, attempt, outcome.failure());
        return;
      }
      // The executor never sees the worker secret; the driver signs the completion.
      CompleteRequest request =
          read(outcome.complete()).signedBy(session.workerId(), session.workerSecret());
      if (abandon.get() || handInClosed.get()) {
        drop(session, assignment, request, "the attempt was abandoned or the worker stopped");
        return;
      }
      boolean[] earlierTryLost = {false};
      Ack ack = complete(request, earlierTryLost);
      if (ack != null && !ack.accepted() && earlierTryLost[0]) {
        // An earlier try may have been accepted and committed before its answer was lost (and
        // the server restarted since): the files may be live, never delete them.
        LOG.warn(
            "the completion of {} was refused after an earlier try got no answer ({}); keeping its"
                + " output (it may be committed; orphan cleanup removes it if not)",
            attempt,
            ack.message());
      } else if (ack == null) {
        LOG.error(
            "no answer from the optimizer server to the completion of {}; keeping its output"
                + " (it may be committed; orphan cleanup removes it if not)",
            attempt);
      } else if (ack.accepted()) {
        completed.incrementAndGet();
      } else {
        drop(session, assignment, request, ack.message());
      }
    } finally {
      running.remove(attempt);
    }
  }

  /** One Spark job of one partition holding the assignment; its job group is the attempt id. */
  private TaskOutcome rewriteOnExecutor(RegisterResponse session, TaskAssignment assignment) {
    String catalogsJson;
    String assignmentJson;
    try {
      catalogsJson = JSON.writeValueAsString(catalogs(session));
      assignmentJson = JSON.writeValueAsString(assignment);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write a task as JSON: " + e, e);
    }
    spark.setJobGroup(
        assignment.attemptId(),
        "firn " + assignment.type() + " " + assignment.table() + " " + assignment.taskId(),
        true);
    try {
      return spark
          .parallelize(List.of(assignmentJson), 1)
          .map(new RewriteFunction(session.workerId(), catalogsJson))
          .collect()
          .get(0);
    } finally {
      spark.clearJobGroup();
    }
  }

  private void fail(RegisterResponse session, String attempt, String reason) {
    failed.incrementAndGet();
    LOG.warn("attempt {} failed: {}", attempt, reason);
    if (handInClosed.get()) {
      return;
    }
    try {
      server.fail(
          new FailRequest(
              WorkerProtocol.VERSION, session.workerId(), session.workerSecret(), attempt, reason));
    } catch (RuntimeException e) {
      // The lease expires and the server retries the task anyway.
      LOG.warn("cannot report the failure of {}: {}", attempt, e.toString());
    }
  }

  private Ack complete(CompleteRequest request, boolean[] earlierTryLost) {
    long backoff = 500;
    for (int attempt = 1; attempt <= COMPLETE_ATTEMPTS; attempt++) {
      earlierTryLost[0] = attempt > 1;
      if (handInClosed.get()) {
        return Ack.rejected("the Firn worker stopped before the attempt was handed in");
      }
      try {
        return server.complete(request);
      } catch (UnknownWorkerException e) {
        forget();
        return Ack.rejected(e.getMessage());
      } catch (RuntimeException e) {
        LOG.warn(
            "handing in {} failed (try {}/{}): {}",
            request.attemptId(),
            attempt,
            COMPLETE_ATTEMPTS,
            e.getMessage());
        if (!sleep(backoff)) {
          return null;
        }
        backoff = Math.min(backoff * 2, MAX_BACKOFF.toMillis());
      }
    }
    return null;
  }

  private void drop(
      RegisterResponse session, TaskAssignment assignment, CompleteRequest request, String why) {
    abandoned.incrementAndGet();
    LOG.info("dropping the output of {}: {}", assignment.attemptId(), why);
    try {
      Table table =
          catalog(session, assignment.catalog())
              .loadTable(TableIdentifier.parse(assignment.table()));
      Committer.deleteOutputs(
          table,
          List.of(ResultCodec.decode(request, RewriteFunction.taskNumber(assignment.taskId()))));
    } catch (RuntimeException e) {
      LOG.warn(
          "cannot delete the output of {} (orphan cleanup removes it): {}",
          assignment.attemptId(),
          e.toString());
    }
  }

  private void heartbeat() {
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
          LOG.info("the server asks to abandon attempt {}; cancelling its Spark job", attempt);
          spark.sc().cancelJobGroup(attempt, "the optimizer server abandoned this attempt");
        }
      }
    } catch (UnknownWorkerException e) {
      forget();
    } catch (RuntimeException e) {
      LOG.warn("heartbeat failed: {}", e.getMessage());
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

  private static CompleteRequest read(String json) {
    try {
      return JSON.readValue(json, CompleteRequest.class);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("an executor sent a completion that is not JSON: " + e, e);
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
