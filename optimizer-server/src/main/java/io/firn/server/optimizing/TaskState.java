/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import io.firn.core.commit.TaskResult;
import io.firn.core.plan.RewriteTask;
import io.firn.core.protocol.TaskAssignment;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/** One task and its current attempt; fields guarded by the service lock. */
final class TaskState {
  final OptimizingProcess process;
  final RewriteTask task;
  final TaskAssignment assignment;
  final String group;
  TaskStatus status = TaskStatus.PENDING;
  int attempts;

  /** The current (or last) attempt and the worker it is leased to; null before the first lease. */
  @Nullable String attemptId;

  @Nullable String workerId;

  /** When the current lease runs out; null before the first lease. */
  @Nullable Instant leaseExpires;

  /** A retried task waits until then; null before its first failure. */
  @Nullable Instant notBefore;

  /** When the first attempt started and when the task ended; null before. */
  @Nullable Instant started;

  @Nullable Instant finished;
  String message = "waiting for a worker";

  /** The checked result of the succeeded attempt; null before it succeeded. */
  @Nullable TaskResult result;

  TaskState(OptimizingProcess process, RewriteTask task, TaskAssignment assignment, String group) {
    this.process = process;
    this.task = task;
    this.assignment = assignment;
    this.group = group;
  }

  boolean isCurrentLease(String attempt) {
    return attempt.equals(attemptId)
        && status == TaskStatus.LEASED
        && process.status == ProcessStatus.RUNNING;
  }

  TaskRecord record() {
    return new TaskRecord(
        process.id,
        task.id(),
        task.partition().toString(),
        status,
        attempts,
        attemptId,
        workerId,
        task.rewrite().size(),
        task.convert().size(),
        task.rewriteBytes(),
        started,
        finished,
        message,
        result == null ? 0 : result.rowsRead(),
        result == null ? 0 : result.rowsWritten(),
        result == null ? 0 : result.bytesWritten());
  }
}
