/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.history;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.firn.core.commit.CommitOutcome;
import io.firn.core.commit.Committer;
import io.firn.core.commit.TaskResult;
import io.firn.core.maintenance.DanglingDeleteRemoval;
import io.firn.core.maintenance.DanglingDeleteReport;
import io.firn.core.maintenance.DanglingDeleteSettings;
import io.firn.core.maintenance.ManifestRewrite;
import io.firn.core.maintenance.ManifestRewriteReport;
import io.firn.core.maintenance.ManifestRewriteSettings;
import io.firn.core.maintenance.OrphanCleanupReport;
import io.firn.core.maintenance.OrphanCleanupSettings;
import io.firn.core.maintenance.OrphanFileCleanup;
import io.firn.core.maintenance.SnapshotExpiry;
import io.firn.core.maintenance.SnapshotExpiryReport;
import io.firn.core.maintenance.SnapshotExpirySettings;
import io.firn.core.plan.BinPackPlanner;
import io.firn.core.plan.OptimizingPlan;
import io.firn.core.plan.OptimizingType;
import io.firn.core.plan.PartitionPlan;
import io.firn.core.plan.RewriteTask;
import io.firn.core.policy.OptimizingPolicy;
import io.firn.core.protocol.CompleteRequest;
import io.firn.core.protocol.TaskAssignment;
import io.firn.core.protocol.TaskCodec;
import io.firn.core.table.PartitionKey;
import io.firn.worker.executor.ResultCheck;
import io.firn.worker.executor.RewriteExecutor;
import io.firn.worker.executor.TaskFailedException;
import io.firn.worker.local.LocalOptimizer;
import io.firn.worker.local.OptimizeReport;
import io.firn.worker.remote.ResultCodec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.jspecify.annotations.Nullable;

/**
 * One history on one real table: the writer, the reference model, Firn's plans in flight, and the
 * checks after every step. Every public method is one step (the same as an {@link Op}); it runs,
 * then checks, and throws {@link HistoryFailure} naming the step, the op and what broke.
 *
 * <p>Firn's steps: plans kept in numbered slots (so several are in flight, and go stale while the
 * writer commits), run in process or through the remote path ({@link TaskCodec} encode, JSON,
 * decode, a freshly loaded table and {@link RewriteExecutor}, then {@link ResultCodec} and JSON
 * back, as a remote worker and the server do), committed partition by partition with {@link
 * Committer#commitPartitions} and finished with {@link Committer#commitShared}; the one-shot {@link
 * LocalOptimizer#optimize}; and maintenance (dangling deletes, snapshot expiry, orphan files,
 * manifest rewrites). Conflicts and refused commits are fine outcomes; changed rows are not.
 */
final class History implements AutoCloseable {
  static final long ALL = -1;
  static final boolean REMOTE = true;
  static final boolean IN_PROCESS = false;
  static final boolean FINISH = true;
  static final boolean KEEP = false;

  private static final ObjectMapper JSON =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
  private static final int NOTES_KEPT = 12;

  /** Every this many steps the check also reads with {@code IcebergGenerics.read(table)}. */
  private static final int CANONICAL_EVERY = 10;

  /** {@code -Dfirn.history.trace=true} prints every step as it ends. */
  private static final boolean TRACE = Boolean.getBoolean("firn.history.trace");

  private static final String IO_IMPL = System.getProperty("firn.history.io-impl", "");

  /** A plan in flight. */
  private static final class InFlight {
    final OptimizingPlan plan;
    final String processId;
    final Map<Integer, TaskAssignment> assignments;
    final List<PartitionPlan> remaining;
    final Set<PartitionKey> committed = new HashSet<>();
    List<TaskResult> results;
    long runStartedMillis;
    final long plannedMillis;

    /**
     * The combined commit begun at planning (ADR 0045), until the slot's first commit uses or
     * discards it; later writer commits and maintenance run between the two.
     */
    Committer.@Nullable Prepared prepared;

