/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server;

import io.dropwizard.lifecycle.Managed;
import io.firn.core.catalog.CatalogSettings;
import io.firn.core.commit.Committer;
import io.firn.core.policy.OptimizingPolicy;
import io.firn.core.table.TableEvaluator;
import io.firn.server.store.StateStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The snapshot watcher: every interval it lists the tables of every catalog, and evaluates (with
 * {@link TableEvaluator}, cheap signals first) each watched table whose current snapshot changed
 * since it was last evaluated. Unchanged tables cost one {@code loadTable}.
 *
 * <p>Rounds run on one thread, never overlapping. The in-memory view is safe to read from any
 * thread; every change is written to the {@link StateStore} first.
 */
public final class TableWatcher implements Managed {
  private static final Logger LOG = LoggerFactory.getLogger(TableWatcher.class);
  private static final String PROCESS_ID = Committer.PROCESS_ID;

  private static final int OWN_COMMIT_DEPTH = 100;

  private final List<CatalogSettings> catalogs;
  private final ServerCatalogs connections;
  private final TablePatterns patterns;
  private final StateStore store;
  private final Duration interval;
  private final Clock clock;
  private final MeterRegistry registry;
  private final Map<String, TableRuntime> tables = new ConcurrentHashMap<>();
  private final Timer watchDuration;
  // Null until start(); a stopped watcher keeps its stopped executor.
  private @Nullable ScheduledExecutorService executor;
  private final ExecutorService evaluators;
  private final int maxEvaluationsPerRound;
  private final java.util.concurrent.atomic.AtomicInteger evaluationBudget =
      new java.util.concurrent.atomic.AtomicInteger();
  private final java.util.concurrent.atomic.AtomicInteger deferred =
      new java.util.concurrent.atomic.AtomicInteger();
  private @Nullable ScheduledFuture<?> schedule;
  private volatile TableListener listener = TableListener.NONE;
  private final Map<String, CatalogStatus> catalogStatus = new ConcurrentHashMap<>();
  private boolean saidNoTables;

  /**
   * A catalog as the last round saw it.
   *
   * @param listedAt when its tables were last listed (or tried); null before the first round
   * @param tables tables it had that the table patterns match; 0 when it could not be listed
   * @param error why it could not be listed; null when it could
   */
  public record CatalogStatus(
      String name, String type, @Nullable Instant listedAt, int tables, @Nullable String error) {}

  public TableWatcher(
      ServerCatalogs connections,
      TablePatterns patterns,
      StateStore store,
      Duration interval,
      Clock clock,
      MeterRegistry registry,
      int threads) {
    this(connections, patterns, store, interval, clock, registry, threads, Integer.MAX_VALUE);
  }

  /**
   * @param maxEvaluationsPerRound tables (new or changed) evaluated in one round at most; the
   *     others keep their old verdict until a later round, so a round over a large, cold lake stays
   *     short
   */
  public TableWatcher(
      ServerCatalogs connections,
      TablePatterns patterns,
      StateStore store,
      Duration interval,
      Clock clock,
      MeterRegistry registry,
      int threads,
      int maxEvaluationsPerRound) {
    this.maxEvaluationsPerRound = maxEvaluationsPerRound;
    this.evaluators =
        Executors.newFixedThreadPool(
            threads,
            r -> {
              Thread thread = new Thread(r, "firn-table-evaluator");
              thread.setDaemon(true);
              return thread;
            });
    this.connections = connections;
    this.catalogs = connections.settings();
    this.patterns = patterns;
    this.store = store;
    this.interval = interval;
    this.clock = clock;
    this.registry = registry;
    this.watchDuration =
        Timer.builder("firn.watch.duration")
            .description("Time of one snapshot-watch round over all catalogs")
            .register(registry);
    for (CatalogSettings settings : this.catalogs) {
      Gauge.builder(
              "firn.tables.watched",
              tables,
              all -> all.values().stream().filter(t -> t.catalog().equals(settings.name())).count())
          .description("Tables the snapshot watcher tracks, per catalog")
          .tag("catalog", settings.name())
          .register(registry);
    }
    // Register every result up front so the series exist (at 0) before the first evaluation.
    for (String result : List.of("needs_plan", "no_plan", "own_commit", "error")) {
      evaluations(result);
    }
  }

