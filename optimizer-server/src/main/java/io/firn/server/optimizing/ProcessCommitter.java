/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import io.firn.core.commit.CommitOutcome;
import io.firn.core.commit.Committer;
import io.firn.core.commit.TaskResult;
import io.firn.core.plan.PartitionPlan;
import io.firn.core.table.PartitionKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import org.apache.iceberg.Table;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits the partition groups of running processes as soon as their tasks are done (one commit
 * round per process at a time, on the committer threads, outside the lock), records each outcome,
 * and ends processes: finished (deletes spanning partitions removed), failed or cancelled. The end
 * of a process frees its table in the state machine.
 */
final class ProcessCommitter {
  private static final Logger LOG = LoggerFactory.getLogger(ProcessCommitter.class);

  private final OptimizingState state;
  private final OptimizingMeters meters;
  // Given by start(); processes exist only after it.
  private @Nullable ExecutorService committers;

  ProcessCommitter(OptimizingState state, OptimizingMeters meters) {
    this.state = state;
    this.meters = meters;
  }

  void start(ExecutorService committers) {
    this.committers = committers;
  }

  /** Runs work on a committer thread. */
  private void onCommitter(Runnable work) {
    ExecutorService started = committers;
    if (started == null) {
      throw new IllegalStateException("the process committer has not started: no thread to commit");
    }
    started.execute(work);
  }

  /** Queues a commit round for the process unless one is queued or running. Under the lock. */
  void schedule(OptimizingProcess process) {
    if (process.commitScheduled) {
      return;
    }
    process.commitScheduled = true;
    onCommitter(() -> commitRound(process));
  }

  /**
   * Commits every group that is ready, then finishes the process when every group is done. Rounds
   * of one process never overlap: one committer per table.
   */
  private void commitRound(OptimizingProcess process) {
    List<PartitionPlan> ready = new ArrayList<>();
    List<TaskResult> results = new ArrayList<>();
    state.lock.lock();
    try {
      process.commitScheduled = false;
      if (process.status != ProcessStatus.RUNNING) {
        return;
      }
      for (PartitionKey key : process.readyGroups) {
        ready.add(process.partition(key));
        for (TaskState task : process.tasksOf(key)) {
          results.add(task.result);
        }
      }
      process.readyGroups.clear();
      if (!ready.isEmpty()) {
        state.move(process.table, TableStatus.COMMITTING);
        state.save(process.table);
      }
    } finally {
      state.lock.unlock();
    }
    if (!ready.isEmpty()) {
      rowsBeforeCommit(process);
    }
    List<CommitOutcome> outcomes =
        ready.isEmpty() ? List.of() : commit(process, ready, results, state.mayCommit);
    boolean finish;
    state.lock.lock();
    try {
      for (CommitOutcome outcome : outcomes) {
        record(process, outcome);
      }
      if (process.status == ProcessStatus.RUNNING && !ready.isEmpty()) {
        state.move(process.table, TableStatus.OPTIMIZING);
        state.save(process.table);
        state.store.saveProcess(process.record(state.clock.instant()));
      }
      finish = process.status == ProcessStatus.RUNNING && process.allGroupsFinished();
      if (!finish && !process.readyGroups.isEmpty()) {
        schedule(process);
      }
    } finally {
      state.lock.unlock();
    }
    if (finish) {
      finish(process);
    }
  }

  /** How long a commit waits for the process's rows to reach the state store first. */
  private static final Duration ROWS_BEFORE_COMMIT = Duration.ofSeconds(5);

  /**
   * Waits (outside the lock, bounded) until the state store has written what is pending, the
   * process's own row among it, so that no Iceberg snapshot names a process the store does not know
   * (ADR 0023). During a store outage the commit goes ahead after the wait, as before (ADR 0016).
   */
  private void rowsBeforeCommit(OptimizingProcess process) {
    if (!state.store.flush(ROWS_BEFORE_COMMIT)) {
      LOG.warn(
          "{}: committing process {} before the state store wrote its rows ({} pending): the"
              + " database does not answer",
          process.table.qualified(),
          process.id,
          state.store.status().pendingRows());
    }
  }

