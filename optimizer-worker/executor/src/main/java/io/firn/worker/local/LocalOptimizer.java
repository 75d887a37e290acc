/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.local;

import io.firn.core.commit.CommitOutcome;
import io.firn.core.commit.Committer;
import io.firn.core.commit.TaskResult;
import io.firn.core.optimize.TablePlanner;
import io.firn.core.optimize.UnsupportedTableException;
import io.firn.core.plan.OptimizingPlan;
import io.firn.core.plan.OptimizingType;
import io.firn.core.plan.PartitionPlan;
import io.firn.core.plan.Planner;
import io.firn.core.plan.RewriteTask;
import io.firn.core.policy.OptimizingPolicy;
import io.firn.core.policy.Sizes;
import io.firn.core.table.PartitionKey;
import io.firn.worker.executor.RewriteExecutor;
import io.firn.worker.executor.TaskFailedException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.apache.iceberg.Table;
import org.jspecify.annotations.Nullable;

/**
 * Plans and runs optimizing of one table in this JVM: plan ({@link TablePlanner} with the given
 * {@link Planner}), run tasks on N threads, commit each partition's group. A task that fails
 * (missing or corrupt file) aborts the run before anything is committed; a commit conflict fails
 * only its partition.
 */
public final class LocalOptimizer {
  private final OptimizingPolicy policy;
  private final TablePlanner planning;
  private final int threads;
  private final Consumer<String> progress;

  public LocalOptimizer(
      OptimizingPolicy policy, Planner planner, int threads, Consumer<String> progress) {
    if (threads < 1) {
      throw new IllegalArgumentException("threads = " + threads + ": must be at least 1");
    }
    this.policy = policy;
    this.planning = new TablePlanner(planner, policy);
    this.threads = threads;
    this.progress = progress;
  }

  /**
   * Plans without changing anything.
   *
   * @param requested a type to force, or null to let the policy's triggers decide
   * @throws UnsupportedTableException when the table is not format version 2
   */
  public OptimizingPlan plan(Table table, OptimizingType requested, Instant now) {
    return planning.plan(table, requested, now);
  }

  /**
   * Plans only the partitions that cheap signals (snapshot summary, partitions metadata table)
   * flag; reads nothing more when none is flagged.
   *
   * @throws UnsupportedTableException when the table is not format version 2
   */
  public OptimizingPlan planFromCheapSignals(Table table, Instant now) {
    return planning.planFromCheapSignals(table, now);
  }

  /**
   * Plans, runs and commits.
   *
   * @throws TaskFailedException when a task failed; nothing was committed
   */
  public OptimizeReport optimize(Table table, OptimizingType requested, Instant now) {
    long started = System.nanoTime();
    OptimizingPlan plan =
        requested == null ? planFromCheapSignals(table, now) : plan(table, requested, now);
    long planned = System.nanoTime();
    if (!plan.hasWork()) {
      return new OptimizeReport(
          plan, List.of(), List.of(), planned - started, planned - started, 0);
    }
    String processId = RewriteExecutor.newOperationId();
    // Iceberg's part of the commit that needs only the plan runs while the tasks do (ADR 0045).
    Committer.Prepared prepared = new Committer().prepare(table, plan, processId).orElse(null);
    List<TaskResult> results;
    try {
      results = runTasks(table, plan, processId);
    } catch (RuntimeException e) {
      if (prepared != null) {
        prepared.discard();
      }
      throw e;
    }
    long executed = System.nanoTime();
    List<CommitOutcome> outcomes = commit(table, plan, results, processId, prepared);
    long committed = System.nanoTime();
    return new OptimizeReport(
        plan, results, outcomes, committed - started, planned - started, committed - executed);
  }

  /**
   * Runs every task of a plan on this optimizer's threads. Commits nothing.
   *
   * @throws TaskFailedException when a task failed; the outputs of all tasks were deleted
   */
  public List<TaskResult> runTasks(Table table, OptimizingPlan plan, String processId) {
    List<RewriteTask> tasks = plan.tasks();
    progress.accept(
        String.format(
            Locale.ROOT,
            "%s: %d partition(s) due, %d task(s), %d data files (%s) to rewrite, %d to convert,"
                + " snapshot %d",
            table.name(),
            plan.duePartitions().size(),
            tasks.size(),
            plan.duePartitions().stream().mapToLong(PartitionPlan::rewriteFiles).sum(),
            Sizes.format(
                plan.duePartitions().stream().mapToLong(PartitionPlan::rewriteBytes).sum()),
            plan.duePartitions().stream().mapToLong(PartitionPlan::convertFiles).sum(),
            plan.snapshotId()));
    return runTasks(table, tasks, processId);
  }

