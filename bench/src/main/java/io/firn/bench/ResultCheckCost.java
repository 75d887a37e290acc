/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.bench;

import io.firn.core.commit.Committer;
import io.firn.core.commit.TaskResult;
import io.firn.core.plan.BinPackPlanner;
import io.firn.core.plan.OptimizingPlan;
import io.firn.core.plan.OptimizingType;
import io.firn.core.plan.RewriteTask;
import io.firn.core.policy.OptimizingPolicy;
import io.firn.worker.executor.ResultCheck;
import io.firn.worker.local.LocalOptimizer;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import org.apache.iceberg.Table;

/**
 * What the server's check of a handed-in result costs next to the rewrite it checks: plans one
 * table, runs every task on one thread (the executor's time), checks every result as the server
 * does ({@link ResultCheck}, one thread), deletes the outputs and commits nothing. Prints one line:
 * {@code result-check <label>: tasks N, rows R, rewrite X s, check Y s, check/rewrite Z}.
 */
public final class ResultCheckCost {
  private ResultCheckCost() {}

  public static void main(String[] args) throws Exception {
    BenchArgs a = new BenchArgs(args);
    Table table = a.loadTable();
    OptimizingType type = OptimizingType.parse(a.get("type", "full"));
    String label = a.get("label", table.name());
    int rounds = (int) a.getLong("rounds", 3);
    LocalOptimizer optimizer =
        new LocalOptimizer(OptimizingPolicy.DEFAULTS, new BinPackPlanner(), 1, line -> {});
    OptimizingPlan plan = optimizer.plan(table, type, Instant.now());
    List<RewriteTask> tasks = plan.tasks();
    long bestRewrite = Long.MAX_VALUE;
    long bestCheck = Long.MAX_VALUE;
    long rows = 0;
    for (int round = 0; round < rounds; round++) {
      String attempt = "firn-bench-" + round;
      long started = System.nanoTime();
      List<TaskResult> results = optimizer.runTasks(table, plan, attempt);
      long rewrite = System.nanoTime() - started;
      started = System.nanoTime();
      for (TaskResult result : results) {
        RewriteTask task = tasks.stream().filter(t -> t.id() == result.taskId()).findFirst().get();
        ResultCheck.verify(table, task, attempt, result, 1_000_000);
      }
      long check = System.nanoTime() - started;
      rows = results.stream().mapToLong(TaskResult::rowsRead).sum();
      Committer.deleteOutputs(table, results);
      bestRewrite = Math.min(bestRewrite, rewrite);
      bestCheck = Math.min(bestCheck, check);
    }
    System.out.printf(
        Locale.ROOT,
        "result-check %s: tasks %d, rows %d, rewrite %.2f s, check %.2f s, check/rewrite %.2f%n",
        label,
        tasks.size(),
        rows,
        bestRewrite / 1e9,
        bestCheck / 1e9,
        (double) bestCheck / bestRewrite);
  }
}
