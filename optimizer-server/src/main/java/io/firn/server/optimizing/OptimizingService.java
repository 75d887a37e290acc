package io.firn.server.optimizing;

import io.dropwizard.lifecycle.Managed;
import io.firn.core.io.DataFileIO;
import io.firn.core.maintenance.DanglingDeleteReport;
import io.firn.core.maintenance.MaintenanceSettings;
import io.firn.core.maintenance.OrphanCleanupReport;
import io.firn.core.maintenance.SnapshotExpiryReport;
import io.firn.core.plan.OptimizingPlan;
import io.firn.core.plan.OptimizingType;
import io.firn.core.plan.PartitionPlan;
import io.firn.core.plan.RewriteTask;
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
import io.firn.core.protocol.ProtocolException;
import io.firn.core.protocol.RegisterRequest;
import io.firn.core.protocol.RegisterResponse;
import io.firn.core.protocol.TaskAssignment;
import io.firn.core.protocol.TaskCodec;
import io.firn.core.protocol.UnknownWorkerException;
import io.firn.core.protocol.WorkerProtocol;
import io.firn.core.table.PartitionKey;
import io.firn.server.OptimizingConfiguration;
import io.firn.server.ServerCatalogs;
import io.firn.server.StateStore;
import io.firn.server.TableListener;
import io.firn.server.TableRuntime;
import io.firn.server.policy.PolicyDecisions;
import io.firn.server.policy.PolicyRegistry;
import io.firn.worker.commit.CommitOutcome;
import io.firn.worker.commit.Committer;
import io.firn.worker.executor.ResultCheck;
import io.firn.worker.executor.RewriteExecutor;
import io.firn.worker.executor.TaskResult;
import io.firn.worker.local.LocalOptimizer;
import io.firn.worker.local.UnsupportedTableException;
import io.firn.worker.remote.ResultCodec;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.FileIO;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The optimizing side of the server: the table state machine (idle → pending → planning →
 * optimizing → committing → idle, or parked), the task queue with leases that workers reach through
 * the {@link WorkerProtocol}, and the commit of each partition group as soon as its tasks are done
 * (one committer per table; a conflict fails only its group).
 *
 * <p>All state changes happen under one lock and are written to the {@link StateStore}; planning,
 * committing and store-independent work run outside it on their own threads. After a restart every
 * table starts idle and processes that were running are recorded as failed and planned again: the
 * plan of a process is not persisted, and nothing of it was committed except whole groups, which
 * are already part of the table.
 */
public final class OptimizingService implements WorkerProtocol, TableListener, Managed {
  private static final Logger LOG = LoggerFactory.getLogger(OptimizingService.class);
  private static final long MAX_POLL_WAIT_MILLIS = 30_000;
  private static final String DEFAULT_GROUP = "default";

  /** A worker of this group takes tasks of every group (the in-process worker). */
  public static final String ANY_GROUP = "*";

  private final ServerCatalogs catalogs;
  private final StateStore store;
  private final OptimizingConfiguration config;
  private final Supplier<PolicyRegistry.LoadedPolicy> policies;
  private final Clock clock;
  private final MeterRegistry registry;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition taskReady = lock.newCondition();
  private final Map<String, TableState> tables = new LinkedHashMap<>();
  private final Map<String, Process> processes = new LinkedHashMap<>();
  private final Map<String, TaskState> attempts = new HashMap<>();

  /** Attempts that failed or expired while their process runs: to say why a late call is stale. */
  private final Map<String, TaskState> pastAttempts = new HashMap<>();

  private final List<TaskState> queue = new ArrayList<>();
  private final Map<String, WorkerState> workers = new LinkedHashMap<>();

  private final Counter conflicts;
  private final Counter integrityFailures;
  private final Counter bytesRead;
  private final Counter bytesWritten;
  private final Timer taskDuration;
  private final Map<String, Counter> deferred;
  private final Counter maxDelayOverrides;
  private final Set<String> groupGauges = new java.util.HashSet<>();

  private final MaintenanceRunner maintenance;
  private ExecutorService maintainers;
  private ScheduledExecutorService ticker;
  private ExecutorService planners;
  private ExecutorService committers;
  private int planning;
  private int maintenanceRunning;
  private final int tableSeriesLimit;
  private int tableSeries;

  public OptimizingService(
      ServerCatalogs catalogs,
      StateStore store,
      OptimizingConfiguration config,
      Supplier<PolicyRegistry.LoadedPolicy> policies,
      Clock clock,
      MeterRegistry registry,
      int tableSeriesLimit,
      MaintenanceSettings maintenanceSettings) {
    this.tableSeriesLimit = tableSeriesLimit;
    this.maintenance = new MaintenanceRunner(catalogs, maintenanceSettings, registry);
    this.catalogs = catalogs;
    this.store = store;
    this.config = config;
    this.policies = policies;
    this.deferred =
        List.of("window", "group", "disabled").stream()
            .collect(
                java.util.stream.Collectors.toMap(
                    r -> r,
                    r ->
                        Counter.builder("firn.work.deferred")
                            .description(
                                "Scheduling rounds in which a due table waited, by reason (window"
                                    + " closed, group full, kind disabled)")
                            .tag("reason", r)
                            .register(registry)));
    this.maxDelayOverrides =
        Counter.builder("firn.max.delay.overrides")
            .description(
                "Minor optimizing started outside its windows because a critical table waited"
                    + " longer than max-delay")
            .register(registry);
    this.clock = clock;
    this.registry = registry;
    this.conflicts =
        Counter.builder("firn.commit.conflicts")
            .description("Commit groups that conflicted with a concurrent writer")
            .register(registry);
    this.integrityFailures =
        Counter.builder("firn.integrity.check.failures")
            .description("Row-count or history checks that failed around a commit (an alert)")
            .register(registry);
    this.bytesRead =
        Counter.builder("firn.optimizing.read")
            .baseUnit("bytes")
            .description("Data-file bytes read by finished optimizing tasks")
            .register(registry);
    this.bytesWritten =
        Counter.builder("firn.optimizing.written")
            .baseUnit("bytes")
            .description("Bytes of new files written by finished optimizing tasks")
            .register(registry);
    this.taskDuration =
        Timer.builder("firn.optimizing.task.duration")
            .description("Wall time of optimizing task attempts handed in by workers")
            .register(registry);
    for (String state : List.of("pending", "leased")) {
      Gauge.builder("firn.queue.tasks", this, s -> s.queued(state))
          .description("Optimizing tasks waiting for a worker (pending) or running (leased)")
          .tag("state", state)
          .register(registry);
    }
    for (TableStatus status : TableStatus.values()) {
      Gauge.builder("firn.tables", this, s -> s.tablesIn(status))
          .description("Watched tables by optimizing state")
          .tag("state", status.label())
          .register(registry);
    }
    Gauge.builder("firn.table.series.capped", this, s -> s.cappedTables())
        .description(
            "Watched tables without per-table series because metrics.tableSeriesLimit was reached")
        .register(registry);
    registerGroupMeters(DEFAULT_GROUP);
    for (String result : List.of("succeeded", "failed", "expired", "rejected")) {
      tasksCounter(result);
    }
    for (OptimizingType type : List.of(OptimizingType.MINOR, OptimizingType.MAJOR)) {
      for (ProcessStatus status : ProcessStatus.values()) {
        if (status != ProcessStatus.RUNNING) {
          processCounter(type.name().toLowerCase(Locale.ROOT), status.label());
        }
      }
    }
  }

  // ---------------------------------------------------------------- lifecycle

  /**
   * Takes over the stored state: tables that were busy when the server stopped start idle (and
   * due), processes that were running are recorded as failed.
   */
  @Override
  public void start() {
    Instant now = clock.instant();
    int failed =
        store.failRunningProcesses(
            "the server stopped during this process; uncommitted work was discarded and the table"
                + " is planned again",
            now);
    lock.lock();
    try {
      for (TableStateRecord stored : store.loadTableStates()) {
        TableState table = TableState.of(stored);
        if (table.status != TableStatus.IDLE && table.status != TableStatus.PARKED) {
          table.status = TableStatus.IDLE;
          table.since = now;
          table.needsPlan = true;
          table.reason = "the server restarted while this table was being optimized; planned again";
          save(table);
        }
        tables.put(table.qualified(), table);
        registerTableMeters(table);
      }
    } finally {
      lock.unlock();
    }
    if (failed > 0) {
      LOG.warn(
          "{} optimizing process(es) were running when the server stopped; their tables are"
              + " planned again",
          failed);
    }
    planners = Executors.newFixedThreadPool(config.getPlanningThreads(), daemon("firn-planner"));
    committers = Executors.newFixedThreadPool(2, daemon("firn-committer"));
    maintainers = Executors.newSingleThreadExecutor(daemon("firn-maintenance"));
    ticker = Executors.newSingleThreadScheduledExecutor(daemon("firn-optimizing-ticker"));
    ticker.scheduleWithFixedDelay(this::tickLogged, 200, 500, TimeUnit.MILLISECONDS);
  }

