/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import io.firn.core.policy.PolicyFile;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The optimizing tasks waiting for a worker, and the attempts leased to workers: who may take which
 * task next (group, group capacity, retry back-off), the lease and its expiry, and the retry or
 * give-up of a failed attempt.
 *
 * <p>Owns the queue and the attempt index, nothing else; it persists nothing (the caller writes the
 * tasks it changed). Not thread-safe: the {@link OptimizingService} calls it under its lock.
 */
final class TaskQueue {
  /** A worker of this group takes tasks of every group (the in-process worker). */
  static final String ANY_GROUP = "*";

  private final List<TaskState> pending = new ArrayList<>();

  /** Live attempts by id: leased, or handed in and waiting for their group's commit. */
  private final Map<String, TaskState> attempts = new HashMap<>();

  /** Attempts that failed or expired while their process runs: to say why a late call is stale. */
  private final Map<String, TaskState> pastAttempts = new HashMap<>();

  void addAll(Collection<TaskState> tasks) {
    pending.addAll(tasks);
  }

  /**
   * Takes the first pending task the worker's group may take ({@link #ANY_GROUP} takes every group)
   * that is past its back-off and whose group has fewer leased tasks than its capacity.
   *
   * @param groups the policy's groups; a group not listed has no capacity limit
   * @return null when no task may be taken now
   */
  @Nullable TaskState take(String workerGroup, Map<String, PolicyFile.Group> groups, Instant now) {
    Map<String, Integer> leased = new HashMap<>();
    for (TaskState task : attempts.values()) {
      if (task.status == TaskStatus.LEASED) {
        leased.merge(task.group, 1, Integer::sum);
      }
    }
    for (int i = 0; i < pending.size(); i++) {
      TaskState task = pending.get(i);
      if (!workerGroup.equals(ANY_GROUP) && !task.group.equals(workerGroup)) {
        continue;
      }
      Instant notBefore = task.notBefore;
      if (notBefore != null && notBefore.isAfter(now)) {
        continue;
      }
      PolicyFile.Group limits = groups.get(task.group);
      if (limits != null && leased.getOrDefault(task.group, 0) >= limits.capacity()) {
        continue;
      }
      pending.remove(i);
      return task;
    }
    return null;
  }

  /**
   * Leases a taken task to a worker: a new attempt id {@code <process>-t<task>-a<n>}.
   *
   * @return the attempt id
   */
  String lease(TaskState task, String workerId, Instant now, Duration lease) {
    task.attempts++;
    String attemptId = task.process.id + "-t" + task.task.id() + "-a" + task.attempts;
    task.attemptId = attemptId;
    task.workerId = workerId;
    task.status = TaskStatus.LEASED;
    task.leaseExpires = now.plus(lease);
    if (task.started == null) {
      task.started = now;
    }
    attempts.put(attemptId, task);
    return attemptId;
  }

  /** The task of a live attempt, or null. */
  @Nullable TaskState live(String attemptId) {
    return attempts.get(attemptId);
  }

  /** The task of a live or past attempt, or null. */
  @Nullable TaskState attempt(String attemptId) {
    TaskState task = attempts.get(attemptId);
    return task != null ? task : pastAttempts.get(attemptId);
  }

  /** Leased attempts whose lease ran out before {@code now}. */
  List<TaskState> expired(Instant now) {
    return attempts.values().stream()
        .filter(t -> t.status == TaskStatus.LEASED && isBefore(t.leaseExpires, now))
        .toList();
  }

  /** Whether a lease ended before {@code now}; a task that was never leased has no end. */
  private static boolean isBefore(@Nullable Instant leaseExpires, Instant now) {
    return leaseExpires != null && leaseExpires.isBefore(now);
  }

  /**
   * The current attempt of a task failed (or its lease expired): the task goes back to the queue
   * after an exponential back-off, or gives up after {@code maxAttempts}.
   *
   * @return the back-off of the retry, or null when the task gave up (its status is then FAILED)
   */
  @Nullable Duration attemptFailed(
      TaskState task, String message, int maxAttempts, Duration retryBackoff, Instant now) {
    attempts.remove(task.attemptId);
    pastAttempts.put(task.attemptId, task);
    task.message = message;
    if (task.attempts >= maxAttempts) {
      task.status = TaskStatus.FAILED;
      task.finished = now;
      return null;
    }
    Duration backoff = retryBackoff.multipliedBy(1L << Math.min(10, task.attempts - 1));
    task.status = TaskStatus.PENDING;
    task.notBefore = now.plus(backoff);
    pending.add(task);
    return backoff;
  }

  /** A task that will not run (any more): out of the queue and the live attempts. */
  void drop(TaskState task) {
    pending.remove(task);
    if (task.attemptId != null) {
      attempts.remove(task.attemptId);
    }
  }

  /** A process ended: none of its tasks or attempts stays. */
  void ended(OptimizingProcess process) {
    pastAttempts.values().removeIf(t -> t.process == process);
    process.tasks.values().forEach(this::drop);
  }

  boolean hasPending() {
    return !pending.isEmpty();
  }

  int pendingCount() {
    return pending.size();
  }

  int leasedCount() {
    return (int) attempts.values().stream().filter(t -> t.status == TaskStatus.LEASED).count();
  }

  /** Pending tasks of a group. */
  int backlog(String group) {
    return (int) pending.stream().filter(t -> t.group.equals(group)).count();
  }

  /** Attempts leased to a worker now. */
  int runningOn(String workerId) {
    return (int)
        attempts.values().stream()
            .filter(t -> workerId.equals(t.workerId) && t.status == TaskStatus.LEASED)
            .count();
  }

  /** Pending and leased tasks per group. */
  Map<String, Integer> load() {
    Map<String, Integer> load = new HashMap<>();
    for (TaskState task : pending) {
      load.merge(task.group, 1, Integer::sum);
    }
    for (TaskState task : attempts.values()) {
      if (task.status == TaskStatus.LEASED) {
        load.merge(task.group, 1, Integer::sum);
      }
    }
    return load;
  }
}
