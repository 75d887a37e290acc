/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import io.firn.core.commit.TaskResult;
import io.firn.core.io.DataFileIO;
import io.firn.core.protocol.Ack;
import io.firn.core.protocol.CompleteRequest;
import io.firn.core.protocol.FailRequest;
import io.firn.core.protocol.HeartbeatRequest;
import io.firn.core.protocol.HeartbeatResponse;
import io.firn.core.protocol.PollRequest;
import io.firn.core.protocol.PollResponse;
import io.firn.core.protocol.ProtocolException;
import io.firn.core.protocol.RegisterRequest;
import io.firn.core.protocol.RegisterResponse;
import io.firn.core.protocol.TaskAssignment;
import io.firn.core.protocol.WorkerProtocol;
import io.firn.core.table.PartitionKey;
import io.firn.server.ServerCatalogs;
import io.firn.worker.executor.ResultCheck;
import io.firn.worker.remote.ResultCodec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.FileIO;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server side of the {@link WorkerProtocol} (ADR 0009, ADR 0017): registration, polls that
 * lease tasks, heartbeats that extend leases, and hand-ins checked against the lease and the table
 * before anything is committed. A message is answered only for the worker that proves itself with
 * its secret, and only for leases it holds.
 */
final class WorkerEndpoint implements WorkerProtocol {
  private static final Logger LOG = LoggerFactory.getLogger(WorkerEndpoint.class);
  private static final long MAX_POLL_WAIT_MILLIS = 30_000;
  static final String DEFAULT_GROUP = "default";

  private final OptimizingState state;
  private final OptimizingMeters meters;
  private final ProcessCommitter committer;
  private final ServerCatalogs catalogs;
  private volatile boolean open;

  WorkerEndpoint(
      OptimizingState state,
      OptimizingMeters meters,
      ProcessCommitter committer,
      ServerCatalogs catalogs) {
    this.state = state;
    this.meters = meters;
    this.committer = committer;
    this.catalogs = catalogs;
  }

  /** Polls wait for tasks only while open; closing wakes every waiting poll. */
  void open(boolean open) {
    this.open = open;
    if (!open) {
      state.lock.lock();
      try {
        state.taskReady.signalAll();
      } finally {
        state.lock.unlock();
      }
    }
  }

  @Override
  public RegisterResponse register(RegisterRequest request) {
    WorkerProtocol.checkVersion(request.protocolVersion(), "register");
    WorkerLimits.checkRegistration(request);
    String group = request.group() == null ? DEFAULT_GROUP : request.group();
    WorkerState worker =
        new WorkerState(
            "w-" + UUID.randomUUID().toString().substring(0, 13),
            request.name(),
            group,
            request.slots(),
            request.engine(),
            request.engineVersion() == null ? "unknown" : request.engineVersion(),
            WorkerLimits.newSecret(),
            state.clock.instant());
    state.lock.lock();
    try {
      meters.group(group);
      state.workers.add(worker);
      state.store.saveWorker(worker.record(0));
    } finally {
      state.lock.unlock();
    }
    LOG.info(
        "worker {} registered: {} ({} {}, group {}, {} slot(s))",
        worker.id,
        worker.name,
        worker.engine,
        worker.engineVersion,
        group,
        worker.slots);
    return new RegisterResponse(
        VERSION,
        worker.id,
        worker.secret,
        catalogs.forWorkers(),
        state.config.getLease().toMilliseconds(),
        state.config.getHeartbeatInterval().toMilliseconds());
  }

