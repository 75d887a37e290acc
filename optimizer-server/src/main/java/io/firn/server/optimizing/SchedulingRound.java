/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import io.firn.server.policy.PolicyRegistry;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scheduling round the service runs every {@code schedulingInterval} (500 ms) and when a table
 * becomes due (ADR 0044): under the lock it takes the decisions (which tables plan, which wait and
 * why, which maintenance runs), then hands the work to the planner and maintenance threads outside
 * it.
 */
final class SchedulingRound {
  private static final Logger LOG = LoggerFactory.getLogger(SchedulingRound.class);

  private final OptimizingState state;
  private final OptimizingMeters meters;
  private final WorkerEndpoint endpoint;
  private final ProcessPlanner planner;
  private final MaintenanceDispatcher maintenance;
  private final ExecutorService planners;
  private final ExecutorService maintainers;

  SchedulingRound(
      OptimizingState state,
      OptimizingMeters meters,
      WorkerEndpoint endpoint,
      ProcessPlanner planner,
      MaintenanceDispatcher maintenance,
      ExecutorService planners,
      ExecutorService maintainers) {
    this.state = state;
    this.meters = meters;
    this.endpoint = endpoint;
    this.planner = planner;
    this.maintenance = maintenance;
    this.planners = planners;
    this.maintainers = maintainers;
  }

  void runLogged() {
    try {
      run();
    } catch (RuntimeException e) {
      LOG.error("optimizing scheduler round failed; retrying", e);
    }
  }

  /**
   * Expires leases and workers, frees parked tables whose time is over, lets the {@link Scheduler}
   * choose which due tables plan now, and starts one maintenance operation.
   */
  void run() {
    Map<TableState, Scheduler.Scheduling> chosen = new LinkedHashMap<>();
    MaintenanceDispatcher.Due maintain = null;
    state.lock.lock();
    try {
      Instant now = state.clock.instant();
      endpoint.expire(now);
      if (!state.config.isEnabled()) {
        return;
      }
      PolicyRegistry.LoadedPolicy loaded = state.policies.get();
      loaded.policy().groups().keySet().forEach(meters::group);
      Map<Scheduler.Due, TableState> due = new LinkedHashMap<>();
      Map<Scheduler.Due, Scheduler.Scheduling> scheduling = new HashMap<>();
      for (TableState table : state.tables.values()) {
        unparkIfOver(table, now);
        if (isDue(table, now)) {
          Scheduler.Due entry =
              new Scheduler.Due(
                  table.qualified(), table.health, table.dueSince, table.requestedType);
          due.put(entry, table);
          scheduling.put(
              entry,
              Scheduler.schedule(
                  entry, loaded.policy().resolve(table.qualified()), loaded.calendar(), now));
        }
      }
      int running = state.processes.size();
      int max = state.config.getMaxConcurrentProcesses();
      for (Scheduler.Choice choice :
          Scheduler.choose(scheduling, max - running - state.planning, groupLoad(), running, max)) {
        TableState table = due.get(choice.table());
        if (table == null) {
          throw new IllegalStateException(
              "the scheduler chose " + choice.table().table() + ", which is not due");
        }
        String waiting = choice.waiting();
        if (waiting == null) {
          start(table, choice.scheduling());
          chosen.put(table, choice.scheduling());
        } else {
          wait(table, waiting, choice.deferred());
        }
      }
      maintain = maintenance.next(loaded, now, chosen.keySet());
    } finally {
      state.lock.unlock();
    }
    if (maintain != null) {
      MaintenanceDispatcher.Due due = maintain;
      maintainers.execute(() -> maintenance.run(due));
    }
    for (Map.Entry<TableState, Scheduler.Scheduling> entry : chosen.entrySet()) {
      TableState table = entry.getKey();
      Scheduler.Scheduling decision = entry.getValue();
      planners.execute(() -> planner.plan(table, decision));
    }
  }

  private void unparkIfOver(TableState table, Instant now) {
    if (table.status == TableStatus.PARKED
        && table.parkedUntil != null
        && !table.parkedUntil.isAfter(now)) {
      LOG.info("{}: parked time is over; trying again", table.qualified());
      table.parkedUntil = null;
      state.move(table, TableStatus.IDLE);
      state.save(table);
    }
  }

  private static boolean isDue(TableState table, Instant now) {
    return table.needsPlan
        && table.maintenanceRunning == null
        && !table.paused
        && (table.status == TableStatus.IDLE || table.status == TableStatus.PENDING)
        && (table.retryAfter == null || !table.retryAfter.isAfter(now));
  }

  /** A chosen table moves to planning and takes a process slot. Under the lock. */
  private void start(TableState table, Scheduler.Scheduling decision) {
    if (decision.overrode()) {
      meters.maxDelayOverrides.increment();
      LOG.warn(
          "{}: minor optimizing starts outside its windows: health {} is critical and it"
              + " waited longer than max-delay ({})",
          table.qualified(),
          table.health,
          decision.why());
    }
    state.planning++;
    table.plannedGroup = decision.group().name();
    table.rule = decision.effective().rule();
    table.waitingFor = null;
    state.move(table, TableStatus.PLANNING);
    state.save(table);
  }

  /**
   * A due table waits, with the reason shown. Under the lock.
   *
   * @param deferred the counted reason ({@link Scheduler.Choice#deferred()}); null for none
   */
  private void wait(TableState table, String waiting, @Nullable String deferred) {
    if (deferred != null) {
      meters.deferred(deferred);
    }
    boolean changed = !waiting.equals(table.waitingFor);
    table.waitingFor = waiting;
    if (table.status != TableStatus.PENDING || changed) {
      state.move(table, TableStatus.PENDING);
      state.save(table);
    }
  }

  /** Tasks queued or leased per group, and processes being planned. Under the lock. */
  private Map<String, Integer> groupLoad() {
    Map<String, Integer> load = state.queue.load();
    for (TableState table : state.tables.values()) {
      if (table.status == TableStatus.PLANNING && table.plannedGroup != null) {
        load.merge(table.plannedGroup, 1, Integer::sum);
      }
    }
    return load;
  }
}
