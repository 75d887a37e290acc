/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import io.firn.core.commit.TaskResult;
import io.firn.core.plan.RewriteTask;
import io.firn.core.protocol.TaskAssignment;
import java.time.Instant;

/** One task and its current attempt; fields guarded by the service lock. */
final class TaskState {
  final OptimizingProcess process;
  final RewriteTask task;
  final TaskAssignment assignment;
  final String group;
  TaskStatus status = TaskStatus.PENDING;
  int attempts;
  String attemptId;
  String workerId;
  Instant leaseExpires;
  Instant notBefore;
  Instant started;
  Instant finished;
  String message = "waiting for a worker";
  TaskResult result;

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