    InFlight(
        OptimizingPlan plan,
        String processId,
        Map<Integer, TaskAssignment> assignments,
        Committer.@Nullable Prepared prepared) {
      this.plan = plan;
      this.processId = processId;
      this.assignments = assignments;
      this.remaining = new ArrayList<>(plan.duePartitions());
      this.plannedMillis = System.currentTimeMillis();
      this.prepared = prepared;
    }

    void discardPrepared() {
      Committer.Prepared early = prepared;
      if (early != null) {
        early.discard();
        prepared = null;
      }
    }
  }

  private enum StepKind {
    WRITER,
    FIRN,
    MAINTENANCE
  }

  private final HadoopCatalog catalog;
  private final TableIdentifier identifier;
  private final Table table;
  private final Map<String, String> policyOverrides;
  private final OptimizingPolicy policy;
  private final LocalOptimizer optimizer;
  private final ReferenceModel model = new ReferenceModel();
  private final UpsertWriter writer;
  private final Map<Integer, InFlight> slots = new TreeMap<>();
  private final List<Op> schedule = new ArrayList<>();
  private final Deque<String> notes = new ArrayDeque<>();
  private final String label;

  // Per step: what Firn committed, for the file-level checks.
  private final Set<String> allowedRewrites = new HashSet<>();
  private final Set<Long> planSequenceNumbers = new HashSet<>();
  private final Set<String> plannedDeleteRemovals = new HashSet<>();
  private final List<String> alarms = new ArrayList<>();
  private final List<String> refusals = new ArrayList<>();
  private StringBuilder stepNote = new StringBuilder();

  /**
   * Creates a fresh v2 table in a Hadoop catalog at {@code warehouse}.
   *
   * @param label what failure messages start with, e.g. {@code seed 17}
   * @param policy policy keys overriding Firn's defaults (small sizes so triggers fire)
   */
  static History create(Path warehouse, String name, String label, Map<String, String> policy) {
    HadoopCatalog catalog = new HadoopCatalog();
    catalog.setConf(new Configuration());
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put("warehouse", warehouse.toUri().toString());
    if (!IO_IMPL.isEmpty()) {
      properties.put("io-impl", IO_IMPL);
    }
    catalog.initialize("history", properties);
    TableIdentifier identifier = TableIdentifier.of("db", name);
    catalog.createTable(
        identifier,
        Rows.INITIAL_SCHEMA,
        PartitionSpec.unpartitioned(),
        Map.of("format-version", "2", "commit.manifest.min-count-to-merge", "4"));
    return new History(catalog, identifier, label, policy);
  }

  private History(
      HadoopCatalog catalog, TableIdentifier identifier, String label, Map<String, String> policy) {
    this.catalog = catalog;
    this.identifier = identifier;
    this.table = catalog.loadTable(identifier);
    this.label = label;
    this.policyOverrides = Map.copyOf(policy);
    this.policy = OptimizingPolicy.DEFAULTS.withOverrides(policy);
    this.optimizer = new LocalOptimizer(this.policy, new BinPackPlanner(), 2, line -> {});
    this.writer = new UpsertWriter(table);
  }

  // ---------------------------------------------------------------- writer steps

  /** A Flink checkpoint of upserts and deletes, e.g. {@code write(3, "U0-39 D5 U5")}. */
  void write(int version, String touches) {
    step(
        new Op.Write(version, touches),
        StepKind.WRITER,
        () -> {
          List<UpsertWriter.Touch> list = Notation.touches(touches);
          writer.checkpoint(version, list);
          Map<Long, Integer> occurrences = new java.util.HashMap<>();
          int upserts = 0;
          for (UpsertWriter.Touch touch : list) {
            int occurrence = occurrences.merge(touch.key(), 1, Integer::sum) - 1;
            if (touch.upsert()) {
              model.upsert(touch.key(), version, occurrence);
              upserts++;
            } else {
              model.delete(touch.key());
            }
          }
          note("%d upserts, %d deletes", upserts, list.size() - upserts);
        });
  }