  /** Commits each due partition as its own group, then the deletes spanning partitions. */
  public List<CommitOutcome> commit(
      Table table, OptimizingPlan plan, List<TaskResult> results, String processId) {
    return commit(table, plan, results, processId, null);
  }

  /**
   * Commits as {@link #commit(Table, OptimizingPlan, List, String)}, through {@code prepared} (from
   * {@link Committer#prepare}, begun before the tasks ended) when it fits; discards it otherwise.
   */
  public List<CommitOutcome> commit(
      Table table,
      OptimizingPlan plan,
      List<TaskResult> results,
      String processId,
      Committer.@Nullable Prepared prepared) {
    Committer committer = new Committer();
    List<CommitOutcome> outcomes = new ArrayList<>();
    Set<PartitionKey> committed = new HashSet<>();
    for (CommitOutcome outcome :
        committer.commitPartitions(
            table, plan, plan.duePartitions(), results, processId, prepared)) {
      outcomes.add(outcome);
      if (outcome.committed()) {
        committed.add(outcome.partition());
      }
      progress.accept(
          String.format(
              Locale.ROOT,
              "  %-28s %-9s %s",
              outcome.partition(),
              outcome.result().label(),
              outcome.message()));
    }
    Optional<CommitOutcome> sharedOutcome =
        committer.commitShared(table, plan, committed, processId);
    if (sharedOutcome.isPresent()) {
      CommitOutcome shared = sharedOutcome.get();
      outcomes.add(shared);
      progress.accept(
          String.format(
              Locale.ROOT,
              "  %-28s %-9s %s",
              "<shared>",
              shared.result().label(),
              shared.message()));
    }
    return outcomes;
  }

  private List<TaskResult> runTasks(Table table, List<RewriteTask> tasks, String processId) {
    RewriteExecutor executor = new RewriteExecutor(policy.equalityDeleteBloomThreshold());
    ExecutorService pool =
        Executors.newFixedThreadPool(
            Math.min(threads, Math.max(1, tasks.size())),
            r -> {
              Thread t = new Thread(r, "firn-rewrite");
              t.setDaemon(true);
              return t;
            });
    AtomicInteger done = new AtomicInteger();
    CompletionService<TaskResult> completions = new ExecutorCompletionService<>(pool);
    AtomicBoolean abort = new AtomicBoolean();
    List<Future<TaskResult>> futures = new ArrayList<>();
    for (RewriteTask task : tasks) {
      futures.add(
          completions.submit(
              () -> {
                if (abort.get()) {
                  return null;
                }
                TaskResult result = executor.execute(table, task, processId);
                progress.accept(
                    String.format(
                        Locale.ROOT,
                        "  [%d/%d] %s: %d files -> %d, %d converted, %,d rows in, %,d deleted, %.1f s",
                        done.incrementAndGet(),
                        tasks.size(),
                        task.partition(),
                        task.rewrite().size(),
                        result.dataFiles().size(),
                        task.convert().size(),
                        result.rowsRead(),
                        result.rowsDeleted(),
                        result.nanos() / 1e9));
                return result;
              }));
    }
    List<TaskResult> results = new ArrayList<>();
    TaskFailedException failure = null;
    try {
      for (int i = 0; i < futures.size(); i++) {
        Future<TaskResult> next;
        try {
          next = completions.take();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          failure = new TaskFailedException("interrupted while waiting for tasks", e);
          break;
        }
        try {
          results.add(next.get());
        } catch (ExecutionException e) {
          Throwable cause = e.getCause();
          failure =
              cause instanceof TaskFailedException tfe
                  ? tfe
                  : new TaskFailedException("task failed: " + cause, cause);
          break;
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          failure = new TaskFailedException("interrupted while waiting for tasks", e);
          break;
        }
      }
      if (failure != null) {
        // Tasks not yet started skip their work; wait for running ones so their output is
        // deleted too.
        abort.set(true);
        for (Future<TaskResult> future : futures) {
          try {
            TaskResult result = future.get();
            if (result != null && !results.contains(result)) {
              results.add(result);
            }
          } catch (ExecutionException e) {
            // This one failed too; it deleted its own partial output.
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            break;
          }
        }
      }
    } finally {
      pool.shutdownNow();
    }
    if (failure != null) {
      Committer.deleteOutputs(table, results);
      throw new TaskFailedException(
          failure.getMessage() + "; nothing was committed, the table is unchanged",
          failure.getCause());
    }
    return results;
  }
}
