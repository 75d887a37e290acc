/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import io.firn.core.optimize.TablePlanner;
import io.firn.core.optimize.UnsupportedTableException;
import io.firn.core.plan.BinPackPlanner;
import io.firn.core.plan.OptimizingPlan;
import io.firn.core.plan.OptimizingType;
import io.firn.core.plan.PartitionPlan;
import io.firn.core.plan.RewriteTask;
import io.firn.core.policy.OptimizingPolicy;
import io.firn.core.policy.PolicyFile.EffectivePolicy;
import io.firn.core.policy.Sizes;
import io.firn.core.protocol.TaskAssignment;
import io.firn.core.protocol.TaskCodec;
import io.firn.server.ServerCatalogs;
import io.firn.worker.executor.RewriteExecutor;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plans a table the scheduler chose (on a planner thread, outside the lock: it reads the table's
 * metadata), cuts the plan to the open windows and to what fits before they close, and starts the
 * process: its tasks queued for workers, groups without tasks committed at once.
 */
final class ProcessPlanner {
  private static final Logger LOG = LoggerFactory.getLogger(ProcessPlanner.class);

  private final OptimizingState state;
  private final ProcessCommitter committer;
  private final ServerCatalogs catalogs;

  ProcessPlanner(OptimizingState state, ProcessCommitter committer, ServerCatalogs catalogs) {
    this.state = state;
    this.committer = committer;
    this.catalogs = catalogs;
  }

  /** Plans the table and starts its process; the table is PLANNING and holds a slot. */
  void plan(TableState table, Scheduler.Scheduling decision) {
    EffectivePolicy effective = decision.effective();
    OptimizingType requested;
    state.lock.lock();
    try {
      requested = table.requestedType;
    } finally {
      state.lock.unlock();
    }
    OptimizingPolicy policy = effective.thresholds();
    if (!decision.allowed().contains(OptimizingType.FULL) && policy.fullByInterval()) {
      // Full work may not start now: plan minor/major instead of holding the partition back.
      policy = policy.withOverrides(Map.of("full.trigger.interval", "off"));
    }
    Table loaded;
    OptimizingPlan plan;
    Instant now = state.clock.instant();
    try {
      loaded = catalogs.load(table.catalog, table.namespace, table.table);
      TablePlanner planner = new TablePlanner(new BinPackPlanner(), policy);
      plan =
          requested == null
              ? planner.planFromCheapSignals(loaded, now)
              : planner.plan(loaded, requested, now);
      if (requested == null) {
        plan = Windows.restrict(plan, decision.allowed());
        plan = sizeToWindows(table, plan, decision.closesAt(), now);
      }
    } catch (UnsupportedTableException e) {
      // Core's message names the table and its format version.
      planningFailed(table, String.valueOf(e.getMessage()), true);
      return;
    } catch (RuntimeException e) {
      LOG.warn("{}: planning failed: {}", table.qualified(), e.toString());
      planningFailed(table, "planning failed: " + e, false);
      return;
    }
    OptimizingProcess process = null;
    List<TaskState> tasks = new ArrayList<>();
    if (plan.hasWork()) {
      process =
          new OptimizingProcess(
              RewriteExecutor.newOperationId(), table, loaded, plan, now, requested);
      process.startedByOverride = decision.overrode();
      tasks = tasks(process, loaded, policy, effective.group().name());
    }
    state.lock.lock();
    try {
      state.planning--;
      table.plannedGroup = null;
      table.requestedType = null;
      if (process == null) {
        table.needsPlan = false;
        String note = plan.note();
        table.reason = note == null || note.isEmpty() ? "nothing due" : note;
        table.dueSince = null;
        state.move(table, TableStatus.IDLE);
        state.save(table);
        return;
      }
      start(table, process, tasks);
    } finally {
      state.lock.unlock();
    }
  }