  /** Spark-style position deletes of the live rows among these keys, e.g. {@code "3,17,40-45"}. */
  void sparkDelete(String keys) {
    step(
        new Op.SparkDelete(keys),
        StepKind.WRITER,
        () -> {
          Set<Long> deleted = writer.sparkDelete(Notation.keys(keys));
          deleted.forEach(model::delete);
          note("%d live rows deleted", deleted.size());
        });
  }

  void addColumn(String name, String type) {
    step(
        new Op.AddColumn(name, type),
        StepKind.WRITER,
        () -> {
          table.refresh();
          if (table.schema().findField(name) != null) {
            note("column exists");
            return;
          }
          writer.addColumn(name, type);
          model.addColumn(name, type);
        });
  }

  void widen() {
    step(
        new Op.Widen(),
        StepKind.WRITER,
        () -> {
          table.refresh();
          if (!"int".equals(model.columns().get("n"))) {
            note("already long");
            return;
          }
          writer.widen("n");
          model.widen("n");
        });
  }

  void spec(String spec) {
    step(
        new Op.Spec(spec),
        StepKind.WRITER,
        () ->
            note(
                writer.spec(spec)
                    ? "spec " + table.spec().specId() + " " + table.spec().fields()
                    : "spec unchanged"));
  }

  // ---------------------------------------------------------------- Firn steps

  void plan(int slot, String mode) {
    step(
        new Op.Plan(slot, mode),
        StepKind.FIRN,
        () -> {
          if (slots.containsKey(slot)) {
            note("slot %d busy", slot);
            return;
          }
          table.refresh();
          OptimizingPlan plan =
              switch (mode) {
                case "cheap" -> optimizer.planFromCheapSignals(table, Instant.now());
                case "auto" -> optimizer.plan(table, null, Instant.now());
                default -> optimizer.plan(table, OptimizingType.parse(mode), Instant.now());
              };
          if (!plan.hasWork()) {
            note("nothing to do (%s)", plan.note());
            return;
          }
          String processId = RewriteExecutor.newOperationId();
          Map<Integer, TaskAssignment> assignments = new LinkedHashMap<>();
          TaskCodec.Encoder encoder = TaskCodec.forTable(table);
          for (RewriteTask task : plan.tasks()) {
            // Encoded at planning time, as the server does.
            assignments.put(
                task.id(),
                encoder.encode(
                    task,
                    "history",
                    identifier.toString(),
                    processId + "/" + task.id(),
                    processId,
                    plan.snapshotId(),
                    plan.sequenceNumber(),
                    policy.equalityDeleteBloomThreshold()));
          }
          slots.put(
              slot,
              new InFlight(
                  plan,
                  processId,
                  assignments,
                  new Committer().prepare(table, plan, processId).orElse(null)));
          note("%s", describe(plan));
        });
  }

  void run(int slot, boolean remote) {
    step(
        new Op.Run(slot, remote),
        StepKind.FIRN,
        () -> {
          InFlight flight = slots.get(slot);
          if (flight == null || flight.results != null) {
            note(flight == null ? "slot %d empty" : "slot %d already ran", slot);
            return;
          }
          runTasks(slot, flight, remote);
        });
  }