  /** Commits ready groups; after an integrity alarm of the process, commits nothing more. */
  private static List<CommitOutcome> commit(
      OptimizingProcess process,
      List<PartitionPlan> ready,
      List<TaskResult> results,
      java.util.function.BooleanSupplier mayCommit) {
    String refusal = null;
    if (!mayCommit.getAsBoolean()) {
      refusal = OptimizingState.NOT_LEADER;
    } else if (process.integrityAlarm) {
      refusal =
          "not committed: an integrity check of this process failed; inspect the table history"
              + " before optimizing it again";
    } else {
      try {
        return new Committer()
            .commitPartitions(process.iceberg, process.plan, ready, results, process.id);
      } catch (RuntimeException e) {
        LOG.error("{}: commit failed unexpectedly", process.table.qualified(), e);
        refusal = e.toString();
      }
    }
    Committer.deleteOutputs(process.iceberg, results);
    List<CommitOutcome> failed = new ArrayList<>();
    for (PartitionPlan partition : ready) {
      failed.add(
          new CommitOutcome(partition.key(), CommitOutcome.Result.FAILED, refusal, -1, 0, 0, 0, 0));
    }
    return failed;
  }

  /** Records one group's outcome on its tasks and the process. Under the lock. */
  private void record(OptimizingProcess process, CommitOutcome outcome) {
    PartitionKey key = outcome.partition();
    process.finishedGroups.add(key);
    boolean committed = outcome.committed();
    if (committed) {
      process.committedGroups.add(key);
    } else {
      process.failureMessages.add(key + ": " + outcome.message());
    }
    if (outcome.result() == CommitOutcome.Result.CONFLICT) {
      meters.conflicts.increment();
    } else if (outcome.result() == CommitOutcome.Result.INTEGRITY_FAILED) {
      meters.integrityFailures.increment();
      process.integrityAlarm = true;
    }
    List<TaskRecord> records = new ArrayList<>();
    for (TaskState task : process.tasksOf(key)) {
      // An integrity alarm after the commit leaves the output live: the tasks are committed.
      task.status = outcome.inTable() ? TaskStatus.COMMITTED : TaskStatus.FAILED;
      task.message = outcome.result().label() + ": " + outcome.message();
      if (committed && task.result != null) {
        process.rowsWritten += task.result.rowsWritten();
        process.bytesRead += task.result.bytesRead();
        process.bytesWritten += task.result.bytesWritten();
      }
      records.add(task.record());
    }
    state.store.saveTasks(records);
    LOG.info(
        "{}: process {} partition {}: {} — {}",
        process.table.qualified(),
        process.id,
        key,
        outcome.result().label(),
        outcome.message());
  }

  /** A group cannot complete (a task gave up): drop its other work. Under the lock. */
  void failGroup(OptimizingProcess process, PartitionKey key, String message) {
    if (process.finishedGroups.contains(key)) {
      return;
    }
    process.finishedGroups.add(key);
    process.failureMessages.add(key + ": " + message);
    List<TaskResult> orphaned = new ArrayList<>();
    List<TaskRecord> records = new ArrayList<>();
    for (TaskState task : process.tasksOf(key)) {
      if (task.status == TaskStatus.SUCCEEDED && task.result != null) {
        orphaned.add(task.result);
      }
      if (task.status != TaskStatus.FAILED) {
        task.status = TaskStatus.CANCELLED;
        task.message = "another task of this partition failed";
        state.queue.drop(task);
      }
      records.add(task.record());
    }
    state.store.saveTasks(records);
    if (!orphaned.isEmpty()) {
      Table table = process.iceberg;
      onCommitter(() -> Committer.deleteOutputs(table, orphaned));
    }
    if (process.allGroupsFinished()) {
      onCommitter(() -> finish(process));
    }
  }