  /** The process's tasks, each with the assignment a worker receives. */
  private static List<TaskState> tasks(
      OptimizingProcess process, Table loaded, OptimizingPolicy policy, String group) {
    TableState table = process.table;
    OptimizingPlan plan = process.plan;
    String identifier = table.namespace + "." + table.table;
    List<TaskState> tasks = new ArrayList<>();
    // One copy of the schema's and the specs' JSON for all assignments of the process.
    TaskCodec.Encoder encoder = TaskCodec.forTable(loaded);
    for (PartitionPlan partition : plan.duePartitions()) {
      for (RewriteTask task : partition.tasks()) {
        TaskAssignment assignment =
            encoder.encode(
                task,
                table.catalog,
                identifier,
                process.id + "/" + task.id(),
                process.id,
                plan.snapshotId(),
                plan.sequenceNumber(),
                policy.equalityDeleteBloomThreshold());
        TaskState state = new TaskState(process, task, assignment, group);
        process.tasks.put(task.id(), state);
        tasks.add(state);
      }
      process.groups.add(partition.key());
      if (partition.tasks().isEmpty()) {
        // Only dangling delete files to remove: metadata work, no task will ever make this group
        // ready, so it is ready now and committed by the first commit round.
        process.readyGroups.add(partition.key());
      }
    }
    return tasks;
  }

  /** Records and queues a planned process. Under the lock. */
  private void start(TableState table, OptimizingProcess process, List<TaskState> tasks) {
    table.process = process;
    table.lastProcessId = process.id;
    table.waitingFor = null;
    state.processes.put(process.id, process);
    state.move(table, TableStatus.OPTIMIZING);
    state.save(table);
    state.store.saveProcess(process.record(state.clock.instant()));
    state.store.saveTasks(tasks.stream().map(TaskState::record).toList());
    state.queue.addAll(tasks);
    state.taskReady.signalAll();
    LOG.info(
        "{}: process {} started ({}, {} partition(s), {} of them only removing delete files,"
            + " {} task(s), snapshot {})",
        table.qualified(),
        process.id,
        process.type.name().toLowerCase(Locale.ROOT),
        process.groups.size(),
        process.readyGroups.size(),
        tasks.size(),
        process.plan.snapshotId());
    if (!process.readyGroups.isEmpty() || tasks.isEmpty()) {
      // Groups without tasks commit now; with no task at all the commit round also finishes the
      // process (and removes the delete files spanning partitions).
      committer.schedule(process);
    }
  }

  private void planningFailed(TableState table, String message, boolean unsupported) {
    state.lock.lock();
    try {
      state.planning--;
      table.plannedGroup = null;
      table.requestedType = null;
      table.failures++;
      table.reason = message;
      if (unsupported || table.failures >= state.config.getParkAfterFailures()) {
        state.park(table, message);
      } else {
        table.retryAfter =
            state.clock.instant().plus(state.config.getRetryBackoff().toJavaDuration());
        state.move(table, TableStatus.IDLE);
      }
      state.save(table);
    } finally {
      state.lock.unlock();
    }
  }

  /**
   * Cuts the windowed part of a plan to what this table's measured throughput (bytes read per
   * second of its past successful processes) finishes before the window closes, with a 20 % margin.
   * Without a measurement (the first process) nothing is cut.
   */
  private OptimizingPlan sizeToWindows(
      TableState table, OptimizingPlan plan, Map<OptimizingType, Instant> closesAt, Instant now) {
    if (closesAt.isEmpty() || !plan.hasWork()) {
      return plan;
    }
    double throughput = throughput(table);
    if (throughput <= 0) {
      return plan;
    }
    Instant close = closesAt.values().stream().min(Instant::compareTo).orElseThrow();
    double seconds = Math.max(0, Duration.between(now, close).toMillis() / 1e3);
    long budget = (long) (throughput * seconds * 0.8);
    String why =
        String.format(
            Locale.ROOT,
            "at the measured %.1f MiB/s about %s fit before the window closes at %s",
            throughput / (1 << 20),
            Sizes.format(budget),
            close);
    Set<OptimizingType> windowed = closesAt.keySet();
    return Windows.fit(plan, windowed, budget, why);
  }

  /** Bytes read per second over this table's recent successful processes; 0 when unknown. */
  private double throughput(TableState table) {
    long bytes = 0;
    double seconds = 0;
    for (ProcessRecord p :
        state.store.pastProcesses(table.catalog, table.namespace, table.table, 20)) {
      if (p.status() == ProcessStatus.SUCCEEDED && p.finishedAt() != null && p.bytesRead() > 0) {
        bytes += p.bytesRead();
        seconds +=
            Math.max(0.001, Duration.between(p.createdAt(), p.finishedAt()).toMillis() / 1e3);
      }
    }
    return seconds == 0 ? 0 : bytes / seconds;
  }
}