  void commit(int slot, long mask, boolean finish) {
    step(
        new Op.Commit(slot, mask, finish),
        StepKind.FIRN,
        () -> {
          InFlight flight = slots.get(slot);
          if (flight == null) {
            note("slot %d empty", slot);
            return;
          }
          if (flight.results == null && !runTasks(slot, flight, false)) {
            return;
          }
          List<PartitionPlan> selected = new ArrayList<>();
          for (int i = 0; i < flight.remaining.size(); i++) {
            if (mask == ALL || ((mask >>> (i % 64)) & 1) == 1) {
              selected.add(flight.remaining.get(i));
            }
          }
          allow(flight.plan, selected);
          note("%d of %d partitions selected", selected.size(), flight.remaining.size());
          if (!selected.isEmpty()) {
            List<CommitOutcome> outcomes =
                new Committer()
                    .commitPartitions(
                        table,
                        flight.plan,
                        selected,
                        flight.results,
                        flight.processId,
                        flight.prepared);
            flight.prepared = null;
            record(outcomes);
            outcomes.stream()
                .filter(CommitOutcome::committed)
                .forEach(o -> flight.committed.add(o.partition()));
          }
          flight.remaining.removeAll(selected);
          if (finish || flight.remaining.isEmpty()) {
            if (!flight.remaining.isEmpty()) {
              // Abandoned partitions: their outputs go, as the server deletes them.
              Set<Integer> abandoned = new HashSet<>();
              flight.remaining.forEach(p -> p.tasks().forEach(t -> abandoned.add(t.id())));
              Committer.deleteOutputs(
                  table,
                  flight.results.stream().filter(r -> abandoned.contains(r.taskId())).toList());
            }
            new Committer()
                .commitShared(table, flight.plan, flight.committed, flight.processId)
                .ifPresent(shared -> record(List.of(shared)));
            slots.remove(slot);
          }
        });
  }

  /** {@code LocalOptimizer.optimize}: {@code auto} lets the cheap signals and triggers decide. */
  void optimize(String mode) {
    step(
        new Op.Optimize(mode),
        StepKind.FIRN,
        () -> {
          table.refresh();
          OptimizingType type = mode.equals("auto") ? null : OptimizingType.parse(mode);
          OptimizeReport report;
          try {
            report = optimizer.optimize(table, type, Instant.now());
          } catch (TaskFailedException e) {
            note("tasks failed: %s", e.getMessage());
            return;
          }
          allow(report.plan(), report.plan().duePartitions());
          note("%s", describe(report.plan()));
          record(report.outcomes());
        });
  }

  // ---------------------------------------------------------------- maintenance steps

  void expire(int retainLast) {
    step(
        new Op.Expire(retainLast),
        StepKind.MAINTENANCE,
        () -> {
          SnapshotExpiryReport report =
              new SnapshotExpiry(line -> {})
                  .expire(
                      table,
                      new SnapshotExpirySettings(Duration.ofMillis(1), retainLast, true, false),
                      Instant.now().plusSeconds(1));
          note("%d snapshots expired", report.expiredCount());
        });
  }

  /**
   * Orphan cleanup with the smallest minimum age the API allows (1 h) and a clock moved forward, so
   * every unreferenced file counts as old, except the outputs of plans that ran and are not
   * committed yet: in production the minimum age protects those, here the clock stops just before
   * the oldest of them was written.
   */
  void orphans() {
    step(
        new Op.Orphans(),
        StepKind.MAINTENANCE,
        () -> {
          long oldestOutput = Long.MAX_VALUE;
          for (InFlight flight : slots.values()) {
            if (flight.prepared != null) {
              // The manifests of a commit begun at planning.
              oldestOutput = Math.min(oldestOutput, flight.plannedMillis);
            }
            if (flight.results != null) {
              oldestOutput = Math.min(oldestOutput, flight.runStartedMillis);
            }
          }
          Instant clock =
              oldestOutput == Long.MAX_VALUE
                  ? Instant.now().plus(Duration.ofHours(1)).plusSeconds(1)
                  : Instant.ofEpochMilli(oldestOutput - 1_000).plus(Duration.ofHours(1));
          OrphanCleanupReport report =
              new OrphanFileCleanup(line -> {})
                  .clean(
                      table,
                      new OrphanCleanupSettings(Duration.ofHours(1), false),
                      Map.of(),
                      clock);
          note("%d orphan files deleted", report.deletedCount());
        });
  }

  void dangling() {
    step(
        new Op.Dangling(),
        StepKind.MAINTENANCE,
        () -> {
          DanglingDeleteReport report =
              new DanglingDeleteRemoval(line -> {})
                  .remove(table, DanglingDeleteSettings.DEFAULTS, RewriteExecutor.newOperationId());
          if (report.result() == DanglingDeleteReport.Result.UNKNOWN) {
            alarms.add("dangling-delete removal: " + report.message());
          }
          note("%s: %s", report.result(), report.message());
        });
  }