  @Override
  public void stop() throws InterruptedException {
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
    lock.lock();
    try {
      taskReady.signalAll();
    } finally {
      lock.unlock();
    }
  }

  // ---------------------------------------------------------------- watcher events

  @Override
  public void evaluated(TableRuntime runtime, boolean ownCommit) {
    lock.lock();
    try {
      TableState table = tables.get(runtime.qualifiedName());
      if (table == null) {
        table =
            new TableState(
                runtime.catalog(), runtime.namespace(), runtime.table(), clock.instant());
        tables.put(table.qualified(), table);
        registerTableMeters(table);
      }
      table.snapshotId = runtime.snapshotId();
      table.evaluatedAt = runtime.evaluatedAt();
      table.health = runtime.health();
      table.dataFiles = runtime.dataFiles();
      table.equalityDeleteFiles = runtime.equalityDeleteFiles();
      table.positionDeleteFiles = runtime.positionDeleteFiles();
      if (!ownCommit && table.process == null) {
        table.needsPlan = runtime.needsPlan();
        table.reason = runtime.reason();
        if (table.needsPlan && table.status == TableStatus.IDLE && table.dueSince == null) {
          table.dueSince = clock.instant();
        }
        save(table);
      } else if (!ownCommit && runtime.needsPlan()) {
        // A writer committed while a process runs: plan again after it.
        table.needsPlan = true;
      }
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void forgotten(String catalog, String namespace, String table) {
    lock.lock();
    try {
      TableState state = tables.remove(catalog + "." + namespace + "." + table);
      if (state != null) {
        state.meters.forEach(registry::remove);
        if (!state.meters.isEmpty()) {
          tableSeries--;
        }
        state.meters.clear();
        if (state.process != null) {
          cancel(state.process, "the table was dropped or is no longer watched");
        }
      }
    } finally {
      lock.unlock();
    }
  }

  // ---------------------------------------------------------------- operator actions

  /** The tables known now, by name. */
  public List<TableStateRecord> tables() {
    lock.lock();
    try {
      return tables.values().stream()
          .sorted(Comparator.comparing(TableState::qualified))
          .map(TableState::record)
          .toList();
    } finally {
      lock.unlock();
    }
  }

  /** One table, or null. */
  public TableStateRecord table(String catalog, String namespace, String table) {
    lock.lock();
    try {
      TableState state = tables.get(catalog + "." + namespace + "." + table);
      return state == null ? null : state.record();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Plans a table now without changing anything: the dry run. Reads the table's files.
   *
   * @param type a type to force, or null to let the policy decide
   */
  public OptimizingPlan preview(
      String catalog, String namespace, String table, OptimizingType type) {
    Table loaded = catalogs.load(catalog, namespace, table);
    OptimizingPolicy thresholds =
        policies.get().policy().resolve(catalog + "." + namespace + "." + table).thresholds();
    return new LocalOptimizer(thresholds, 1, line -> {}).plan(loaded, type, clock.instant());
  }

  /**
   * Asks for a process of the given type as soon as a slot is free, whatever the triggers say.
   *
   * @throws IllegalStateException when the table is unknown, paused or already being optimized
   */
  public void trigger(String catalog, String namespace, String table, OptimizingType type) {
    lock.lock();
    try {
      TableState state = known(catalog, namespace, table);
      if (state.paused) {
        throw new IllegalStateException(state.qualified() + " is paused; resume it first");
      }
      if (state.process != null || state.status == TableStatus.PLANNING) {
        throw new IllegalStateException(
            state.qualified()
                + " is "
                + state.status.label()
                + (state.process == null ? "" : " (process " + state.process.id + ")")
                + "; cancel it first or wait");
      }
      state.requestedType = type;
      state.needsPlan = true;
      state.reason = "optimizing requested by an operator (" + type.name().toLowerCase() + ")";
      state.parkedUntil = null;
      state.parkedReason = null;
      state.retryAfter = null;
      if (state.status == TableStatus.PARKED) {
        setStatus(state, TableStatus.IDLE);
      }
      state.dueSince = clock.instant();
      save(state);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Cancels the running process of a table: pending tasks are dropped, running attempts are told to
   * abandon, nothing more is committed. Groups committed already stay committed.
   *
   * @return the cancelled process id
   * @throws IllegalStateException when no process runs
   */
  public String cancel(String catalog, String namespace, String table) {
    lock.lock();
    try {
      TableState state = known(catalog, namespace, table);
      if (state.process == null) {
        throw new IllegalStateException(
            state.qualified() + " has no running process (it is " + state.status.label() + ")");
      }
      String id = state.process.id;
      cancel(state.process, "cancelled by an operator");
      state.retryAfter = clock.instant().plus(config.getRetryBackoff().toJavaDuration());
      return id;
    } finally {
      lock.unlock();
    }
  }

  /** Pauses a table: no new process starts until resumed; a running one finishes. */
  public void pause(String catalog, String namespace, String table, boolean paused) {
    lock.lock();
    try {
      TableState state = known(catalog, namespace, table);
      state.paused = paused;
      if (!paused && state.status == TableStatus.PARKED) {
        state.parkedUntil = null;
        state.parkedReason = null;
        state.failures = 0;
        setStatus(state, TableStatus.IDLE);
      }
      save(state);
    } finally {
      lock.unlock();
    }
  }

  /**
   * A policy window closed: processes whose kind of work has no open window left are cancelled when
   * their policy says {@code on-window-close: cancel} (uncommitted output discarded; groups
   * committed already stay), else they finish. Called by the window scheduler.
   */
  public void windowClosed(String window) {
    PolicyRegistry.LoadedPolicy loaded = policies.get();
    Instant now = clock.instant();
    lock.lock();
    try {
      for (Process process : List.copyOf(processes.values())) {
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
          cancel(process, "window " + window + " closed (on-window-close: cancel)");
        } else if (action == PolicyDecisions.CloseAction.FINISH) {
          LOG.info(
              "{}: window {} closed; process {} finishes its running work",
              process.table.qualified(),
              window,
              process.id);
        }
      }
    } finally {
      lock.unlock();
    }
  }

  /** Registered workers. */
  public List<WorkerRecord> workers() {
    lock.lock();
    try {
      return workers.values().stream().map(WorkerState::record).toList();
    } finally {
      lock.unlock();
    }
  }

  /** Processes running now, in start order. */
  public List<String> runningProcesses() {
    lock.lock();
    try {
      return List.copyOf(processes.keySet());
    } finally {
      lock.unlock();
    }
  }

  private TableState known(String catalog, String namespace, String table) {
    TableState state = tables.get(catalog + "." + namespace + "." + table);
    if (state == null) {
      throw new UnknownTableException(catalog + "." + namespace + "." + table);
    }
    return state;
  }

  // ---------------------------------------------------------------- worker protocol

  @Override
  public RegisterResponse register(RegisterRequest request) {
    WorkerProtocol.checkVersion(request.protocolVersion(), "register");
    WorkerLimits.checkRegistration(request);
    String group = request.group() == null ? DEFAULT_GROUP : request.group();
    Instant now = clock.instant();
    WorkerState worker =
        new WorkerState(
            "w-" + UUID.randomUUID().toString().substring(0, 13),
            request.name(),
            group,
            request.slots(),
            request.engine(),
            request.engineVersion() == null ? "unknown" : request.engineVersion(),
            WorkerLimits.newSecret(),
            now);
    lock.lock();
    try {
      registerGroupMeters(group);
      workers.put(worker.id, worker);
      store.saveWorker(worker.record());
    } finally {
      lock.unlock();
    }
    LOG.info(
        "worker {} registered: {} ({} {}, group {}, {} slot(s))",
        worker.id,
        worker.name,
        worker.engine,
        worker.engineVersion,
        group,
        worker.slots);
    return new RegisterResponse(
        VERSION,
        worker.id,
        worker.secret,
        catalogs.forWorkers(),
        config.getLease().toMilliseconds(),
        config.getHeartbeatInterval().toMilliseconds());
  }

  @Override
  public PollResponse poll(PollRequest request) {
    WorkerProtocol.checkVersion(request.protocolVersion(), "poll");
    long waitNanos =
        TimeUnit.MILLISECONDS.toNanos(
            Math.max(0, Math.min(request.waitMillis(), MAX_POLL_WAIT_MILLIS)));
    long deadline = System.nanoTime() + waitNanos;
    lock.lock();
    try {
      while (true) {
        WorkerState worker = worker(request.workerId(), request.workerSecret(), "poll");
        worker.lastSeen = clock.instant();
        TaskState task = nextTask(worker.group);
        if (task != null) {
          return new PollResponse(VERSION, lease(task, worker));
        }
        long left = deadline - System.nanoTime();
        if (left <= 0 || ticker == null || ticker.isShutdown()) {
          return PollResponse.empty();
        }
        taskReady.awaitNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(1000)));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return PollResponse.empty();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public HeartbeatResponse heartbeat(HeartbeatRequest request) {
    WorkerProtocol.checkVersion(request.protocolVersion(), "heartbeat");
    lock.lock();
    try {
      WorkerState worker = worker(request.workerId(), request.workerSecret(), "heartbeat");
      Instant now = clock.instant();
      worker.lastSeen = now;
      List<String> abandon = new ArrayList<>();
      for (String attemptId : request.attemptIds()) {
        TaskState task = attempts.get(attemptId);
        if (task == null || !task.isCurrentLease(attemptId) || !worker.id.equals(task.workerId)) {
          abandon.add(attemptId);
        } else {
          task.leaseExpires = now.plus(config.getLease().toJavaDuration());
        }
      }
      return new HeartbeatResponse(VERSION, abandon);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public Ack complete(CompleteRequest request) {
    WorkerProtocol.checkVersion(request.protocolVersion(), "complete");
    require(request.attemptId() != null, "complete: attemptId is missing");
    TaskState task;
    WorkerState worker;
    lock.lock();
    try {
      worker = worker(request.workerId(), request.workerSecret(), "complete");
      task = attempt(request.attemptId());
      String foreign = foreignLease(task, worker, request.attemptId(), "complete");
      if (foreign != null) {
        return Ack.rejected(foreign);
      }
      if (task != null
          && task.status == TaskStatus.SUCCEEDED
          && request.attemptId().equals(task.attemptId)) {
        return Ack.ok(); // a retried completion whose first answer was lost
      }
      String stale = staleness(task, request.attemptId());
      if (stale != null) {
        tasksCounter("rejected").increment();
        LOG.info("rejected the completion of {}: {}", request.attemptId(), stale);
        return Ack.rejected(stale);
      }
    } finally {
      lock.unlock();
    }
    // Decode outside the lock: parsing the files' JSON is the expensive part.
    TaskResult result;
    try {
      result = ResultCodec.decode(request, task.task.id());
    } catch (ProtocolException e) {
      fail(
          new FailRequest(
              VERSION,
              request.workerId(),
              request.workerSecret(),
              request.attemptId(),
              e.getMessage()));
      throw e;
    }
    // Checked against the lease and the table, outside the lock: it reads files.
    String refused = check(task, worker, request.attemptId(), result);
    lock.lock();
    try {
      String stale = staleness(task, request.attemptId());
      if (stale != null) {
        tasksCounter("rejected").increment();
        return Ack.rejected(stale);
      }
      if (refused != null) {
        attemptFailed(task, refused);
        return Ack.rejected(refused);
      }
      Instant now = clock.instant();
      task.status = TaskStatus.SUCCEEDED;
      task.finished = now;
      task.result = result;
      task.message = "done";
      tasksCounter("succeeded").increment();
      taskDuration.record(Duration.ofNanos(result.nanos()));
      bytesRead.increment(result.bytesRead());
      bytesWritten.increment(result.bytesWritten());
      store.saveTasks(List.of(task.record()));
      Process process = task.process;
      PartitionKey group = task.task.partition();
      if (process.groupDone(group)) {
        process.readyGroups.add(group);
        scheduleCommit(process);
      }
      return Ack.ok();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public Ack fail(FailRequest request) {
    WorkerProtocol.checkVersion(request.protocolVersion(), "fail");
    require(request.attemptId() != null, "fail: attemptId is missing");
    lock.lock();
    try {
      WorkerState worker = worker(request.workerId(), request.workerSecret(), "fail");
      TaskState task = attempt(request.attemptId());
      String foreign = foreignLease(task, worker, request.attemptId(), "fail");
      if (foreign != null) {
        return Ack.rejected(foreign);
      }
      String stale = staleness(task, request.attemptId());
      if (stale != null) {
        return Ack.rejected(stale);
      }
      attemptFailed(task, "attempt " + request.attemptId() + " failed: " + request.reason());
      return Ack.ok();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Null when a handed-in result matches its lease and the table ({@link ResultCheck}); else why it
   * is refused, after deleting the files of it that are the attempt's own. Not under the lock.
   */
  private String check(TaskState task, WorkerState worker, String attemptId, TaskResult result) {
    Table table = task.process.iceberg;
    try {
      ResultCheck.verify(table, task.task, attemptId, result, task.assignment.bloomThreshold());
      return null;
    } catch (ResultCheck.RefusedException e) {
      tasksCounter("refused").increment();
      LOG.warn(
          "{}: refused the result of attempt {} from worker {} ({}): {}; nothing of it is"
              + " committed, the task is retried",
          table.name(),
          attemptId,
          worker.id,
          worker.name,
          e.getMessage());
      FileIO io = DataFileIO.of(table.io());
      List<ContentFile<?>> files = new ArrayList<>(result.dataFiles());
      files.addAll(result.positionDeletes());
      for (ContentFile<?> file : files) {
        if (ResultCheck.ownLocation(table, file.location(), attemptId)) {
          try {
            io.deleteFile(file.location());
          } catch (RuntimeException ignored) {
            // Best effort: orphan cleanup removes what is left.
          }
        }
      }
      return "the result of attempt "
          + attemptId
          + " from worker "
          + worker.id
          + " was refused: "
          + e.getMessage();
    } catch (RuntimeException e) {
      LOG.warn(
          "{}: cannot check the result of attempt {} ({}); the task is retried",
          table.name(),
          attemptId,
          e.toString());
      return "the result of attempt " + attemptId + " could not be checked: " + e.getMessage();
    }
  }

  /** The task of a live or past attempt, or null. Under the lock. */
  private TaskState attempt(String attemptId) {
    TaskState task = attempts.get(attemptId);
    return task != null ? task : pastAttempts.get(attemptId);
  }

  /**
   * The registered worker that sent a message, proven by its secret. Under the lock.
   *
   * @throws UnknownWorkerException when no such worker is registered (it registers again)
   * @throws WorkerRefusedException when the secret does not match: a forged message
   */
  private WorkerState worker(String workerId, String secret, String call) {
    WorkerState worker = workerId == null ? null : workers.get(workerId);
    if (worker == null) {
      throw new UnknownWorkerException(String.valueOf(workerId));
    }
    if (!WorkerLimits.sameSecret(worker.secret, secret)) {
      tasksCounter("refused").increment();
      LOG.warn(
          "refused a {} message for worker {} ({}): its worker secret does not match (a forged"
              + " message from a holder of the worker token, or a worker that lost its"
              + " registration)",
          call,
          worker.id,
          worker.name);
      throw new WorkerRefusedException(
          call + ": the worker secret of " + worker.id + " does not match; register again");
    }
    return worker;
  }

  /**
   * Null when {@code attemptId} is unknown or leased to {@code worker}; else why a worker may not
   * act on another worker's lease. Under the lock.
   */
  private String foreignLease(TaskState task, WorkerState worker, String attemptId, String call) {
    if (task == null || !attemptId.equals(task.attemptId) || worker.id.equals(task.workerId)) {
      return null;
    }
    tasksCounter("refused").increment();
    WorkerState holder = workers.get(task.workerId);
    LOG.warn(
        "refused {} of attempt {} from worker {} ({}): the attempt is leased to worker {} ({})",
        call,
        attemptId,
        worker.id,
        worker.name,
        task.workerId,
        holder == null ? "no longer registered" : holder.name);
    return "attempt " + attemptId + " is not leased to worker " + worker.id;
  }

  /** Null when {@code attemptId} is the live lease of {@code task}, else why not. */
  private static String staleness(TaskState task, String attemptId) {
    if (task == null) {
      return "attempt " + attemptId + " is unknown (stale, or the server restarted)";
    }
    if (!attemptId.equals(task.attemptId)) {
      return "attempt " + attemptId + " is stale: the task was leased again as " + task.attemptId;
    }
    if (task.process.status != ProcessStatus.RUNNING) {
      return "attempt "
          + attemptId
          + " belongs to process "
          + task.process.id
          + ", which is "
          + task.process.status.label();
    }
    if (task.status != TaskStatus.LEASED) {
      return "attempt " + attemptId + " is no longer leased (task " + task.status.label() + ")";
    }
    return null;
  }

  /**
   * The first ready task the worker's group may take ({@code *} takes every group) whose group has
   * fewer leased tasks than its capacity. Under the lock.
   */
  private TaskState nextTask(String workerGroup) {
    Instant now = clock.instant();
    Map<String, PolicyFile.Group> groups = policies.get().policy().groups();
    Map<String, Integer> leased = new HashMap<>();
    for (TaskState task : attempts.values()) {
      if (task.status == TaskStatus.LEASED) {
        leased.merge(task.group, 1, Integer::sum);
      }
    }
    for (int i = 0; i < queue.size(); i++) {
      TaskState task = queue.get(i);
      if (!workerGroup.equals(ANY_GROUP) && !task.group.equals(workerGroup)) {
        continue;
      }
      if (task.notBefore != null && task.notBefore.isAfter(now)) {
        continue;
      }
      PolicyFile.Group limits = groups.get(task.group);
      if (limits != null && leased.getOrDefault(task.group, 0) >= limits.capacity()) {
        continue;
      }
      queue.remove(i);
      return task;
    }
    return null;
  }

  private TaskAssignment lease(TaskState task, WorkerState worker) {
    Instant now = clock.instant();
    task.attempts++;
    task.attemptId = task.process.id + "-t" + task.task.id() + "-a" + task.attempts;
    task.workerId = worker.id;
    task.status = TaskStatus.LEASED;
    task.leaseExpires = now.plus(config.getLease().toJavaDuration());
    if (task.started == null) {
      task.started = now;
    }
    attempts.put(task.attemptId, task);
    store.saveTasks(List.of(task.record()));
    return task.assignment.withLease(task.attemptId, task.leaseExpires.toEpochMilli());
  }

  private void attemptFailed(TaskState task, String message) {
    attempts.remove(task.attemptId);
    pastAttempts.put(task.attemptId, task);
    task.message = message;
    if (task.attempts >= config.getMaxAttempts()) {
      tasksCounter("failed").increment();
      task.status = TaskStatus.FAILED;
      task.finished = clock.instant();
      store.saveTasks(List.of(task.record()));
      LOG.warn(
          "{}: task {} failed {} time(s), giving up on partition {}: {}",
          task.process.table.qualified(),
          task.task.id(),
          task.attempts,
          task.task.partition(),
          message);
      failGroup(task.process, task.task.partition(), message);
    } else {
      long backoff =
          config.getRetryBackoff().toMilliseconds() * (1L << Math.min(10, task.attempts - 1));
      task.status = TaskStatus.PENDING;
      task.notBefore = clock.instant().plusMillis(backoff);
      queue.add(task);
      store.saveTasks(List.of(task.record()));
      LOG.info(
          "{}: task {} attempt {} failed; retrying in {} ms: {}",
          task.process.table.qualified(),
          task.task.id(),
          task.attempts,
          backoff,
          message);
    }
  }

  // ---------------------------------------------------------------- scheduling

  private void tickLogged() {
    try {
      tick();
    } catch (RuntimeException e) {
      LOG.error("optimizing scheduler round failed; retrying", e);
    }
  }

  /** Expires leases and workers, then starts planning for due tables. Public for tests. */
  public void tick() {
    Map<TableState, Scheduling> chosen = new LinkedHashMap<>();
    TableState maintain = null;
    lock.lock();
    try {
      Instant now = clock.instant();
      for (TaskState task : List.copyOf(attempts.values())) {
        if (task.status == TaskStatus.LEASED && task.leaseExpires.isBefore(now)) {
          tasksCounter("expired").increment();
          attemptFailed(
              task,
              "the lease of attempt "
                  + task.attemptId
                  + " on worker "
                  + task.workerId
                  + " expired (no heartbeat)");
        }
      }
      Duration workerTimeout = config.getLease().toJavaDuration().multipliedBy(3);
      workers
          .values()
          .removeIf(
              w -> {
                boolean gone = w.lastSeen.plus(workerTimeout).isBefore(now);
                if (gone) {
                  LOG.info(
                      "worker {} ({}) not seen for {}; forgotten", w.id, w.name, workerTimeout);
                  store.deleteWorker(w.id);
                }
                return gone;
              });
      if (!queue.isEmpty()) {
        taskReady.signalAll();
      }
      if (!config.isEnabled()) {
        return;
      }
      List<TableState> due = new ArrayList<>();
      for (TableState table : tables.values()) {
        if (table.status == TableStatus.PARKED
            && table.parkedUntil != null
            && !table.parkedUntil.isAfter(now)) {
          LOG.info("{}: parked time is over; trying again", table.qualified());
          table.parkedUntil = null;
          setStatus(table, TableStatus.IDLE);
          save(table);
        }
        boolean isDue =
            table.needsPlan
                && table.maintenanceRunning == null
                && !table.paused
                && (table.status == TableStatus.IDLE || table.status == TableStatus.PENDING)
                && (table.retryAfter == null || !table.retryAfter.isAfter(now));
        if (isDue) {
          due.add(table);
        }
      }
      PolicyRegistry.LoadedPolicy loaded = policies.get();
      for (String group : loaded.policy().groups().keySet()) {
        registerGroupMeters(group);
      }
      Map<TableState, Scheduling> decisions = new HashMap<>();
      for (TableState table : due) {
        decisions.put(table, schedule(table, loaded, now));
      }
      // Highest score first: policy priority × health urgency, growing with the time waited, so
      // that every due table eventually runs (DESIGN.md §4.3, ADR 0009).
      due.sort(
          Comparator.comparingDouble((TableState t) -> -decisions.get(t).score())
              .thenComparing(TableState::qualified));
      int free = config.getMaxConcurrentProcesses() - processes.size() - planning;
      Map<String, Integer> groupLoad = groupLoad();
      for (TableState table : due) {
        Scheduling decision = decisions.get(table);
        String waiting = null;
        String reason = null;
        if (decision.allowed().isEmpty() && table.requestedType == null) {
          waiting = decision.why();
          reason = decision.disabled() ? "disabled" : "window";
        } else if (groupLoad.getOrDefault(decision.group().name(), 0)
            >= decision.group().capacity()) {
          waiting =
              "group "
                  + decision.group().name()
                  + " is full (capacity "
                  + decision.group().capacity()
                  + " task(s))";
          reason = "group";
        } else if (free <= 0) {
          waiting =
              "waiting for a free process slot ("
                  + processes.size()
                  + " running, optimizing.maxConcurrentProcesses = "
                  + config.getMaxConcurrentProcesses()
                  + ")";
        }
        if (waiting != null) {
          if (reason != null) {
            deferred.get(reason).increment();
          }
          boolean changed = !waiting.equals(table.waitingFor);
          table.waitingFor = waiting;
          if (table.status != TableStatus.PENDING || changed) {
            setStatus(table, TableStatus.PENDING);
            save(table);
          }
          continue;
        }
        if (decision.overrode()) {
          maxDelayOverrides.increment();
          LOG.warn(
              "{}: minor optimizing starts outside its windows: health {} is critical and it"
                  + " waited longer than max-delay ({})",
              table.qualified(),
              table.health,
              decision.why());
        }
        free--;
        planning++;
        groupLoad.merge(decision.group().name(), 1, Integer::sum);
        table.plannedGroup = decision.group().name();
        table.rule = decision.effective().rule();
        table.waitingFor = null;
        setStatus(table, TableStatus.PLANNING);
        save(table);
        chosen.put(table, decision);
      }
      if (maintenanceRunning == 0) {
        maintain = nextMaintenance(loaded, now, chosen.keySet());
      }
    } finally {
      lock.unlock();
    }
    if (maintain != null) {
      TableState table = maintain;
      maintainers.execute(() -> maintain(table));
    }
    for (Map.Entry<TableState, Scheduling> entry : chosen.entrySet()) {
      TableState table = entry.getKey();
      Scheduling decision = entry.getValue();
      planners.execute(() -> plan(table, decision));
    }
  }

  /**
   * The first idle table with a maintenance operation due, marked as running it; null when none.
   * Under the lock.
   */
  private TableState nextMaintenance(
      PolicyRegistry.LoadedPolicy loaded, Instant now, Set<TableState> planned) {
    for (TableState table : tables.values()) {
      if (table.paused
          || table.process != null
          || table.maintenanceRunning != null
          || planned.contains(table)
          || (table.status != TableStatus.IDLE && table.status != TableStatus.PENDING)) {
        continue;
      }
      MaintenanceRunner.Operation operation =
          maintenance.due(
              loaded.policy().resolve(table.qualified()),
              loaded.calendar(),
              now,
              table.lastMaintenance);
      if (operation != null) {
        table.maintenanceRunning = operation;
        maintenanceRunning++;
        return table;
      }
    }
    return null;
  }

  /**
   * Runs the table's due maintenance operation on the maintenance thread and records it; runs that
   * changed nothing are not recorded in the process history (they would flood it).
   */
  private void maintain(TableState table) {
    MaintenanceRunner.Operation operation;
    List<TableState> sameCatalog;
    lock.lock();
    try {
      operation = table.maintenanceRunning;
      sameCatalog =
          tables.values().stream()
              .filter(t -> t != table && t.catalog.equals(table.catalog))
              .toList();
    } finally {
      lock.unlock();
    }
    Instant started = clock.instant();
    Map<String, String> others = new HashMap<>();
    if (operation == MaintenanceRunner.Operation.ORPHAN_FILES) {
      for (TableState other : sameCatalog) {
        String location = location(other);
        if (location != null) {
          others.put(other.qualified(), location);
        }
      }
    }
    MaintenanceRunner.Outcome outcome =
        maintenance.run(operation, table.catalog, table.namespace, table.table, others, started);
    lock.lock();
    try {
      maintenanceRunning--;
      table.maintenanceRunning = null;
      table.lastMaintenance.put(operation, started);
      if (outcome.status().equals("failed") || changedSomething(outcome.report())) {
        store.saveProcess(
            new ProcessRecord(
                "m-" + UUID.randomUUID(),
                table.catalog,
                table.namespace,
                table.table,
                operation.label,
                "auto",
                outcome.status(),
                table.snapshotId == null ? -1 : table.snapshotId,
                0,
                0,
                0,
                started,
                clock.instant(),
                outcome.message(),
                0,
                0,
                0,
                0,
                0));
      }
    } finally {
      lock.unlock();
    }
  }

  private static boolean changedSomething(Object report) {
    if (report instanceof SnapshotExpiryReport expiry) {
      return expiry.expiredCount() > 0;
    }
    if (report instanceof OrphanCleanupReport orphans) {
      return orphans.orphanCount() > 0 || !orphans.warnings().isEmpty();
    }
    if (report instanceof DanglingDeleteReport dangling) {
      return dangling.removedCount() > 0
          || dangling.result() == DanglingDeleteReport.Result.CONFLICT;
    }
    return false;
  }

  /** A table's location, loaded once and cached; null when it cannot be loaded. */
  private String location(TableState table) {
    String cached = table.location;
    if (cached != null) {
      return cached;
    }
    try {
      table.location = catalogs.load(table.catalog, table.namespace, table.table).location();
    } catch (RuntimeException e) {
      LOG.debug("cannot load {} for its location", table.qualified(), e);
    }
    return table.location;
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
            io.firn.core.policy.Sizes.format(budget),
            close);
    return Windows.fit(plan, closesAt.keySet(), budget, why);
  }

  /** Bytes read per second over this table's recent successful processes; 0 when unknown. */
  private double throughput(TableState table) {
    long bytes = 0;
    double seconds = 0;
    for (ProcessRecord p : store.pastProcesses(table.catalog, table.namespace, table.table, 20)) {
      if (p.status().equals("succeeded") && p.finishedAt() != null && p.bytesRead() > 0) {
        bytes += p.bytesRead();
        seconds +=
            Math.max(0.001, Duration.between(p.createdAt(), p.finishedAt()).toMillis() / 1e3);
      }
    }
    return seconds == 0 ? 0 : bytes / seconds;
  }

  /** Health below this is critical: max-delay may let minor work run outside its windows. */
  public static final int CRITICAL_HEALTH = 40;

  /**
   * What the policy says about a due table now.
   *
   * @param allowed the optimizing types whose windows are open (or that run any time)
   * @param overrode minor is allowed only through max-delay
   * @param disabled minor, major and full are all disabled
   * @param why for people, when nothing is allowed: the first reason
   * @param score scheduling order, higher first
   */
  record Scheduling(
      EffectivePolicy effective,
      PolicyFile.Group group,
      Set<OptimizingType> allowed,
      boolean overrode,
      boolean disabled,
      String why,
      double score,
      Map<OptimizingType, Instant> closesAt) {}

  private Scheduling schedule(TableState table, PolicyRegistry.LoadedPolicy loaded, Instant now) {
    EffectivePolicy effective = loaded.policy().resolve(table.qualified());
    PolicyDecisions.TableState state =
        new PolicyDecisions.TableState(table.health < CRITICAL_HEALTH, table.dueSince);
    Set<OptimizingType> allowed = java.util.EnumSet.noneOf(OptimizingType.class);
    Map<OptimizingType, Instant> closesAt = new java.util.EnumMap<>(OptimizingType.class);
    boolean overrode = false;
    boolean disabled = true;
    String why = null;
    boolean windowWhy = false;
    for (PolicyFile.WorkKind kind :
        List.of(PolicyFile.WorkKind.MINOR, PolicyFile.WorkKind.MAJOR, PolicyFile.WorkKind.FULL)) {
      PolicyDecisions.Decision decision =
          PolicyDecisions.mayStart(effective, kind, loaded.calendar(), now, state);
      if (!(decision instanceof PolicyDecisions.Disabled)) {
        disabled = false;
      }
      if (decision.mayStart()) {
        allowed.add(OptimizingType.parse(kind.key()));
        if (decision instanceof PolicyDecisions.Start start) {
          start
              .windowsCloseAt()
              .ifPresent(close -> closesAt.put(OptimizingType.parse(kind.key()), close));
        }
        if (decision instanceof PolicyDecisions.MaxDelayOverride) {
          overrode = true;
          why = decision.reason();
        }
      } else if (why == null || (decision instanceof PolicyDecisions.WindowClosed && !windowWhy)) {
        why = decision.reason();
        windowWhy = decision instanceof PolicyDecisions.WindowClosed;
      }
    }
    double waitedHours =
        table.dueSince == null
            ? 0
            : Math.max(0, Duration.between(table.dueSince, now).toMinutes()) / 60.0;
    double score = (effective.priority() + 1.0) * (101 - table.health) * (1 + waitedHours);
    return new Scheduling(
        effective,
        effective.group(),
        allowed,
        overrode && allowed.size() == 1,
        disabled,
        why == null ? "" : why,
        score,
        closesAt);
  }

  /** Tasks queued or leased per group, and processes being planned. Under the lock. */
  private Map<String, Integer> groupLoad() {
    Map<String, Integer> load = new HashMap<>();
    for (TaskState task : queue) {
      load.merge(task.group, 1, Integer::sum);
    }
    for (TaskState task : attempts.values()) {
      if (task.status == TaskStatus.LEASED) {
        load.merge(task.group, 1, Integer::sum);
      }
    }
    for (TableState table : tables.values()) {
      if (table.status == TableStatus.PLANNING && table.plannedGroup != null) {
        load.merge(table.plannedGroup, 1, Integer::sum);
      }
    }
    return load;
  }

  private void plan(TableState table, Scheduling decision) {
    EffectivePolicy effective = decision.effective();
    Set<OptimizingType> allowed = decision.allowed();
    boolean startedByOverride = decision.overrode();
    OptimizingType requested;
    lock.lock();
    try {
      requested = table.requestedType;
    } finally {
      lock.unlock();
    }
    OptimizingPolicy policy = effective.thresholds();
    if (!allowed.contains(OptimizingType.FULL) && policy.fullByInterval()) {
      // Full work may not start now: plan minor/major instead of holding the partition back.
      policy = policy.withOverrides(Map.of("full.trigger.interval", "off"));
    }
    Table loaded;
    OptimizingPlan plan;
    Instant now = clock.instant();
    try {
      loaded = catalogs.load(table.catalog, table.namespace, table.table);
      LocalOptimizer optimizer = new LocalOptimizer(policy, 1, line -> {});
      plan =
          requested == null
              ? optimizer.planFromCheapSignals(loaded, now)
              : optimizer.plan(loaded, requested, now);
      if (requested == null) {
        plan = Windows.restrict(plan, allowed);
        plan = sizeToWindows(table, plan, decision.closesAt(), now);
      }
    } catch (UnsupportedTableException e) {
      planningFailed(table, e.getMessage(), true);
      return;
    } catch (RuntimeException e) {
      LOG.warn("{}: planning failed: {}", table.qualified(), e.toString());
      planningFailed(table, "planning failed: " + e, false);
      return;
    }
    List<TaskState> tasks = new ArrayList<>();
    Process process = null;
    if (plan.hasWork()) {
      process = new Process(RewriteExecutor.newOperationId(), table, loaded, plan, now, requested);
      process.startedByOverride = startedByOverride;
      String identifier = table.namespace + "." + table.table;
      for (PartitionPlan partition : plan.duePartitions()) {
        for (RewriteTask task : partition.tasks()) {
          TaskAssignment assignment =
              TaskCodec.encode(
                  task,
                  loaded,
                  table.catalog,
                  identifier,
                  process.id + "/" + task.id(),
                  process.id,
                  plan.snapshotId(),
                  plan.sequenceNumber(),
                  policy.equalityDeleteBloomThreshold());
          TaskState state = new TaskState(process, task, assignment, effective.group().name());
          process.tasks.put(task.id(), state);
          tasks.add(state);
        }
        process.groups.add(partition.key());
        if (partition.tasks().isEmpty()) {
          // Only dangling delete files to remove: metadata work, no task will ever make this
          // group ready, so it is ready now and committed by the first commit round.
          process.readyGroups.add(partition.key());
        }
      }
    }
    lock.lock();
    try {
      planning--;
      table.plannedGroup = null;
      table.requestedType = null;
      if (process == null) {
        table.needsPlan = false;
        table.reason = plan.note() == null || plan.note().isEmpty() ? "nothing due" : plan.note();
        table.dueSince = null;
        setStatus(table, TableStatus.IDLE);
        save(table);
        return;
      }
      table.process = process;
      table.lastProcessId = process.id;
      table.waitingFor = null;
      processes.put(process.id, process);
      setStatus(table, TableStatus.OPTIMIZING);
      save(table);
      store.saveProcess(process.record(clock.instant()));
      store.saveTasks(tasks.stream().map(TaskState::record).toList());
      queue.addAll(tasks);
      taskReady.signalAll();
      LOG.info(
          "{}: process {} started ({}, {} partition(s), {} of them only removing delete files,"
              + " {} task(s), snapshot {})",
          table.qualified(),
          process.id,
          process.type.name().toLowerCase(Locale.ROOT),
          process.groups.size(),
          process.readyGroups.size(),
          tasks.size(),
          plan.snapshotId());
      if (!process.readyGroups.isEmpty() || tasks.isEmpty()) {
        // Groups without tasks commit now; with no task at all the commit round also finishes
        // the process (and removes the delete files spanning partitions).
        scheduleCommit(process);
      }
    } finally {
      lock.unlock();
    }
  }

  private void planningFailed(TableState table, String message, boolean unsupported) {
    lock.lock();
    try {
      planning--;
      table.plannedGroup = null;
      table.requestedType = null;
      table.failures++;
      table.reason = message;
      if (unsupported || table.failures >= config.getParkAfterFailures()) {
        park(table, message);
      } else {
        table.retryAfter = clock.instant().plus(config.getRetryBackoff().toJavaDuration());
        setStatus(table, TableStatus.IDLE);
      }
      save(table);
    } finally {
      lock.unlock();
    }
  }

  private void park(TableState table, String reason) {
    table.parkedReason = reason;
    table.parkedUntil = clock.instant().plus(config.getParkFor().toJavaDuration());
    setStatus(table, TableStatus.PARKED);
    LOG.warn(
        "{}: parked until {} after {} failure(s): {}",
        table.qualified(),
        table.parkedUntil,
        table.failures,
        reason);
  }

  // ---------------------------------------------------------------- committing

  /** Queues a commit round for the process unless one is queued or running. Under the lock. */
  private void scheduleCommit(Process process) {
    if (process.commitScheduled) {
      return;
    }
    process.commitScheduled = true;
    committers.execute(() -> commitRound(process));
  }

  /**
   * Commits every group that is ready, then finishes the process when every group is done. Rounds
   * of one process never overlap: one committer per table.
   */
  private void commitRound(Process process) {
    List<PartitionPlan> ready = new ArrayList<>();
    List<TaskResult> results = new ArrayList<>();
    lock.lock();
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
        setStatus(process.table, TableStatus.COMMITTING);
        save(process.table);
      }
    } finally {
      lock.unlock();
    }
    List<CommitOutcome> outcomes = List.of();
    if (!ready.isEmpty() && process.integrityAlarm) {
      Committer.deleteOutputs(process.iceberg, results);
      List<CommitOutcome> refused = new ArrayList<>();
      for (PartitionPlan partition : ready) {
        refused.add(
            new CommitOutcome(
                partition.key(),
                CommitOutcome.Result.FAILED,
                "not committed: an integrity check of this process failed; inspect the table"
                    + " history before optimizing it again",
                -1,
                0,
                0,
                0,
                0));
      }
      outcomes = refused;
    } else if (!ready.isEmpty()) {
      try {
        outcomes =
            new Committer()
                .commitPartitions(process.iceberg, process.plan, ready, results, process.id);
      } catch (RuntimeException e) {
        LOG.error("{}: commit failed unexpectedly", process.table.qualified(), e);
        Committer.deleteOutputs(process.iceberg, results);
        List<CommitOutcome> failed = new ArrayList<>();
        for (PartitionPlan partition : ready) {
          failed.add(
              new CommitOutcome(
                  partition.key(), CommitOutcome.Result.FAILED, e.toString(), -1, 0, 0, 0, 0));
        }
        outcomes = failed;
      }
    }
    boolean finish;
    lock.lock();
    try {
      for (CommitOutcome outcome : outcomes) {
        recordOutcome(process, outcome);
      }
      if (process.status == ProcessStatus.RUNNING && !ready.isEmpty()) {
        setStatus(process.table, TableStatus.OPTIMIZING);
        save(process.table);
        store.saveProcess(process.record(clock.instant()));
      }
      finish = process.status == ProcessStatus.RUNNING && process.allGroupsFinished();
      if (!finish && !process.readyGroups.isEmpty()) {
        scheduleCommit(process);
      }
    } finally {
      lock.unlock();
    }
    if (finish) {
      finish(process);
    }
  }

  private void recordOutcome(Process process, CommitOutcome outcome) {
    PartitionKey key = outcome.partition();
    process.finishedGroups.add(key);
    boolean committed = outcome.committed();
    if (committed) {
      process.committedGroups.add(key);
    } else {
      process.failureMessages.add(key + ": " + outcome.message());
    }
    if (outcome.result() == CommitOutcome.Result.CONFLICT) {
      conflicts.increment();
    } else if (outcome.result() == CommitOutcome.Result.INTEGRITY_FAILED) {
      integrityFailures.increment();
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
    store.saveTasks(records);
    LOG.info(
        "{}: process {} partition {}: {} — {}",
        process.table.qualified(),
        process.id,
        key,
        outcome.result().label(),
        outcome.message());
  }

  /** A group cannot complete (a task gave up): drop its other work. Under the lock. */
  private void failGroup(Process process, PartitionKey key, String message) {
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
        queue.remove(task);
        if (task.attemptId != null) {
          attempts.remove(task.attemptId);
        }
      }
      records.add(task.record());
    }
    store.saveTasks(records);
    if (!orphaned.isEmpty()) {
      Table table = process.iceberg;
      committers.execute(() -> Committer.deleteOutputs(table, orphaned));
    }
    if (process.allGroupsFinished()) {
      Process done = process;
      committers.execute(() -> finish(done));
    }
  }

  /** Commits deletes spanning partitions, records the result and frees the table. */
  private void finish(Process process) {
    Set<PartitionKey> committed;
    lock.lock();
    try {
      if (process.status != ProcessStatus.RUNNING || process.finishing) {
        return;
      }
      process.finishing = true;
      committed = Set.copyOf(process.committedGroups);
    } finally {
      lock.unlock();
    }
    CommitOutcome shared = null;
    if (!process.plan.sharedDeletesToRemove().isEmpty()) {
      try {
        shared = new Committer().commitShared(process.iceberg, process.plan, committed, process.id);
      } catch (RuntimeException e) {
        LOG.warn("{}: removing shared delete files failed: {}", process.table.qualified(), e);
      }
    }
    lock.lock();
    try {
      boolean sharedOk = shared == null || shared.committed();
      if (shared != null && !shared.committed()) {
        process.failureMessages.add("shared deletes: " + shared.message());
        if (shared.result() == CommitOutcome.Result.CONFLICT) {
          conflicts.increment();
        }
      }
      int groups = process.groups.size();
      int ok = process.committedGroups.size();
      ProcessStatus status;
      if (ok == groups && sharedOk) {
        status = ProcessStatus.SUCCEEDED;
      } else if (ok > 0 || (shared != null && shared.committed())) {
        status = ProcessStatus.PARTIAL;
      } else {
        status = ProcessStatus.FAILED;
      }
      end(process, status, summary(process, status));
    } finally {
      lock.unlock();
    }
  }

  private static String summary(Process process, ProcessStatus status) {
    String base =
        process.committedGroups.size() + " of " + process.groups.size() + " partition(s) committed";
    if (status == ProcessStatus.SUCCEEDED) {
      return base;
    }
    return base + "; " + String.join("; ", process.failureMessages);
  }

  /** Ends a process and frees its table. Under the lock. */
  private void end(Process process, ProcessStatus status, String message) {
    process.status = status;
    process.message = message;
    processes.remove(process.id);
    pastAttempts.values().removeIf(t -> t.process == process);
    for (TaskState task : process.tasks.values()) {
      if (task.attemptId != null) {
        attempts.remove(task.attemptId);
      }
      queue.remove(task);
    }
    processCounter(process.type.name().toLowerCase(Locale.ROOT), status.label()).increment();
    store.saveProcess(process.record(clock.instant()));
    TableState table = process.table;
    table.process = null;
    if (status == ProcessStatus.SUCCEEDED) {
      // Plan once more from cheap signals: a table is done when a plan finds nothing due (that
      // plan then clears needsPlan), not when one process ended.
      table.failures = 0;
      table.needsPlan = true;
      table.dueSince = clock.instant();
      table.reason =
          "optimized by process " + process.id + " (" + message + "); checking what is still due";
    } else {
      table.needsPlan = true;
      table.reason = "process " + process.id + " " + status.label() + ": " + message;
      if (status != ProcessStatus.CANCELLED && process.committedGroups.isEmpty()) {
        table.failures++;
      }
      table.retryAfter = clock.instant().plus(config.getRetryBackoff().toJavaDuration());
    }
    if (table.failures >= config.getParkAfterFailures()) {
      park(table, table.reason);
    } else {
      setStatus(table, TableStatus.IDLE);
    }
    if (tables.get(table.qualified()) == table) {
      save(table);
    }
    LOG.info("{}: process {} {}: {}", table.qualified(), process.id, status.label(), message);
  }

  /** Under the lock. */
  private void cancel(Process process, String why) {
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
    store.saveTasks(records);
    process.readyGroups.clear();
    end(process, ProcessStatus.CANCELLED, why);
    if (!uncommitted.isEmpty()) {
      Table table = process.iceberg;
      committers.execute(() -> Committer.deleteOutputs(table, uncommitted));
    }
  }

  // ---------------------------------------------------------------- helpers

  private void setStatus(TableState table, TableStatus status) {
    if (table.status != status) {
      table.status = status;
      table.since = clock.instant();
    }
  }

  private void save(TableState table) {
    try {
      store.saveTableState(table.record());
    } catch (RuntimeException e) {
      // The in-memory state stays authoritative; the next change writes again.
      LOG.error("cannot persist the state of {}: {}", table.qualified(), e.getMessage());
    }
  }

  private double queued(String state) {
    lock.lock();
    try {
      return state.equals("pending") ? queue.size() : attempts.size();
    } finally {
      lock.unlock();
    }
  }

  private double tablesIn(TableStatus status) {
    lock.lock();
    try {
      return tables.values().stream().filter(t -> t.status == status).count();
    } finally {
      lock.unlock();
    }
  }

  /** Per-table series, up to the limit (label cardinality stays bounded). Under the lock. */
  private void registerTableMeters(TableState table) {
    if (tableSeries >= tableSeriesLimit) {
      return;
    }
    tableSeries++;
    List<io.micrometer.core.instrument.Tag> tags =
        List.of(
            io.micrometer.core.instrument.Tag.of("catalog", table.catalog),
            io.micrometer.core.instrument.Tag.of("namespace", table.namespace),
            io.micrometer.core.instrument.Tag.of("table", table.table));
    table.meters.add(
        Gauge.builder("firn.table.health", table, t -> t.health)
            .description("Table health 0-100 from cheap signals (100: nothing to optimize)")
            .tags(tags)
            .register(registry));
    table.meters.add(
        Gauge.builder("firn.table.data.files", table, t -> t.dataFiles)
            .description("Live data files of the table at its last evaluation")
            .tags(tags)
            .register(registry));
    table.meters.add(
        Gauge.builder("firn.table.delete.files", table, t -> t.equalityDeleteFiles)
            .description("Live delete files of the table at its last evaluation, by type")
            .tags(tags)
            .tag("type", "equality")
            .register(registry));
    table.meters.add(
        Gauge.builder("firn.table.delete.files", table, t -> t.positionDeleteFiles)
            .description("Live delete files of the table at its last evaluation, by type")
            .tags(tags)
            .tag("type", "position")
            .register(registry));
    table.meters.add(
        Gauge.builder("firn.table.policy.max.delay", table, this::maxDelaySeconds)
            .description(
                "The table's effective policy max-delay (how long it may stay due before minor"
                    + " work runs outside its windows); +Inf when off")
            .baseUnit("seconds")
            .tags(tags)
            .register(registry));
    table.meters.add(
        Gauge.builder("firn.table.optimizing.lag", table, t -> t.lagSeconds(clock.instant()))
            .description("How long the table has been due for optimizing (0 when not due)")
            .baseUnit("seconds")
            .tags(tags)
            .register(registry));
  }

  private double maxDelaySeconds(TableState table) {
    Duration maxDelay = policies.get().policy().resolve(table.qualified()).maxDelay();
    return maxDelay.isNegative() ? Double.POSITIVE_INFINITY : maxDelay.toMillis() / 1e3;
  }

  private double cappedTables() {
    lock.lock();
    try {
      return tables.values().stream().filter(t -> t.meters.isEmpty()).count();
    } finally {
      lock.unlock();
    }
  }

  /** Series per optimizer group: workers, slots, backlog. Once per group name. */
  private void registerGroupMeters(String group) {
    if (!groupGauges.add(group)) {
      return;
    }
    Gauge.builder("firn.workers", this, s -> s.workerCount(group))
        .description("Registered workers that were seen within three lease times, per group")
        .tag("group", group)
        .register(registry);
    Gauge.builder("firn.worker.slots", this, s -> s.slotCount(group))
        .description("Task slots of the registered workers, per group")
        .tag("group", group)
        .register(registry);
    Gauge.builder("firn.group.backlog.tasks", this, s -> s.backlog(group))
        .description("Optimizing tasks of the group waiting for a worker")
        .tag("group", group)
        .register(registry);
  }

  private double workerCount(String group) {
    lock.lock();
    try {
      return workers.values().stream().filter(w -> w.group.equals(group)).count();
    } finally {
      lock.unlock();
    }
  }

  private double slotCount(String group) {
    lock.lock();
    try {
      return workers.values().stream()
          .filter(w -> w.group.equals(group))
          .mapToInt(w -> w.slots)
          .sum();
    } finally {
      lock.unlock();
    }
  }

  private double backlog(String group) {
    lock.lock();
    try {
      return queue.stream().filter(t -> t.group.equals(group)).count();
    } finally {
      lock.unlock();
    }
  }

  private Counter tasksCounter(String result) {
    return Counter.builder("firn.optimizing.tasks")
        .description("Optimizing task attempts by result")
        .tag("result", result)
        .register(registry);
  }

  private Counter processCounter(String type, String result) {
    return Counter.builder("firn.optimizing.processes")
        .description("Finished optimizing processes by type and result")
        .tag("type", type)
        .tag("result", result)
        .register(registry);
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new ProtocolException(message);
    }
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    return r -> {
      Thread thread = new Thread(r, name);
      thread.setDaemon(true);
      return thread;
    };
  }

  // ---------------------------------------------------------------- state classes

  /** A table's optimizing state; fields guarded by the service lock. */
  static final class TableState {
    final String catalog;
    final String namespace;
    final String table;
    Long snapshotId;
    volatile boolean needsPlan;
    String reason = "not evaluated yet";
    Instant evaluatedAt;
    TableStatus status = TableStatus.IDLE;
    Instant since;
    boolean paused;
    String parkedReason;
    Instant parkedUntil;
    int failures;
    String lastProcessId;
    volatile Instant dueSince;
    Instant retryAfter;
    String waitingFor;
    OptimizingType requestedType;
    Process process;
    volatile int health = 100;
    String plannedGroup;
    String rule;
    volatile String location;
    MaintenanceRunner.Operation maintenanceRunning;
    final Map<MaintenanceRunner.Operation, Instant> lastMaintenance =
        new java.util.EnumMap<>(MaintenanceRunner.Operation.class);
    volatile long dataFiles;
    volatile long equalityDeleteFiles;
    volatile long positionDeleteFiles;
    final List<io.micrometer.core.instrument.Meter> meters = new ArrayList<>();

    TableState(String catalog, String namespace, String table, Instant now) {
      this.catalog = catalog;
      this.namespace = namespace;
      this.table = table;
      this.since = now;
      this.evaluatedAt = now;
    }

    static TableState of(TableStateRecord r) {
      TableState state = new TableState(r.catalog(), r.namespace(), r.table(), r.since());
      state.snapshotId = r.snapshotId();
      state.needsPlan = r.needsPlan();
      state.reason = r.reason();
      state.evaluatedAt = r.evaluatedAt();
      state.status = TableStatus.parse(r.status());
      state.paused = r.paused();
      state.parkedReason = r.parkedReason();
      state.parkedUntil = r.parkedUntil();
      state.failures = r.failures();
      state.lastProcessId = r.lastProcessId();
      state.dueSince = r.needsPlan() ? r.evaluatedAt() : null;
      state.health = r.health();
      state.dataFiles = r.dataFiles();
      state.equalityDeleteFiles = r.equalityDeleteFiles();
      state.positionDeleteFiles = r.positionDeleteFiles();
      return state;
    }

    String qualified() {
      return catalog + "." + namespace + "." + table;
    }

    TableStateRecord record() {
      String shown = waitingFor != null && status == TableStatus.PENDING ? waitingFor : reason;
      return new TableStateRecord(
          catalog,
          namespace,
          table,
          snapshotId,
          needsPlan,
          shown,
          evaluatedAt,
          status.label(),
          since,
          paused,
          parkedReason,
          parkedUntil,
          failures,
          lastProcessId,
          health,
          dataFiles,
          equalityDeleteFiles,
          positionDeleteFiles);
    }

    /** Seconds this table has been due (0 when not due): the optimizing lag. */
    double lagSeconds(Instant now) {
      Instant due = dueSince;
      return needsPlan && due != null
          ? Math.max(0, Duration.between(due, now).toMillis() / 1e3)
          : 0;
    }
  }

  /** A running process; fields guarded by the service lock. */
  static final class Process {
    final String id;
    final TableState table;
    final Table iceberg;
    final OptimizingPlan plan;
    final OptimizingType type;
    final String trigger;
    final Instant created;
    final Map<Integer, TaskState> tasks = new LinkedHashMap<>();
    final Set<PartitionKey> groups = new LinkedHashSet<>();
    final Set<PartitionKey> readyGroups = new LinkedHashSet<>();
    final Set<PartitionKey> finishedGroups = new LinkedHashSet<>();
    final Set<PartitionKey> committedGroups = new LinkedHashSet<>();
    final List<String> failureMessages = new ArrayList<>();
    ProcessStatus status = ProcessStatus.RUNNING;
    String message = "running";
    boolean commitScheduled;
    boolean finishing;

    /** A check around one of this process's commits failed: nothing more of it is committed. */
    boolean integrityAlarm;

    boolean startedByOverride;
    long rowsWritten;
    long bytesRead;
    long bytesWritten;

    Process(
        String id,
        TableState table,
        Table iceberg,
        OptimizingPlan plan,
        Instant created,
        OptimizingType requested) {
      this.id = id;
      this.table = table;
      this.iceberg = iceberg;
      this.plan = plan;
      this.type = plan.type();
      this.trigger = requested == null ? "auto" : "manual";
      this.created = created;
    }

    PartitionPlan partition(PartitionKey key) {
      for (PartitionPlan partition : plan.duePartitions()) {
        if (partition.key().equals(key)) {
          return partition;
        }
      }
      throw new IllegalStateException("process " + id + " has no partition " + key);
    }

    List<TaskState> tasksOf(PartitionKey key) {
      return tasks.values().stream().filter(t -> t.task.partition().equals(key)).toList();
    }

    boolean groupDone(PartitionKey key) {
      return !finishedGroups.contains(key)
          && tasksOf(key).stream().allMatch(t -> t.status == TaskStatus.SUCCEEDED);
    }

    boolean allGroupsFinished() {
      return finishedGroups.containsAll(groups);
    }

    ProcessRecord record(Instant now) {
      long rewriteBytes =
          plan.duePartitions().stream().mapToLong(PartitionPlan::rewriteBytes).sum();
      return new ProcessRecord(
          id,
          table.catalog,
          table.namespace,
          table.table,
          type.name().toLowerCase(Locale.ROOT),
          trigger,
          status.label(),
          plan.snapshotId(),
          groups.size(),
          tasks.size(),
          rewriteBytes,
          created,
          status == ProcessStatus.RUNNING ? null : now,
          message,
          committedGroups.size(),
          finishedGroups.size() - committedGroups.size(),
          rowsWritten,
          bytesRead,
          bytesWritten);
    }
  }

  /** One task and its current attempt; fields guarded by the service lock. */
  static final class TaskState {
    final Process process;
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

    TaskState(Process process, RewriteTask task, TaskAssignment assignment, String group) {
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
          status.label(),
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

  /** A registered worker; fields guarded by the service lock. */
  final class WorkerState {
    final String id;
    final String name;
    final String group;
    final int slots;
    final String engine;
    final String engineVersion;
    final String secret;
    final Instant registered;
    Instant lastSeen;

    WorkerState(
        String id,
        String name,
        String group,
        int slots,
        String engine,
        String engineVersion,
        String secret,
        Instant now) {
      this.secret = secret;
      this.id = id;
      this.name = name;
      this.group = group;
      this.slots = slots;
      this.engine = engine;
      this.engineVersion = engineVersion;
      this.registered = now;
      this.lastSeen = now;
    }

    WorkerRecord record() {
      int running =
          (int)
              attempts.values().stream()
                  .filter(t -> id.equals(t.workerId) && t.status == TaskStatus.LEASED)
                  .count();
      return new WorkerRecord(
          id, name, group, slots, engine, engineVersion, registered, lastSeen, running);
    }
  }
}