  @Override
  public PollResponse poll(PollRequest request) {
    WorkerProtocol.checkVersion(request.protocolVersion(), "poll");
    long waitNanos =
        TimeUnit.MILLISECONDS.toNanos(
            Math.max(0, Math.min(request.waitMillis(), MAX_POLL_WAIT_MILLIS)));
    long deadline = System.nanoTime() + waitNanos;
    state.lock.lock();
    try {
      while (true) {
        WorkerState worker = worker(request.workerId(), request.workerSecret(), "poll");
        Instant now = state.clock.instant();
        worker.lastSeen = now;
        TaskState task =
            state.queue.take(worker.group, state.policies.get().policy().groups(), now);
        if (task != null) {
          return new PollResponse(VERSION, lease(task, worker));
        }
        long left = deadline - System.nanoTime();
        if (left <= 0 || !open) {
          return PollResponse.empty();
        }
        state.taskReady.awaitNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(1000)));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return PollResponse.empty();
    } finally {
      state.lock.unlock();
    }
  }

  private TaskAssignment lease(TaskState task, WorkerState worker) {
    Instant now = state.clock.instant();
    Duration lease = state.config.getLease().toJavaDuration();
    String attemptId = state.queue.lease(task, worker.id, now, lease);
    state.store.saveTasks(List.of(task.record()));
    return task.assignment.withLease(attemptId, now.plus(lease).toEpochMilli());
  }

  @Override
  public HeartbeatResponse heartbeat(HeartbeatRequest request) {
    WorkerProtocol.checkVersion(request.protocolVersion(), "heartbeat");
    state.lock.lock();
    try {
      WorkerState worker = worker(request.workerId(), request.workerSecret(), "heartbeat");
      Instant now = state.clock.instant();
      worker.lastSeen = now;
      List<String> abandon = new ArrayList<>();
      for (String attemptId : request.attemptIds()) {
        TaskState task = state.queue.live(attemptId);
        if (task == null || !task.isCurrentLease(attemptId) || !worker.id.equals(task.workerId)) {
          abandon.add(attemptId);
        } else {
          task.leaseExpires = now.plus(state.config.getLease().toJavaDuration());
        }
      }
      return new HeartbeatResponse(VERSION, abandon);
    } finally {
      state.lock.unlock();
    }
  }

  @Override
  public Ack complete(CompleteRequest request) {
    WorkerProtocol.checkVersion(request.protocolVersion(), "complete");
    require(request.attemptId() != null, "complete: attemptId is missing");
    TaskState task;
    WorkerState worker;
    state.lock.lock();
    try {
      worker = worker(request.workerId(), request.workerSecret(), "complete");
      TaskState known = state.queue.attempt(request.attemptId());
      if (known == null) {
        String unknown = unknown(request.attemptId());
        meters.tasks("rejected").increment();
        LOG.info("rejected the completion of {}: {}", request.attemptId(), unknown);
        return Ack.rejected(unknown);
      }
      task = known;
      String foreign = foreignLease(task, worker, request.attemptId(), "complete");
      if (foreign != null) {
        return Ack.rejected(foreign);
      }
      if (task.status == TaskStatus.SUCCEEDED && request.attemptId().equals(task.attemptId)) {
        return Ack.ok(); // a retried completion whose first answer was lost
      }
      String stale = staleness(task, request.attemptId());
      if (stale != null) {
        meters.tasks("rejected").increment();
        LOG.info("rejected the completion of {}: {}", request.attemptId(), stale);
        return Ack.rejected(stale);
      }
    } finally {
      state.lock.unlock();
    }
    // Decode outside the lock: parsing the files' JSON is the expensive part.
    TaskResult result;
    try {
      result = ResultCodec.decode(request, task.assignment, task.task.id());
    } catch (ProtocolException e) {
      fail(
          new FailRequest(
              VERSION,
              worker.id,
              worker.secret,
              request.attemptId(),
              String.valueOf(e.getMessage())));
      throw e;
    }
    // Checked against the lease and the table, outside the lock: it reads files.
    String refused = check(task, worker, request.attemptId(), result);
    state.lock.lock();
    try {
      String stale = staleness(task, request.attemptId());
      if (stale != null) {
        meters.tasks("rejected").increment();
        return Ack.rejected(stale);
      }
      if (refused != null) {
        attemptFailed(task, refused);
        return Ack.rejected(refused);
      }
      task.status = TaskStatus.SUCCEEDED;
      task.finished = state.clock.instant();
      task.result = result;
      task.message = "done";
      meters.tasks("succeeded").increment();
      meters.taskDuration.record(Duration.ofNanos(result.nanos()));
      meters.bytesRead.increment(result.bytesRead());
      meters.bytesWritten.increment(result.bytesWritten());
      state.store.saveTasks(List.of(task.record()));
      OptimizingProcess process = task.process;
      PartitionKey group = task.task.partition();
      if (process.groupDone(group)) {
        process.readyGroups.add(group);
        committer.schedule(process);
      }
      return Ack.ok();
    } finally {
      state.lock.unlock();
    }
  }

  @Override
  public Ack fail(FailRequest request) {
    WorkerProtocol.checkVersion(request.protocolVersion(), "fail");
    require(request.attemptId() != null, "fail: attemptId is missing");
    state.lock.lock();
    try {
      WorkerState worker = worker(request.workerId(), request.workerSecret(), "fail");
      TaskState task = state.queue.attempt(request.attemptId());
      if (task == null) {
        return Ack.rejected(unknown(request.attemptId()));
      }
      String foreign = foreignLease(task, worker, request.attemptId(), "fail");
      if (foreign != null) {
        return Ack.rejected(foreign);
      }
      String stale = staleness(task, request.attemptId());
      if (stale != null) {
        return Ack.rejected(stale);
      }
      attemptFailed(task, "attempt " + request.attemptId() + " failed: " + request.reason());
      return Ack.ok();
    } finally {
      state.lock.unlock();
    }
  }

  /**
   * Expires leases without heartbeats and workers not seen for three lease times. Under the lock.
   */
  void expire(Instant now) {
    for (TaskState task : state.queue.expired(now)) {
      meters.tasks("expired").increment();
      attemptFailed(
          task,
          "the lease of attempt "
              + task.attemptId
              + " on worker "
              + task.workerId
              + " expired (no heartbeat)");
    }
    Duration timeout = state.config.getLease().toJavaDuration().multipliedBy(3);
    for (WorkerState gone : state.workers.expire(now, timeout)) {
      state.store.deleteWorker(gone.id);
    }
    if (state.queue.hasPending()) {
      state.taskReady.signalAll();
    }
  }

  /** Registered workers, with the attempts each holds now. Under the lock. */
  List<WorkerRecord> records() {
    return state.workers.all().stream().map(w -> w.record(state.queue.runningOn(w.id))).toList();
  }

  /** The attempt failed: retried after a back-off, or its group fails. Under the lock. */
  private void attemptFailed(TaskState task, String message) {
    Duration backoff =
        state.queue.attemptFailed(
            task,
            message,
            state.config.getMaxAttempts(),
            state.config.getRetryBackoff().toJavaDuration(),
            state.clock.instant());
    state.store.saveTasks(List.of(task.record()));
    if (backoff == null) {
      meters.tasks("failed").increment();
      LOG.warn(
          "{}: task {} failed {} time(s), giving up on partition {}: {}",
          task.process.table.qualified(),
          task.task.id(),
          task.attempts,
          task.task.partition(),
          message);
      committer.failGroup(task.process, task.task.partition(), message);
    } else {
      LOG.info(
          "{}: task {} attempt {} failed; retrying in {} ms: {}",
          task.process.table.qualified(),
          task.task.id(),
          task.attempts,
          backoff.toMillis(),
          message);
    }
  }

  /**
   * Null when a handed-in result matches its lease and the table ({@link ResultCheck}); else why it
   * is refused, after deleting the files of it that are the attempt's own. Not under the lock.
   */
  private @Nullable String check(
      TaskState task, WorkerState worker, String attemptId, TaskResult result) {
    Table table = task.process.iceberg;
    try {
      ResultCheck.verify(table, task.task, attemptId, result, task.assignment.bloomThreshold());
      return null;
    } catch (ResultCheck.RefusedException e) {
      meters.tasks("refused").increment();
      LOG.warn(
          "{}: refused the result of attempt {} from worker {} ({}): {}; nothing of it is"
              + " committed, the task is retried",
          table.name(),
          attemptId,
          worker.id,
          worker.name,
          e.getMessage());
      FileIO io = DataFileIO.of(table.io());
      List<ContentFile<?>> files = new ArrayList<>(result.dataFiles());
      files.addAll(result.positionDeletes());
      for (ContentFile<?> file : files) {
        if (ResultCheck.ownLocation(table, file.location(), attemptId)) {
          try {
            io.deleteFile(file.location());
          } catch (RuntimeException ignored) {
            // Best effort: orphan cleanup removes what is left.
          }
        }
      }
      return "the result of attempt "
          + attemptId
          + " from worker "
          + worker.id
          + " was refused: "
          + e.getMessage();
    } catch (RuntimeException e) {
      LOG.warn(
          "{}: cannot check the result of attempt {} ({}); the task is retried",
          table.name(),
          attemptId,
          e.toString());
      return "the result of attempt " + attemptId + " could not be checked: " + e.getMessage();
    }
  }

  /**
   * The sender of a message, proven by its secret; a refusal is counted. Under the lock. The id and
   * secret are what the message's JSON held: null when a client left them out, whatever the
   * protocol record's types say.
   */
  private WorkerState worker(@Nullable String workerId, @Nullable String secret, String call) {
    try {
      return state.workers.authenticated(workerId, secret, call);
    } catch (WorkerRefusedException e) {
      meters.tasks("refused").increment();
      throw e;
    }
  }

  /**
   * Null when {@code attemptId} is not the task's current attempt or is leased to {@code worker};
   * else why a worker may not act on another worker's lease. Under the lock.
   */
  private @Nullable String foreignLease(
      TaskState task, WorkerState worker, String attemptId, String call) {
    if (!attemptId.equals(task.attemptId) || worker.id.equals(task.workerId)) {
      return null;
    }
    meters.tasks("refused").increment();
    WorkerState holder = state.workers.get(task.workerId);
    LOG.warn(
        "refused {} of attempt {} from worker {} ({}): the attempt is leased to worker {} ({})",
        call,
        attemptId,
        worker.id,
        worker.name,
        task.workerId,
        holder == null ? "no longer registered" : holder.name);
    return "attempt " + attemptId + " is not leased to worker " + worker.id;
  }

  /** Why a message names an attempt the server does not know. */
  private static String unknown(String attemptId) {
    return "attempt " + attemptId + " is unknown (stale, or the server restarted)";
  }

  /** Null when {@code attemptId} is the live lease of {@code task}, else why not. */
  private static @Nullable String staleness(TaskState task, String attemptId) {
    if (!attemptId.equals(task.attemptId)) {
      return "attempt " + attemptId + " is stale: the task was leased again as " + task.attemptId;
    }
    if (task.process.status != ProcessStatus.RUNNING) {
      return "attempt "
          + attemptId
          + " belongs to process "
          + task.process.id
          + ", which is "
          + task.process.status.label();
    }
    if (task.status != TaskStatus.LEASED) {
      return "attempt " + attemptId + " is no longer leased (task " + task.status.label() + ")";
    }
    return null;
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new ProtocolException(message);
    }
  }
}