  /** Merges the small data manifests (from two on), possibly between a plan and its commit. */
  void manifests() {
    step(
        new Op.Manifests(),
        StepKind.MAINTENANCE,
        () -> {
          ManifestRewriteReport report =
              new ManifestRewrite(line -> {})
                  .rewrite(table, new ManifestRewriteSettings(2), RewriteExecutor.newOperationId());
          if (report.result() == ManifestRewriteReport.Result.UNKNOWN) {
            alarms.add("manifest rewrite: " + report.message());
          }
          note("%s: %s", report.result(), report.message());
        });
  }

  // ---------------------------------------------------------------- the step and its checks

  private void step(Op op, StepKind kind, Runnable action) {
    schedule.add(op);
    int step = schedule.size();
    allowedRewrites.clear();
    planSequenceNumbers.clear();
    plannedDeleteRemovals.clear();
    alarms.clear();
    refusals.clear();
    stepNote = new StringBuilder();
    table.refresh();
    Invariants.Files before = kind == StepKind.WRITER ? null : Invariants.Files.of(table);
    long started = System.nanoTime();
    RuntimeException thrown = null;
    try {
      action.run();
    } catch (RuntimeException e) {
      thrown = e;
    }
    note("%d ms", (System.nanoTime() - started) / 1_000_000);
    remember(step, op);
    if (thrown != null) {
      throw failure(HistoryFailure.Kind.EXCEPTION, "the step threw " + thrown, thrown);
    }
    table.refresh();
    List<TableReads.LiveRow> live;
    try {
      live = TableReads.locate(table);
    } catch (RuntimeException e) {
      throw failure(
          kind == StepKind.WRITER
              ? HistoryFailure.Kind.WRITER_DIVERGED
              : HistoryFailure.Kind.ROWS_CHANGED,
          "the table cannot be read after this step: " + e,
          e);
    }
    writer.cache(table.currentSnapshot(), live);
    String mismatch = Invariants.compare(model, table, TableReads.rowsByKey(live));
    if (mismatch == null && (step % CANONICAL_EVERY == 0)) {
      mismatch = canonicalMismatch();
    }
    if (mismatch != null) {
      String canonical = canonicalMismatch();
      throw failure(
          kind == StepKind.WRITER
              ? HistoryFailure.Kind.WRITER_DIVERGED
              : HistoryFailure.Kind.ROWS_CHANGED,
          (kind == StepKind.WRITER
                  ? "right after a writer step the table differs from the model: the writer or"
                      + " the model is wrong (or an earlier Firn step left the table in a state"
                      + " the writer could not see).\n"
                  : "Firn or maintenance changed rows.\n")
              + mismatch
              + (canonical == null
                  ? "\n(IcebergGenerics.read(table).build() itself agrees with the model: the"
                      + " test's read is wrong)"
                  : "")
              + (alarms.isEmpty() ? "" : "\nFirn's alarms in this step: " + alarms),
          null);
    }
    if (before != null) {
      String broken =
          Invariants.files(
              table,
              live,
              before,
              Invariants.Files.of(table),
              allowedRewrites,
              planSequenceNumbers,
              plannedDeleteRemovals,
              kind == StepKind.FIRN);
      if (broken != null) {
        throw failure(HistoryFailure.Kind.FILE_INVARIANT, broken, null);
      }
    }
    if (!refusals.isEmpty()) {
      throw failure(HistoryFailure.Kind.COMMIT_FAILED, String.join("\n  ", refusals), null);
    }
    if (!alarms.isEmpty()) {
      throw failure(
          HistoryFailure.Kind.INTEGRITY_ALARM,
          "the rows equal the model, yet Firn reported: " + String.join("\n  ", alarms),
          null);
    }
  }

  /** What {@code IcebergGenerics.read(table).build()} sees that the model does not, or null. */
  private String canonicalMismatch() {
    return Invariants.compare(model, table, TableReads.rowsByKeyGenerics(table));
  }

