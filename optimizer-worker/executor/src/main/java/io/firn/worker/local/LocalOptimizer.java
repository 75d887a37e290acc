/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.local;

import io.firn.core.plan.BinPackPlanner;
import io.firn.core.plan.OptimizingHistory;
import io.firn.core.plan.OptimizingPlan;
import io.firn.core.plan.OptimizingType;
import io.firn.core.plan.PartitionPlan;
import io.firn.core.plan.RewriteTask;
import io.firn.core.policy.OptimizingPolicy;
import io.firn.core.policy.Sizes;
import io.firn.core.table.PartitionKey;
import io.firn.core.table.TableEvaluator;
import io.firn.core.table.TableFileGroups;
import io.firn.core.table.TableScanner;
import io.firn.worker.commit.CommitOutcome;
import io.firn.worker.commit.Committer;
import io.firn.worker.executor.RewriteExecutor;
import io.firn.worker.executor.TaskFailedException;
import io.firn.worker.executor.TaskResult;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;

/**
 * Plans and runs optimizing of one table in this JVM: scan, plan, run tasks on N threads, commit
 * each partition's group. A task that fails (missing or corrupt file) aborts the run before
 * anything is committed; a commit conflict fails only its partition.
 */
public final class LocalOptimizer {
  private static final int HISTORY_DEPTH = 1000;

  private final OptimizingPolicy policy;
  private final int threads;
  private final Consumer<String> progress;

  public LocalOptimizer(OptimizingPolicy policy, int threads, Consumer<String> progress) {
    if (threads < 1) {
      throw new IllegalArgumentException("threads = " + threads + ": must be at least 1");
    }
    this.policy = policy;
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
    checkSupported(table);
    TableFileGroups files = TableScanner.scanInGroups(table);
    return new BinPackPlanner().plan(files, policy, history(table), now, requested);
  }

  /**
   * Plans only the partitions that cheap signals (snapshot summary, partitions metadata table)
   * flag; reads nothing more when none is flagged.
   */
  public OptimizingPlan planFromCheapSignals(Table table, Instant now) {
    checkSupported(table);
    Snapshot current = table.currentSnapshot();
    TableEvaluator.Evaluation evaluation = TableEvaluator.evaluate(table, policy);
    if (!evaluation.needsPlan()) {
      return OptimizingPlan.skipped(
          table.name(),
          current == null ? -1 : current.snapshotId(),
          current == null ? 0 : current.sequenceNumber(),
          evaluation.reason());
    }
    long groupFiles = TableScanner.DEFAULT_GROUP_FILES;
    TableFileGroups files =
        evaluation.partitions().isEmpty()
            ? TableScanner.scanInGroups(
                table, current.snapshotId(), evaluation::includes, groupFiles)
            : TableScanner.scanInGroups(
                table, current.snapshotId(), evaluation.partitions(), groupFiles);
    return new BinPackPlanner().plan(files, policy, history(table), now, null);
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
    List<TaskResult> results = runTasks(table, plan, processId);
    long executed = System.nanoTime();
    List<CommitOutcome> outcomes = commit(table, plan, results, processId);
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
    Committer committer = new Committer();
    List<CommitOutcome> outcomes = new ArrayList<>();
    Set<PartitionKey> committed = new HashSet<>();
    for (CommitOutcome outcome :
        committer.commitPartitions(table, plan, plan.duePartitions(), results, processId)) {
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
    CommitOutcome shared = committer.commitShared(table, plan, committed, processId);
    if (shared != null) {
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

  /**
   * @throws UnsupportedTableException for tables Firn must not optimize
   */
  static void checkSupported(Table table) {
    int version = TableUtil.formatVersion(table);
    if (version != 2) {
      throw new UnsupportedTableException(
          "table "
              + table.name()
              + " is format-version "
              + version
              + "; Firn optimizes format-version 2 tables only (equality deletes and file-scoped"
              + " position deletes). Upgrade with: ALTER TABLE ... SET TBLPROPERTIES"
              + " ('format-version'='2')"
              + (version > 2 ? " — version 3 deletion vectors are not supported yet" : ""));
    }
  }

  /** When Firn last committed each type on this table, from its snapshot summaries. */
  static OptimizingHistory history(Table table) {
    Map<OptimizingType, Instant> last = new EnumMap<>(OptimizingType.class);
    int depth = 0;
    for (Snapshot snapshot : org.apache.iceberg.util.SnapshotUtil.currentAncestors(table)) {
      if (++depth > HISTORY_DEPTH) {
        break;
      }
      String type =
          snapshot.summary() == null ? null : snapshot.summary().get(Committer.OPTIMIZING_TYPE);
      if (type != null) {
        try {
          last.putIfAbsent(
              OptimizingType.parse(type), Instant.ofEpochMilli(snapshot.timestampMillis()));
        } catch (IllegalArgumentException ignored) {
          // A summary written by a newer version; not ours to interpret.
        }
      }
    }
    return new OptimizingHistory(last);
  }
}