  @Override
  public void start() {
    loadState();
    ScheduledExecutorService started =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread thread = new Thread(r, "firn-table-watcher");
              thread.setDaemon(true);
              return thread;
            });
    executor = started;
    schedule =
        started.scheduleWithFixedDelay(
            this::roundLogged, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public void stop() throws Exception {
    ScheduledExecutorService started = executor;
    if (started != null) {
      if (schedule != null) {
        schedule.cancel(true);
      }
      started.shutdownNow();
      if (!started.awaitTermination(30, TimeUnit.SECONDS)) {
        LOG.warn("the table watcher did not stop within 30 s");
      }
    }
    evaluators.shutdownNow();
  }

  /** Who hears about evaluations and forgotten tables; set before {@link #start()}. */
  public void listener(TableListener listener) {
    this.listener = listener;
  }

  /**
   * Takes over what the state store knows, so that tables whose snapshot did not change while the
   * server was down are not evaluated again.
   */
  void loadState() {
    for (TableRuntime runtime : store.loadAll()) {
      tables.put(runtime.qualifiedName(), runtime);
    }
    LOG.info(
        "watching {} catalog(s), {} table(s) known from the state store",
        catalogs.size(),
        tables.size());
  }

  /** The tables known now, ordered by catalog, namespace and name. */
  public List<TableRuntime> tables() {
    List<TableRuntime> all = new ArrayList<>(tables.values());
    all.sort(
        Comparator.comparing(TableRuntime::catalog)
            .thenComparing(TableRuntime::namespace)
            .thenComparing(TableRuntime::table));
    return all;
  }

  /** Every configured catalog as the last round saw it, in configuration order. */
  public List<CatalogStatus> catalogs() {
    List<CatalogStatus> all = new ArrayList<>();
    for (CatalogSettings settings : catalogs) {
      all.add(
          catalogStatus.getOrDefault(
              settings.name(), new CatalogStatus(settings.name(), settings.type(), null, 0, null)));
    }
    return all;
  }

  /**
   * What to do when every catalog answers and none has a table the patterns match: the first run's
   * hint, in the log, {@code /healthcheck}, {@code /api/v1/overview} and the console.
   */
  public static String noTablesHint(List<CatalogStatus> catalogs) {
    if (catalogs.isEmpty()) {
      return "no catalog is configured: add one under catalogs: in the server's configuration"
          + " (README, \"Catalogs\")";
    }
    List<String> names = new ArrayList<>();
    for (CatalogStatus c : catalogs) {
      if (c.error() == null) {
        names.add(c.name() + " (" + c.type() + ")");
      }
    }
    String todo =
        "bin/firn ingest creates the default catalog and writes example tables into it; or point"
            + " catalogs: in the server's configuration (FIRN_CATALOG_URI, FIRN_WAREHOUSE) at the"
            + " catalog of your tables (README, \"Catalogs\")";
    if (names.isEmpty()) {
      return "no table is watched yet: no catalog can be listed (each one's error says why). "
          + todo;
    }
    return "no table is watched yet: the catalog(s) "
        + String.join(", ", names)
        + " have no table the table patterns match. "
        + todo;
  }

  private void roundLogged() {
    try {
      round();
    } catch (RuntimeException e) {
      // Never let an exception cancel the schedule.
      LOG.error("snapshot-watch round failed", e);
    }
  }

  /** One pass over every catalog; public for tests and a future "watch now" endpoint. */
  public synchronized void round() {
    evaluationBudget.set(maxEvaluationsPerRound);
    deferred.set(0);
    watchDuration.record(
        () -> {
          for (CatalogSettings settings : catalogs) {
            watchCatalog(settings);
          }
        });
    List<CatalogStatus> seen = catalogs();
    boolean none =
        !seen.isEmpty() && seen.stream().allMatch(c -> c.error() == null && c.tables() == 0);
    if (none && !saidNoTables) {
      LOG.warn(noTablesHint(seen));
    }
    saidNoTables = none;
    if (deferred.get() > 0) {
      LOG.info(
          "{} changed table(s) left for the next round (watch.maxEvaluationsPerRound = {})",
          deferred.get(),
          maxEvaluationsPerRound);
    }
  }

  private void watchCatalog(CatalogSettings settings) {
    Catalog catalog;
    List<TableIdentifier> identifiers;
    try {
      catalog = connections.catalog(settings.name());
      identifiers = listTables(catalog);
    } catch (RuntimeException e) {
      // Keep what is known: a catalog that is down does not mean its tables were dropped.
      LOG.warn("cannot list the tables of {}: {}", settings, e.getMessage());
      catalogStatus.put(
          settings.name(),
          new CatalogStatus(
              settings.name(),
              settings.type(),
              clock.instant(),
              0,
              String.valueOf(e.getMessage())));
      connections.reset(settings.name());
      return;
    }
    Set<String> seen = new HashSet<>();
    List<Future<?>> pending = new ArrayList<>();
    for (TableIdentifier id : identifiers) {
      String namespace = id.namespace().toString();
      String qualified = settings.name() + "." + namespace + "." + id.name();
      if (!patterns.matches(qualified)) {
        continue;
      }
      seen.add(qualified);
      pending.add(
          evaluators.submit(() -> watchTable(settings.name(), catalog, id, namespace, qualified)));
    }
    catalogStatus.put(
        settings.name(),
        new CatalogStatus(settings.name(), settings.type(), clock.instant(), seen.size(), null));
    for (Future<?> future : pending) {
      try {
        future.get();
      } catch (ExecutionException e) {
        LOG.warn(
            "watching a table of {} failed: {}", settings.name(), String.valueOf(e.getCause()));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    for (TableRuntime known : List.copyOf(tables.values())) {
      if (known.catalog().equals(settings.name()) && !seen.contains(known.qualifiedName())) {
        store.delete(known.catalog(), known.namespace(), known.table());
        tables.remove(known.qualifiedName());
        listener.forgotten(known.catalog(), known.namespace(), known.table());
        LOG.info("forgot {}: dropped or no longer matched by the table patterns", qualified(known));
      }
    }
  }

  private void watchTable(
      String catalogName, Catalog catalog, TableIdentifier id, String namespace, String qualified) {
    Table table;
    try {
      table = catalog.loadTable(id);
    } catch (RuntimeException e) {
      // Listed but not loadable: usually dropped between list and load; the next round decides.
      LOG.warn("cannot load {}: {}", qualified, e.getMessage());
      return;
    }
    Snapshot current = table.currentSnapshot();
    Long snapshotId = current == null ? null : current.snapshotId();
    TableRuntime known = tables.get(qualified);
    if (known != null && java.util.Objects.equals(known.snapshotId(), snapshotId)) {
      return;
    }
    if (evaluationBudget.getAndDecrement() <= 0) {
      // Not recorded: the next round sees the same change and evaluates it.
      deferred.incrementAndGet();
      return;
    }
    // The verdict Firn's own commits keep; null when someone else committed (or it is new).
    TableRuntime ownCommitOf =
        known != null && known.snapshotId() != null && ownCommitsOnly(table, known.snapshotId())
            ? known
            : null;
    boolean ownCommit = ownCommitOf != null;
    TableEvaluator.Evaluation evaluation;
    TableSummary summary;
    try {
      evaluation = TableEvaluator.evaluate(table, OptimizingPolicy.DEFAULTS);
      summary = TableSummary.of(table, evaluation.totals());
    } catch (RuntimeException e) {
      // Not recorded as evaluated: the same snapshot is tried again next round.
      evaluations("error").increment();
      LOG.warn("cannot evaluate {} at snapshot {}: {}", qualified, snapshotId, e.toString());
      return;
    }
    // Firn's own commits do not re-trigger: the verdict stays; health and counts move on.
    TableRuntime runtime =
        new TableRuntime(
            catalogName,
            namespace,
            id.name(),
            snapshotId,
            ownCommitOf != null ? ownCommitOf.needsPlan() : evaluation.needsPlan(),
            ownCommitOf != null ? ownCommitOf.reason() : evaluation.reason(),
            clock.instant(),
            evaluation.health(),
            evaluation.totals().dataFiles(),
            evaluation.totals().equalityDeleteFiles(),
            evaluation.totals().positionDeleteFiles(),
            summary);
    store.save(runtime);
    tables.put(qualified, runtime);
    String result = evaluation.needsPlan() ? "needs_plan" : "no_plan";
    evaluations(ownCommit ? "own_commit" : result).increment();
    listener.evaluated(runtime, ownCommit);
  }

  /**
   * Whether every snapshot after {@code known} up to the current one was committed by Firn (its
   * summary carries {@code firn.process-id}).
   */
  static boolean ownCommitsOnly(Table table, long known) {
    Snapshot snapshot = table.currentSnapshot();
    for (int depth = 0; snapshot != null && depth < OWN_COMMIT_DEPTH; depth++) {
      if (snapshot.snapshotId() == known) {
        return depth > 0;
      }
      if (snapshot.summary() == null || !snapshot.summary().containsKey(PROCESS_ID)) {
        return false;
      }
      snapshot = snapshot.parentId() == null ? null : table.snapshot(snapshot.parentId());
    }
    return false;
  }

  private Counter evaluations(String result) {
    return Counter.builder("firn.table.evaluations")
        .description("Table evaluations after a snapshot change, by result")
        .tag("result", result)
        .register(registry);
  }

  /** Every table of the catalog, walking nested namespaces when the catalog supports them. */
  static List<TableIdentifier> listTables(Catalog catalog) {
    if (!(catalog instanceof SupportsNamespaces namespaces)) {
      return catalog.listTables(Namespace.empty());
    }
    List<TableIdentifier> all = new ArrayList<>();
    Deque<Namespace> pending = new ArrayDeque<>(namespaces.listNamespaces(Namespace.empty()));
    Map<Namespace, Boolean> visited = new LinkedHashMap<>();
    while (!pending.isEmpty()) {
      Namespace namespace = pending.poll();
      if (visited.put(namespace, Boolean.TRUE) != null) {
        continue;
      }
      all.addAll(catalog.listTables(namespace));
      pending.addAll(namespaces.listNamespaces(namespace));
    }
    return all;
  }

  private static String qualified(TableRuntime runtime) {
    return runtime.qualifiedName();
  }
}