  /** Compares the table with the model through {@code IcebergGenerics.read(table).build()}. */
  void verifyWithIcebergGenerics() {
    table.refresh();
    String mismatch = canonicalMismatch();
    if (mismatch != null) {
      throw failure(
          HistoryFailure.Kind.ROWS_CHANGED,
          "IcebergGenerics.read(table).build() differs from the model at the end:\n" + mismatch,
          null);
    }
  }

  /** The outcomes of Firn's commit groups: conflicts are fine, alarms and failures are not. */
  private void record(List<CommitOutcome> outcomes) {
    for (CommitOutcome outcome : outcomes) {
      String where = outcome.partition() == null ? "<shared>" : outcome.partition().toString();
      note("%s %s", where, outcome.result().label());
      switch (outcome.result()) {
        case COMMITTED, CONFLICT -> {}
        case FAILED -> refusals.add("commit group " + where + " FAILED: " + outcome.message());
        case UNKNOWN, INTEGRITY_FAILED ->
            alarms.add(where + " " + outcome.result() + ": " + outcome.message());
      }
    }
  }

  /** Files the plan's selected partitions may replace, and the sequence number new ones carry. */
  private void allow(OptimizingPlan plan, List<PartitionPlan> partitions) {
    planSequenceNumbers.add(plan.sequenceNumber());
    for (PartitionPlan partition : partitions) {
      partition.tasks().forEach(t -> t.rewrite().forEach(e -> allowedRewrites.add(e.path())));
      partition.deletesToRemove().forEach(d -> plannedDeleteRemovals.add(d.location()));
    }
    plan.sharedDeletesToRemove().forEach(s -> plannedDeleteRemovals.add(s.file().location()));
  }

  /** Runs a slot's tasks; false when a task failed (nothing committed, the slot emptied). */
  private boolean runTasks(int slot, InFlight flight, boolean remote) {
    flight.runStartedMillis = System.currentTimeMillis();
    try {
      flight.results =
          remote ? runRemote(flight) : optimizer.runTasks(table, flight.plan, flight.processId);
      note(
          "%d tasks ran %s",
          flight.results.size(), remote ? "through the remote path" : "in process");
      return true;
    } catch (TaskFailedException e) {
      note("tasks failed, plan dropped: %s", e.getMessage());
      flight.discardPrepared();
      slots.remove(slot);
      return false;
    }
  }