  /** Commits deletes spanning partitions, records the result and frees the table. */
  private void finish(OptimizingProcess process) {
    Set<PartitionKey> committed;
    state.lock.lock();
    try {
      if (process.status != ProcessStatus.RUNNING || process.finishing) {
        return;
      }
      process.finishing = true;
      committed = Set.copyOf(process.committedGroups);
    } finally {
      state.lock.unlock();
    }
    CommitOutcome shared = null;
    boolean sharedSkipped =
        !process.plan.sharedDeletesToRemove().isEmpty() && !state.mayCommit.getAsBoolean();
    if (!process.plan.sharedDeletesToRemove().isEmpty() && !sharedSkipped) {
      rowsBeforeCommit(process);
      try {
        shared =
            new Committer()
                .commitShared(process.iceberg, process.plan, committed, process.id)
                .orElse(null);
      } catch (RuntimeException e) {
        LOG.warn("{}: removing shared delete files failed: {}", process.table.qualified(), e);
      }
    }
    state.lock.lock();
    try {
      boolean sharedOk = !sharedSkipped && (shared == null || shared.committed());
      if (sharedSkipped) {
        process.failureMessages.add("shared deletes: " + OptimizingState.NOT_LEADER);
      }
      if (shared != null && !shared.committed()) {
        process.failureMessages.add("shared deletes: " + shared.message());
        if (shared.result() == CommitOutcome.Result.CONFLICT) {
          meters.conflicts.increment();
        }
      }
      int ok = process.committedGroups.size();
      ProcessStatus status;
      if (ok == process.groups.size() && sharedOk) {
        status = ProcessStatus.SUCCEEDED;
      } else if (ok > 0 || (shared != null && shared.committed())) {
        status = ProcessStatus.PARTIAL;
      } else {
        status = ProcessStatus.FAILED;
      }
      end(process, status, summary(process, status));
    } finally {
      state.lock.unlock();
    }
  }

  private static String summary(OptimizingProcess process, ProcessStatus status) {
    String base =
        process.committedGroups.size() + " of " + process.groups.size() + " partition(s) committed";
    if (status == ProcessStatus.SUCCEEDED) {
      return base;
    }
    return base + "; " + String.join("; ", process.failureMessages);
  }

  /** Ends a process and frees its table. Under the lock. */
  private void end(OptimizingProcess process, ProcessStatus status, String message) {
    if (process.status != ProcessStatus.RUNNING || status == ProcessStatus.RUNNING) {
      throw new IllegalStateException(
          "process "
              + process.id
              + " cannot end as "
              + status.label()
              + ": it is "
              + process.status.label());
    }
    process.status = status;
    process.message = message;
    state.processes.remove(process.id);
    state.queue.ended(process);
    meters.process(process.type, status).increment();
    state.store.saveProcess(process.record(state.clock.instant()));
    TableState table = process.table;
    table.process = null;
    if (status == ProcessStatus.SUCCEEDED) {
      // Plan once more from cheap signals: a table is done when a plan finds nothing due (that
      // plan then clears needsPlan), not when one process ended.
      table.failures = 0;
      table.needsPlan = true;
      table.dueSince = state.clock.instant();
      table.reason =
          "optimized by process " + process.id + " (" + message + "); checking what is still due";
    } else {
      table.needsPlan = true;
      table.reason = "process " + process.id + " " + status.label() + ": " + message;
      if (status != ProcessStatus.CANCELLED && process.committedGroups.isEmpty()) {
        table.failures++;
      }
      table.retryAfter =
          state.clock.instant().plus(state.config.getRetryBackoff().toJavaDuration());
    }
    if (table.failures >= state.config.getParkAfterFailures()) {
      state.park(table, table.reason);
    } else {
      state.move(table, TableStatus.IDLE);
    }
    if (state.tables.get(table.qualified()) == table) {
      state.save(table);
    }
    LOG.info("{}: process {} {}: {}", table.qualified(), process.id, status.label(), message);
  }

  /**
   * Cancels a running process: pending tasks are dropped, running attempts are told to abandon at
   * their next heartbeat, nothing more is committed; groups committed already stay. Under the lock.
   */
  void cancel(OptimizingProcess process, String why) {
    List<TaskResult> uncommitted = new ArrayList<>();
    List<TaskRecord> records = new ArrayList<>();
    for (TaskState task : process.tasks.values()) {
      if (task.status == TaskStatus.SUCCEEDED && task.result != null) {
        uncommitted.add(task.result);
      }
      if (task.status != TaskStatus.COMMITTED && task.status != TaskStatus.FAILED) {
        task.status = TaskStatus.CANCELLED;
        task.message = why;
        records.add(task.record());
      }
    }
    state.store.saveTasks(records);
    process.readyGroups.clear();
    end(process, ProcessStatus.CANCELLED, why);
    if (!uncommitted.isEmpty()) {
      Table table = process.iceberg;
      onCommitter(() -> Committer.deleteOutputs(table, uncommitted));
    }
  }
}
