/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import io.dropwizard.lifecycle.Managed;
import io.firn.core.maintenance.MaintenanceSettings;
import io.firn.core.optimize.TablePlanner;
import io.firn.core.plan.BinPackPlanner;
import io.firn.core.plan.OptimizingPlan;
import io.firn.core.plan.OptimizingType;
import io.firn.core.policy.OptimizingPolicy;
import io.firn.core.policy.PolicyFile;
import io.firn.core.policy.PolicyFile.EffectivePolicy;
import io.firn.core.protocol.Ack;
import io.firn.core.protocol.CompleteRequest;
import io.firn.core.protocol.FailRequest;
import io.firn.core.protocol.HeartbeatRequest;
import io.firn.core.protocol.HeartbeatResponse;
import io.firn.core.protocol.PollRequest;
import io.firn.core.protocol.PollResponse;
import io.firn.core.protocol.RegisterRequest;
import io.firn.core.protocol.RegisterResponse;
import io.firn.core.protocol.WorkerProtocol;
import io.firn.server.OptimizingConfiguration;
import io.firn.server.ServerCatalogs;
import io.firn.server.TableListener;
import io.firn.server.TableRuntime;
import io.firn.server.policy.PolicyDecisions;
import io.firn.server.policy.PolicyRegistry;
import io.firn.server.store.StateStore;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.apache.iceberg.Table;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The optimizing side of the server, and the one place its parts meet (ARCHITECTURE.md, "The
 * optimizer server"): the watcher's events and the operator's actions come in here, and the
 * scheduling round ({@link #tick()}) runs here every half second ({@code schedulingInterval}), and
 * at once when a table becomes due.
 *
 * <ul>
 *   <li>{@link OptimizingState}: the tables (state machine idle → pending → planning → optimizing →
 *       committing → idle, or parked; {@link TableStatus#next()}), processes, task queue and
 *       workers, under one lock;
 *   <li>{@link Scheduler}: which due tables plan now (pure);
 *   <li>{@link ProcessPlanner}: plans a chosen table and starts its process;
 *   <li>{@link TaskQueue} and {@link WorkerEndpoint}: tasks leased to workers through the {@link
 *       WorkerProtocol}, results checked before they count;
 *   <li>{@link ProcessCommitter}: commits each partition group as soon as its tasks are done (a
 *       conflict fails only its group) and ends processes;
 *   <li>{@link MaintenanceDispatcher}: expiry, orphan cleanup and dangling deletes on idle tables;
 *   <li>{@link OptimizingMeters}: every meter.
 * </ul>
 *
 * <p>After a restart every table starts idle and processes that were running are recorded as failed
 * and planned again: the plan of a process is not persisted, and nothing of it was committed except
 * whole groups, which are already part of the table.
 */
public final class OptimizingService implements WorkerProtocol, TableListener, Managed {
  private static final Logger LOG = LoggerFactory.getLogger(OptimizingService.class);

  /** A worker of this group takes tasks of every group (the in-process worker). */
  public static final String ANY_GROUP = TaskQueue.ANY_GROUP;

  /** Health below this is critical: max-delay may let minor work run outside its windows. */
  public static final int CRITICAL_HEALTH = Scheduler.CRITICAL_HEALTH;

  private final ServerCatalogs catalogs;

  /** Package-private so that tests here can make several tables due under one lock hold. */
  final OptimizingState state;

  private final OptimizingMeters meters;
  private final ProcessCommitter committer;
  private final ProcessPlanner planner;
  private final WorkerEndpoint endpoint;
  private final MaintenanceDispatcher maintenance;
  private final TableHistory history;
  // Made by start(); null before.
  private volatile @Nullable SchedulingRound round;
  private volatile @Nullable ScheduledExecutorService ticker;
  private final AtomicBoolean wakeQueued = new AtomicBoolean();
  private @Nullable ExecutorService planners;
  private @Nullable ExecutorService committers;
  private @Nullable ExecutorService maintainers;

  public OptimizingService(
      ServerCatalogs catalogs,
      StateStore store,
      OptimizingConfiguration config,
      Supplier<PolicyRegistry.LoadedPolicy> policies,
      Clock clock,
      MeterRegistry registry,
      int tableSeriesLimit,
      MaintenanceSettings maintenanceSettings) {
    this.catalogs = catalogs;
    this.state = new OptimizingState(store, config, policies, clock);
    this.meters = new OptimizingMeters(registry, new StateReadings(state), clock, tableSeriesLimit);
    meters.group(WorkerEndpoint.DEFAULT_GROUP);
    this.history = new TableHistory(tableSeriesLimit);
    this.committer = new ProcessCommitter(state, meters);
    this.planner = new ProcessPlanner(state, committer, catalogs);
    this.endpoint = new WorkerEndpoint(state, meters, committer, catalogs);
    this.maintenance =
        new MaintenanceDispatcher(
            state, new MaintenanceRunner(catalogs, maintenanceSettings, registry), catalogs);
  }

  // ---------------------------------------------------------------- lifecycle

  /**
   * Takes over the stored state: tables that were busy when the server stopped start idle (and
   * due), processes that were running are recorded as failed.
   */
  @Override
  public void start() {
    Instant now = state.clock.instant();
    int failed =
        state.store.failRunningProcesses(
            "the server stopped during this process; uncommitted work was discarded and the table"
                + " is planned again",
            now);
    state.lock.lock();
    try {
      for (TableStateRecord stored : state.store.loadTableStates()) {
        TableState table = TableState.of(stored);
        if (table.status != TableStatus.IDLE && table.status != TableStatus.PARKED) {
          // The one move outside the state machine: nothing of the old process runs any more.
          table.status = TableStatus.IDLE;
          table.since = now;
          table.needsPlan = true;
          table.reason = "the server restarted while this table was being optimized; planned again";
          state.save(table);
        }
        state.tables.put(table.qualified(), table);
        meters.table(table);
      }
    } finally {
      state.lock.unlock();
    }
    if (failed > 0) {
      LOG.warn(
          "{} optimizing process(es) were running when the server stopped; their tables are"
              + " planned again",
          failed);
    }
    OptimizingConfiguration config = state.config;
    ExecutorService planners =
        Executors.newFixedThreadPool(config.getPlanningThreads(), daemon("firn-planner"));
    ExecutorService committers = Executors.newFixedThreadPool(2, daemon("firn-committer"));
    ExecutorService maintainers = Executors.newSingleThreadExecutor(daemon("firn-maintenance"));
    committer.start(committers);
    SchedulingRound round =
        new SchedulingRound(state, meters, endpoint, planner, maintenance, planners, maintainers);
    endpoint.open(true);
    ScheduledThreadPoolExecutor ticker =
        new ScheduledThreadPoolExecutor(1, daemon("firn-optimizing-ticker"));
    // A wake queued when the service stops is dropped, not run against stopped planners.
    ticker.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    long interval = config.getSchedulingInterval().toMilliseconds();
    ticker.scheduleWithFixedDelay(
        round::runLogged, Math.min(200, interval), interval, TimeUnit.MILLISECONDS);
    this.planners = planners;
    this.committers = committers;
    this.maintainers = maintainers;
    this.round = round;
    this.ticker = ticker;
  }

  /**
   * Runs a scheduling round now, on the ticker's thread, instead of at the next tick: a table just
   * became due (ADR 0044). Wakes arriving while one is queued share it; the round reads the state
   * when it runs, so it sees every table made due before it starts.
   */
  private void wake() {
    ScheduledExecutorService started = ticker;
    SchedulingRound scheduling = round;
    if (started == null || scheduling == null || !wakeQueued.compareAndSet(false, true)) {
      return;
    }
    try {
      started.execute(
          () -> {
            wakeQueued.set(false);
            scheduling.runLogged();
          });
    } catch (java.util.concurrent.RejectedExecutionException stopping) {
      // The service is stopping: no round runs any more.
      wakeQueued.set(false);
    }
  }

  @Override
  public void stop() throws InterruptedException {
    endpoint.open(false);
    List<ExecutorService> executors = new ArrayList<>();
    for (ExecutorService executor :
        new ExecutorService[] {ticker, planners, committers, maintainers}) {
      if (executor != null) {
        executors.add(executor);
        executor.shutdown();
      }
    }
    for (ExecutorService executor : executors) {
      if (!executor.awaitTermination(60, TimeUnit.SECONDS)) {
        LOG.warn("optimizing threads did not stop within 60 s");
        executor.shutdownNow();
      }
    }
  }

  /**
   * Commits (and maintenance, which commits too) go through only while {@code mayCommit} says so:
   * with several replicas, while this one holds the leader lease (ADR 0021). Call before {@link
   * #start()}.
   */
  public void commitOnlyWhile(java.util.function.BooleanSupplier mayCommit) {
    state.mayCommit = mayCommit;
  }

  // ---------------------------------------------------------------- watcher events

  @Override
  public void evaluated(TableRuntime runtime, boolean ownCommit) {
    boolean due = false;
    state.lock.lock();
    try {
      TableState table = state.tables.get(runtime.qualifiedName());
      if (table == null) {
        table =
            new TableState(
                runtime.catalog(), runtime.namespace(), runtime.table(), state.clock.instant());
        state.tables.put(table.qualified(), table);
        meters.table(table);
      }
      table.snapshotId = runtime.snapshotId();
      table.evaluatedAt = runtime.evaluatedAt();
      table.health = runtime.health();
      table.dataFiles = runtime.dataFiles();
      table.equalityDeleteFiles = runtime.equalityDeleteFiles();
      table.positionDeleteFiles = runtime.positionDeleteFiles();
      table.summary = runtime.summary();
      history.record(runtime);
      if (!ownCommit && table.process == null) {
        table.needsPlan = runtime.needsPlan();
        table.reason = runtime.reason();
        if (table.needsPlan && table.status == TableStatus.IDLE && table.dueSince == null) {
          table.dueSince = state.clock.instant();
        }
        due = table.needsPlan && table.status == TableStatus.IDLE;
        state.save(table);
      } else if (!ownCommit && runtime.needsPlan()) {
        // A writer committed while a process runs: plan again after it.
        table.needsPlan = true;
      }
    } finally {
      state.lock.unlock();
    }
    if (due) {
      wake();
    }
  }

  @Override
  public void forgotten(String catalog, String namespace, String table) {
    state.lock.lock();
    try {
      TableState forgotten = state.tables.remove(catalog + "." + namespace + "." + table);
      history.forget(catalog + "." + namespace + "." + table);
      if (forgotten != null) {
        meters.forget(forgotten);
        if (forgotten.process != null) {
          committer.cancel(forgotten.process, "the table was dropped or is no longer watched");
        }
      }
    } finally {
      state.lock.unlock();
    }
  }

  // ---------------------------------------------------------------- operator actions

  /** The tables known now, by name. */
  public List<TableStateRecord> tables() {
    state.lock.lock();
    try {
      return state.tables.values().stream()
          .sorted(Comparator.comparing(TableState::qualified))
          .map(TableState::record)
          .toList();
    } finally {
      state.lock.unlock();
    }
  }

  /** One table; empty when it is not watched. */
  public Optional<TableStateRecord> table(String catalog, String namespace, String table) {
    state.lock.lock();
    try {
      TableState found = state.tables.get(catalog + "." + namespace + "." + table);
      return found == null ? Optional.empty() : Optional.of(found.record());
    } finally {
      state.lock.unlock();
    }
  }

  /**
   * The table's recent evaluations, oldest first (in memory, bounded: {@link TableHistory}); empty
   * when none are kept for it (the table is known, but other tables took every place).
   *
   * @throws UnknownTableException when the table is not watched
   */
  public Optional<List<TableHistory.Point>> history(
      String catalog, String namespace, String table) {
    state.lock.lock();
    try {
      TableState known = known(catalog, namespace, table);
      return Optional.ofNullable(history.of(known.qualified()));
    } finally {
      state.lock.unlock();
    }
  }

  /**
   * Loads a watched table from its catalog (outside the lock: I/O).
   *
   * @throws UnknownTableException when the table is not watched
   */
  public Table load(String catalog, String namespace, String table) {
    state.lock.lock();
    try {
      known(catalog, namespace, table);
    } finally {
      state.lock.unlock();
    }
    return catalogs.load(catalog, namespace, table);
  }

  /**
   * An optimizer group now: its registered workers, their slots and the tasks waiting for them.
   *
   * @param capacity the policy's process capacity of the group; 0 for {@code *} (the in-process
   *     worker, which serves every group) and groups the policy does not name
   */
  public record GroupLoad(String group, int capacity, int workers, int slots, int backlog) {}

  /** A table's place in the policy and how long it has been due. */
  public record TableLoad(String table, String rule, String group, double lagSeconds) {}

  /** What the console's overview shows of the running service, read under one lock hold. */
  public record Load(
      int pendingTasks, int leasedTasks, List<GroupLoad> groups, List<TableLoad> tables) {}

  /** The queue, the groups and every table's rule and lag now. */
  public Load load() {
    PolicyRegistry.LoadedPolicy loaded = state.policies.get();
    Instant now = state.clock.instant();
    java.util.Map<String, Double> lags = new java.util.TreeMap<>();
    java.util.Set<String> names = new java.util.LinkedHashSet<>(loaded.policy().groups().keySet());
    names.add(WorkerEndpoint.DEFAULT_GROUP);
    List<GroupLoad> groups = new ArrayList<>();
    int pending;
    int leased;
    state.lock.lock();
    try {
      pending = state.queue.pendingCount();
      leased = state.queue.leasedCount();
      state.workers.all().forEach(w -> names.add(w.group));
      for (String name : names) {
        PolicyFile.Group group = loaded.policy().groups().get(name);
        groups.add(
            new GroupLoad(
                name,
                group == null ? 0 : group.capacity(),
                state.workers.count(name),
                state.workers.slots(name),
                state.queue.backlog(name)));
      }
      state.tables.values().forEach(t -> lags.put(t.qualified(), t.lagSeconds(now)));
    } finally {
      state.lock.unlock();
    }
    // Rules resolved outside the lock: pattern matching over every table.
    List<TableLoad> tables = new ArrayList<>(lags.size());
    lags.forEach(
        (qualified, lag) -> {
          EffectivePolicy effective = loaded.policy().resolve(qualified);
          tables.add(
              new TableLoad(
                  qualified,
                  effective.rule() == null ? "defaults" : effective.rule(),
                  effective.group().name(),
                  lag));
        });
    return new Load(pending, leased, groups, tables);
  }

  /**
   * Plans a table now without changing anything: the dry run. Reads the table's files.
   *
   * @param type a type to force, or null to let the policy decide
   */
  public OptimizingPlan preview(
      String catalog, String namespace, String table, @Nullable OptimizingType type) {
    Table loaded = catalogs.load(catalog, namespace, table);
    OptimizingPolicy thresholds =
        state.policies.get().policy().resolve(catalog + "." + namespace + "." + table).thresholds();
    return new TablePlanner(new BinPackPlanner(), thresholds)
        .plan(loaded, type, state.clock.instant());
  }

  /**
   * Asks for a process of the given type as soon as a slot is free, whatever the triggers say.
   *
   * @throws IllegalStateException when the table is unknown, paused or already being optimized
   */
  public void trigger(String catalog, String namespace, String table, OptimizingType type) {
    state.lock.lock();
    try {
      TableState known = known(catalog, namespace, table);
      if (known.paused) {
        throw new IllegalStateException(known.qualified() + " is paused; resume it first");
      }
      if (known.process != null || known.status == TableStatus.PLANNING) {
        throw new IllegalStateException(
            known.qualified()
                + " is "
                + known.status.label()
                + (known.process == null ? "" : " (process " + known.process.id + ")")
                + "; cancel it first or wait");
      }
      known.requestedType = type;
      known.needsPlan = true;
      known.reason =
          "optimizing requested by an operator (" + type.name().toLowerCase(Locale.ROOT) + ")";
      known.parkedUntil = null;
      known.parkedReason = null;
      known.retryAfter = null;
      if (known.status == TableStatus.PARKED) {
        state.move(known, TableStatus.IDLE);
      }
      known.dueSince = state.clock.instant();
      state.save(known);
    } finally {
      state.lock.unlock();
    }
    wake();
  }

  /**
   * Cancels the running process of a table: pending tasks are dropped, running attempts are told to
   * abandon, nothing more is committed. Groups committed already stay committed.
   *
   * @return the cancelled process id
   * @throws IllegalStateException when no process runs
   */
  public String cancel(String catalog, String namespace, String table) {
    state.lock.lock();
    try {
      TableState known = known(catalog, namespace, table);
      if (known.process == null) {
        throw new IllegalStateException(
            known.qualified() + " has no running process (it is " + known.status.label() + ")");
      }
      String id = known.process.id;
      committer.cancel(known.process, "cancelled by an operator");
      known.retryAfter =
          state.clock.instant().plus(state.config.getRetryBackoff().toJavaDuration());
      return id;
    } finally {
      state.lock.unlock();
    }
  }

  /** Pauses a table: no new process starts until resumed; a running one finishes. */
  public void pause(String catalog, String namespace, String table, boolean paused) {
    state.lock.lock();
    try {
      TableState known = known(catalog, namespace, table);
      known.paused = paused;
      if (!paused && known.status == TableStatus.PARKED) {
        known.parkedUntil = null;
        known.parkedReason = null;
        known.failures = 0;
        state.move(known, TableStatus.IDLE);
      }
      state.save(known);
    } finally {
      state.lock.unlock();
    }
  }

  /**
   * A policy window closed: processes whose kind of work has no open window left are cancelled when
   * their policy says {@code on-window-close: cancel} (uncommitted output discarded; groups
   * committed already stay), else they finish. Called by the window scheduler.
   */
  public void windowClosed(String window) {
    PolicyRegistry.LoadedPolicy loaded = state.policies.get();
    Instant now = state.clock.instant();
    state.lock.lock();
    try {
      for (OptimizingProcess process : List.copyOf(state.processes.values())) {
        if (process.type == OptimizingType.NONE || process.status != ProcessStatus.RUNNING) {
          continue;
        }
        EffectivePolicy effective = loaded.policy().resolve(process.table.qualified());
        PolicyFile.WorkKind kind =
            PolicyFile.WorkKind.valueOf(process.type.name().toUpperCase(Locale.ROOT));
        if (effective.work(kind).windows().stream().noneMatch(w -> w.name().equals(window))) {
          continue;
        }
        PolicyDecisions.CloseAction action =
            PolicyDecisions.atWindowClose(
                effective, kind, loaded.calendar(), now, process.startedByOverride);
        if (action == PolicyDecisions.CloseAction.CANCEL) {
          LOG.info(
              "{}: window {} closed; cancelling process {} (on-window-close: cancel)",
              process.table.qualified(),
              window,
              process.id);
          committer.cancel(process, "window " + window + " closed (on-window-close: cancel)");
        } else if (action == PolicyDecisions.CloseAction.FINISH) {
          LOG.info(
              "{}: window {} closed; process {} finishes its running work",
              process.table.qualified(),
              window,
              process.id);
        }
      }
    } finally {
      state.lock.unlock();
    }
  }

  /** Registered workers. */
  public List<WorkerRecord> workers() {
    state.lock.lock();
    try {
      return endpoint.records();
    } finally {
      state.lock.unlock();
    }
  }

  /** Processes running now, in start order. */
  public List<String> runningProcesses() {
    state.lock.lock();
    try {
      return List.copyOf(state.processes.keySet());
    } finally {
      state.lock.unlock();
    }
  }

  private TableState known(String catalog, String namespace, String table) {
    TableState known = state.tables.get(catalog + "." + namespace + "." + table);
    if (known == null) {
      throw new UnknownTableException(catalog + "." + namespace + "." + table);
    }
    return known;
  }

  // ---------------------------------------------------------------- worker protocol

  @Override
  public RegisterResponse register(RegisterRequest request) {
    return endpoint.register(request);
  }

  @Override
  public PollResponse poll(PollRequest request) {
    return endpoint.poll(request);
  }

  @Override
  public HeartbeatResponse heartbeat(HeartbeatRequest request) {
    return endpoint.heartbeat(request);
  }

  @Override
  public Ack complete(CompleteRequest request) {
    return endpoint.complete(request);
  }

  @Override
  public Ack fail(FailRequest request) {
    return endpoint.fail(request);
  }

  // ---------------------------------------------------------------- scheduling

  /** One scheduling round ({@link SchedulingRound#run()}); public for tests. */
  public void tick() {
    SchedulingRound started = round;
    if (started == null) {
      throw new IllegalStateException("the optimizing service has not started: no round to run");
    }
    started.run();
  }

  private static ThreadFactory daemon(String name) {
    return r -> {
      Thread thread = new Thread(r, name);
      thread.setDaemon(true);
      return thread;
    };
  }
}