  /** As a remote worker does: decode the assignment, load the table, run, encode the result. */
  private List<TaskResult> runRemote(InFlight flight) {
    List<TaskResult> results = new ArrayList<>();
    try {
      for (RewriteTask task : flight.plan.tasks()) {
        String attempt = flight.processId + "-t" + task.id() + "-a1";
        TaskAssignment received =
            JSON.readValue(
                JSON.writeValueAsString(
                    flight.assignments.get(task.id()).withLease(attempt, Long.MAX_VALUE)),
                TaskAssignment.class);
        Table workerTable = catalog.loadTable(TableIdentifier.parse(received.table()));
        RewriteTask decoded = TaskCodec.decode(received, task.id());
        TaskResult result =
            new RewriteExecutor(received.bloomThreshold())
                .execute(workerTable, decoded, received.attemptId());
        CompleteRequest sent =
            ResultCodec.encode("worker-1", "secret-1", attempt, workerTable, result);
        CompleteRequest arrived =
            JSON.readValue(JSON.writeValueAsString(sent), CompleteRequest.class);
        TaskResult handedIn =
            ResultCodec.decode(arrived, flight.assignments.get(task.id()), task.id());
        // As the server does before it accepts a result: a real result is never refused.
        ResultCheck.verify(table, task, attempt, handedIn, received.bloomThreshold());
        results.add(handedIn);
      }
    } catch (TaskFailedException e) {
      Committer.deleteOutputs(table, results);
      throw e;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return results;
  }

  private HistoryFailure failure(HistoryFailure.Kind kind, String message, Throwable cause) {
    int step = schedule.size();
    StringBuilder text = new StringBuilder();
    text.append(kind)
        .append(" at step ")
        .append(step)
        .append(" of ")
        .append(label)
        .append(": ")
        .append(schedule.get(step - 1).java())
        .append('\n')
        .append(message)
        .append("\nrecent steps:");
    notes.forEach(n -> text.append("\n  ").append(n));
    return new HistoryFailure(kind, step, text.toString(), cause);
  }

  private void note(String format, Object... args) {
    if (stepNote.length() > 0) {
      stepNote.append("; ");
    }
    stepNote.append(String.format(format, args));
  }

  private void remember(int step, Op op) {
    String line =
        "step " + step + " " + op.java() + (stepNote.length() > 0 ? "  // " + stepNote : "");
    if (TRACE) {
      System.out.println(label + ": " + line);
    }
    notes.addLast(line);
    while (notes.size() > NOTES_KEPT) {
      notes.removeFirst();
    }
  }

  private static String describe(OptimizingPlan plan) {
    return "plan at snapshot "
        + plan.snapshotId()
        + " (seq "
        + plan.sequenceNumber()
        + "): "
        + plan.duePartitions().stream()
            .map(
                p ->
                    p.key()
                        + " "
                        + p.type().label()
                        + " "
                        + p.rewriteFiles()
                        + " rewrite/"
                        + p.convertFiles()
                        + " convert/"
                        + p.deletesToRemove().size()
                        + " deletes")
            .collect(Collectors.joining(", "))
        + (plan.sharedDeletesToRemove().isEmpty()
            ? ""
            : ", " + plan.sharedDeletesToRemove().size() + " shared deletes");
  }

  // ---------------------------------------------------------------- for the generator and tests

  List<Op> schedule() {
    return List.copyOf(schedule);
  }

  ReferenceModel model() {
    return model;
  }

  Table table() {
    return table;
  }

  Map<String, String> policyOverrides() {
    return policyOverrides;
  }

  /** Slot → whether its tasks ran. */
  Map<Integer, Boolean> slots() {
    Map<Integer, Boolean> state = new TreeMap<>();
    slots.forEach((slot, flight) -> state.put(slot, flight.results != null));
    return state;
  }

  /**
   * Whether committing this slot's partitions selected by the mask would meet apache/iceberg#10962:
   * something was committed after the planning snapshot S, and the rewrite replaces every live data
   * file of sequence number at most seq(S), so Iceberg would take the new files' minimum sequence
   * number for the table's and drop delete files committed after S. For the generator's {@link
   * ScheduleGenerator.Mode#WITHOUT_KNOWN_DEFECTS} only.
   */
  boolean meetsIceberg10962(int slot, long mask) {
    InFlight flight = slots.get(slot);
    table.refresh();
    if (flight == null
        || table.currentSnapshot() == null
        || table.currentSnapshot().sequenceNumber() <= flight.plan.sequenceNumber()) {
      return false;
    }
    Set<String> rewritten = new HashSet<>();
    for (int i = 0; i < flight.remaining.size(); i++) {
      if (mask == ALL || ((mask >>> (i % 64)) & 1) == 1) {
        flight
            .remaining
            .get(i)
            .tasks()
            .forEach(t -> t.rewrite().forEach(e -> rewritten.add(e.path())));
      }
    }
    if (rewritten.isEmpty()) {
      return false;
    }
    return TableReads.liveDataFiles(table).values().stream()
        .filter(f -> f.dataSequenceNumber() <= flight.plan.sequenceNumber())
        .allMatch(f -> rewritten.contains(f.location()));
  }

  /** Closes and deletes the table with all its files (for replays while shrinking). */
  void drop() {
    try {
      catalog.dropTable(identifier, true);
    } finally {
      close();
    }
  }

  @Override
  public void close() {
    for (InFlight flight : slots.values()) {
      flight.discardPrepared();
      if (flight.results != null) {
        Committer.deleteOutputs(table, flight.results);
      }
    }
    slots.clear();
    try {
      catalog.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
