/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.commit;

import io.firn.core.plan.OptimizingPlan;
import io.firn.core.plan.OptimizingType;
import io.firn.core.plan.PartitionPlan;
import io.firn.core.plan.RewriteTask;
import io.firn.core.table.DataFileEntry;
import io.firn.core.table.PartitionKey;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.util.SnapshotUtil;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits optimizing results next to live writers, exactly per the commit contract
 * (ARCHITECTURE.md, "Committing next to live writers"):
 *
 * <ul>
 *   <li>rewrites: {@link RewriteFiles} with {@code validateFromSnapshot(S)} and {@code
 *       dataSequenceNumber(seq(S))}, so equality deletes a writer commits after S still apply to
 *       the new files and are no conflict, while a new position delete on a replaced file is;
 *   <li>equality-to-position conversion and delete removal: a {@link RowDelta} validated from S
 *       with {@code validateDataFilesExist} on the converted files;
 *   <li>both in one transaction per partition (the commit group), so a conflict fails that
 *       partition only and leaves the table untouched for it;
 *   <li>row arithmetic checked before commit, snapshot ancestry after.
 * </ul>
 */
public final class Committer {
  private static final Logger LOG = LoggerFactory.getLogger(Committer.class);

  /** Snapshot summary keys Firn sets on its commits, so watchers recognise them. */
  public static final String PROCESS_ID = "firn.process-id";

  public static final String OPTIMIZING_TYPE = "firn.optimizing-type";
  public static final String PLANNING_SNAPSHOT = "firn.planning-snapshot-id";

  /** Attempts per group when Iceberg's own retries lose the metadata swap. */
  private static final int COMMIT_ATTEMPTS = 5;

  private static final String MISSING_FILES = "Missing required files to delete";

  /** One partition's results, ready to commit. */
  private record Group(
      PartitionPlan partition,
      List<TaskResult> results,
      List<DataFile> rewritten,
      List<String> converted,
      List<DataFile> added,
      List<DeleteFile> addedDeletes,
      long rowsWritten,
      long rowsDeleted) {}

  /**
   * Commits several partitions' results: first all in one transaction (each manifest is rewritten
   * once), and when that conflicts, each partition as its own group, so a conflict fails only the
   * partition it concerns. Never throws for conflicts or failures: one outcome per partition says
   * what happened; output files are deleted unless the commit state is unknown.
   */
  public List<CommitOutcome> commitPartitions(
      Table table,
      OptimizingPlan plan,
      List<PartitionPlan> partitions,
      List<TaskResult> results,
      String processId) {
    return commitPartitions(table, plan, partitions, results, processId, null);
  }

  /**
   * As {@link #commitPartitions(Table, OptimizingPlan, List, List, String)}, first through {@code
   * prepared} when it was begun for exactly these partitions and every one of them is ready; when
   * it cannot be used or its commit conflicts, the commit goes on as without it. {@code prepared}
   * is used at most once and discarded here when it was not used.
   */
  public List<CommitOutcome> commitPartitions(
      Table table,
      OptimizingPlan plan,
      List<PartitionPlan> partitions,
      List<TaskResult> results,
      String processId,
      @Nullable Prepared prepared) {
    Map<Integer, TaskResult> byTask = new LinkedHashMap<>();
    results.forEach(r -> byTask.put(r.taskId(), r));
    List<CommitOutcome> outcomes = new ArrayList<>();
    List<Group> ready = new ArrayList<>();
    for (PartitionPlan partition : partitions) {
      List<TaskResult> own = new ArrayList<>();
      partition
          .tasks()
          .forEach(
              t -> {
                TaskResult result = byTask.get(t.id());
                if (result != null) {
                  own.add(result);
                }
              });
      if (own.size() != partition.tasks().size()) {
        deleteOutputs(table, own);
        outcomes.add(
            CommitOutcome.notCommitted(
                partition.key(),
                CommitOutcome.Result.FAILED,
                "a task of this partition has no result; nothing committed"));
        continue;
      }
      Group group = collect(partition, own);
      Optional<String> problem = rowCheck(group);
      if (problem.isPresent()) {
        deleteOutputs(table, own);
        String message =
            "row check failed for "
                + table.name()
                + " partition "
                + partition.key()
                + ": "
                + problem.get();
        LOG.error(message);
        outcomes.add(
            CommitOutcome.notCommitted(
                partition.key(), CommitOutcome.Result.INTEGRITY_FAILED, message));
        continue;
      }
      ready.add(group);
    }
    if (prepared != null) {
      List<CommitOutcome> done =
          prepared.usableFor(partitions, ready)
              ? commitPrepared(table, plan, prepared, ready)
              : null;
      prepared.discard();
      if (done != null) {
        outcomes.addAll(done);
        return outcomes;
      }
    }
    if (ready.size() > 1) {
      try {
        outcomes.addAll(commitGroups(table, plan, ready, processId));
        return outcomes;
      } catch (ValidationException | CommitFailedException e) {
        LOG.info(
            "{}: the combined commit of {} partitions conflicted ({}); committing each partition on"
                + " its own",
            table.name(),
            ready.size(),
            e.getMessage());
      } catch (CommitStateUnknownException e) {
        for (Group group : ready) {
          outcomes.add(unknown(table, group.partition().key(), e));
        }
        return outcomes;
      } catch (IntegrityCheckFailedException e) {
        LOG.error(e.getMessage());
        for (Group group : ready) {
          outcomes.add(integrityFailed(group.partition().key(), e));
        }
        return outcomes;
      } catch (RuntimeException e) {
        LOG.warn(
            "{}: the combined commit failed ({}); committing each partition on its own",
            table.name(),
            e.toString());
      }
    }
    for (Group group : ready) {
      outcomes.add(commitOne(table, plan, group, processId));
    }
    return outcomes;
  }

  /** Commits one partition's results as its own group (see {@link #commitPartitions}). */
  public CommitOutcome commitPartition(
      Table table,
      OptimizingPlan plan,
      PartitionPlan partition,
      List<TaskResult> results,
      String processId) {
    return commitPartitions(table, plan, List.of(partition), results, processId).get(0);
  }

  private static Group collect(PartitionPlan partition, List<TaskResult> results) {
    List<DataFile> rewritten = new ArrayList<>();
    List<String> converted = new ArrayList<>();
    List<DataFile> added = new ArrayList<>();
    List<DeleteFile> addedDeletes = new ArrayList<>();
    long rowsDeleted = 0;
    for (RewriteTask task : partition.tasks()) {
      task.rewrite().forEach(e -> rewritten.add(e.file()));
      task.convert().forEach(e -> converted.add(e.path()));
    }
    for (TaskResult result : results) {
      rowsDeleted += result.rowsDeleted();
      added.addAll(result.dataFiles());
      addedDeletes.addAll(result.positionDeletes());
    }
    long rowsWritten = added.stream().mapToLong(DataFile::recordCount).sum();
    return new Group(
        partition, results, rewritten, converted, added, addedDeletes, rowsWritten, rowsDeleted);
  }

  /** Rows read − rows deleted = rows written, and rows read = the metadata's input rows. */
  private static Optional<String> rowCheck(Group group) {
    long inputRecords =
        group.partition().tasks().stream()
            .flatMap(t -> t.rewrite().stream())
            .mapToLong(DataFileEntry::recordCount)
            .sum();
    long rowsRead = group.results().stream().mapToLong(TaskResult::rowsRead).sum();
    if (rowsRead != inputRecords || rowsRead - group.rowsDeleted() != group.rowsWritten()) {
      return Optional.of(
          String.format(
              "metadata says %d input rows, read %d, deleted %d, wrote %d (read - deleted must"
                  + " equal written); nothing committed",
              inputRecords, rowsRead, group.rowsDeleted(), group.rowsWritten()));
    }
    return Optional.empty();
  }

  private CommitOutcome commitOne(Table table, OptimizingPlan plan, Group group, String processId) {
    PartitionKey key = group.partition().key();
    try {
      return commitGroups(table, plan, List.of(group), processId).get(0);
    } catch (ValidationException e) {
      deleteOutputs(table, group.results());
      String message =
          (e instanceof CommitGuard.UnplannedRemovalException
                  ? "refused: "
                  : "conflict with a concurrent commit: ")
              + e.getMessage()
              + "; partition left unchanged, it will be planned again from a fresh snapshot";
      LOG.warn("{} partition {}: {}", table.name(), key, message);
      return CommitOutcome.notCommitted(key, CommitOutcome.Result.CONFLICT, message);
    } catch (CommitFailedException e) {
      deleteOutputs(table, group.results());
      String message =
          "lost the commit race to concurrent writers "
              + COMMIT_ATTEMPTS
              + " times ("
              + e.getMessage()
              + "); partition left unchanged, it will be planned again";
      LOG.warn("{} partition {}: {}", table.name(), key, message);
      return CommitOutcome.notCommitted(key, CommitOutcome.Result.CONFLICT, message);
    } catch (CommitStateUnknownException e) {
      return unknown(table, key, e);
    } catch (IntegrityCheckFailedException e) {
      LOG.error(e.getMessage());
      return integrityFailed(key, e);
    } catch (RuntimeException e) {
      deleteOutputs(table, group.results());
      String message = "commit failed: " + e + "; partition left unchanged";
      LOG.error("{} partition {}: {}", table.name(), key, message, e);
      return CommitOutcome.notCommitted(key, CommitOutcome.Result.FAILED, message);
    }
  }

  /** An integrity alarm; when it came after the commit, the outcome names the live snapshot. */
  private static CommitOutcome integrityFailed(
      @Nullable PartitionKey key, IntegrityCheckFailedException e) {
    return new CommitOutcome(
        key,
        CommitOutcome.Result.INTEGRITY_FAILED,
        String.valueOf(e.getMessage()),
        e.committedSnapshotId(),
        0,
        0,
        0,
        0);
  }

  private static CommitOutcome unknown(Table table, PartitionKey key, RuntimeException e) {
    String message =
        "the catalog did not confirm the commit ("
            + e.getMessage()
            + "); output files kept, check the table history before re-running";
    LOG.error("{} partition {}: {}", table.name(), key, message);
    return CommitOutcome.notCommitted(key, CommitOutcome.Result.UNKNOWN, message);
  }

  /**
   * Commits the groups in one transaction and checks the history after it.
   *
   * @throws ValidationException on a conflict; nothing was committed
   * @throws CommitFailedException when the metadata swap kept losing; nothing was committed
   */
  private List<CommitOutcome> commitGroups(
      Table table, OptimizingPlan plan, List<Group> groups, String processId) {
    List<DataFile> rewritten = new ArrayList<>();
    List<String> converted = new ArrayList<>();
    List<DataFile> added = new ArrayList<>();
    List<DeleteFile> addedDeletes = new ArrayList<>();
    List<DeleteFile> toRemove = new ArrayList<>();
    OptimizingType type = OptimizingType.NONE;
    for (Group group : groups) {
      rewritten.addAll(group.rewritten());
      converted.addAll(group.converted());
      added.addAll(group.added());
      addedDeletes.addAll(group.addedDeletes());
      toRemove.addAll(group.partition().deletesToRemove());
      if (group.partition().type().compareTo(type) > 0) {
        type = group.partition().type();
      }
    }
    Map<String, String> summary = summary(plan, type.label(), processId);
    Snapshot before = refreshed(table);
    List<DeleteFile> removedDeletes = toRemove;
    boolean filtered = false;
    Transaction transaction = null;
    for (int attempt = 1; ; attempt++) {
      if (rewritten.isEmpty() && addedDeletes.isEmpty() && removedDeletes.isEmpty()) {
        // Nothing to change: conversions that found no row to delete, or delete files to remove
        // that an earlier commit (or Iceberg itself) already removed. The groups' work is done;
        // there is no snapshot to make and no history to check (the planning snapshot may be
        // long expired by now).
        break;
      }
      try {
        transaction =
            transaction(
                table, plan, rewritten, added, removedDeletes, addedDeletes, converted, summary);
        transaction.commitTransaction();
        break;
      } catch (ValidationException e) {
        // Iceberg drops delete files older than every live data file by itself on each commit
        // (an earlier group, or a writer, may have done so); asking to remove one that is gone
        // fails. Retry once with the ones still there; a missing data file fails again.
        if (filtered || !String.valueOf(e.getMessage()).startsWith(MISSING_FILES)) {
          throw e;
        }
        table.refresh();
        removedDeletes = stillLive(table, toRemove);
        filtered = true;
      } catch (CommitFailedException e) {
        // Lost the metadata swap to a writer more often than Iceberg's own retries allow; the
        // next attempt re-validates against the new state, so retrying is safe.
        if (attempt >= COMMIT_ATTEMPTS) {
          throw e;
        }
        LOG.info(
            "{}: commit attempt {} lost the race to a concurrent commit, retrying",
            table.name(),
            attempt);
        backoff(attempt);
        table.refresh();
        if (filtered) {
          removedDeletes = stillLive(table, toRemove);
        }
      }
    }
    long snapshotId;
    if (transaction == null) {
      snapshotId = before == null ? -1 : before.snapshotId();
    } else {
      snapshotId = transaction.table().currentSnapshot().snapshotId();
      checkAncestry(
          table,
          plan.snapshotId(),
          before,
          snapshotId,
          groups.size() == 1 ? groups.get(0).partition().key() : null);
    }
    return committed(groups, removedDeletes, transaction != null, snapshotId);
  }

  /** What each group's commit did, all of them in snapshot {@code snapshotId}. */
  private static List<CommitOutcome> committed(
      List<Group> groups, List<DeleteFile> removedDeletes, boolean madeSnapshot, long snapshotId) {
    Set<String> removedPaths = new HashSet<>();
    removedDeletes.forEach(d -> removedPaths.add(d.location()));
    List<CommitOutcome> outcomes = new ArrayList<>();
    for (Group group : groups) {
      long removed =
          group.partition().deletesToRemove().stream()
              .filter(d -> removedPaths.contains(d.location()))
              .count();
      String message =
          !madeSnapshot
              ? group.partition().type().label()
                  + ": nothing to change (no data file rewritten, no position delete to add, no"
                  + " delete file left to remove); no snapshot made"
              : String.format(
                  "%s: %d data files -> %d, %d delete files removed, %d position-delete files added, %d"
                      + " rows written, %d deleted rows dropped",
                  group.partition().type().label(),
                  group.rewritten().size(),
                  group.added().size(),
                  removed,
                  group.addedDeletes().size(),
                  group.rowsWritten(),
                  group.rowsDeleted());
      outcomes.add(
          new CommitOutcome(
              group.partition().key(),
              CommitOutcome.Result.COMMITTED,
              message,
              snapshotId,
              group.rewritten().size(),
              group.added().size(),
              removed,
              group.addedDeletes().size()));
    }
    return outcomes;
  }

  /**
   * Begins the combined commit of every due partition of {@code plan} (ADR 0045): a transaction
   * with Iceberg's {@link RewriteFiles} of the files the plan replaces, applied at once on a thread
   * of its own, so that Iceberg writes the table's manifests again with those files marked deleted
   * while the tasks run instead of after them. Empty when the plan converts equality deletes (its
   * commit needs a row delta) or replaces no data file. Commits nothing.
   */
  public Optional<Prepared> prepare(Table table, OptimizingPlan plan, String processId) {
    List<DataFile> rewritten = new ArrayList<>();
    List<DeleteFile> toRemove = new ArrayList<>();
    Set<PartitionKey> keys = new HashSet<>();
    OptimizingType type = OptimizingType.NONE;
    for (PartitionPlan partition : plan.duePartitions()) {
      for (RewriteTask task : partition.tasks()) {
        if (!task.convert().isEmpty()) {
          return Optional.empty();
        }
        task.rewrite().forEach(e -> rewritten.add(e.file()));
      }
      toRemove.addAll(partition.deletesToRemove());
      keys.add(partition.key());
      if (partition.type().compareTo(type) > 0) {
        type = partition.type();
      }
    }
    if (rewritten.isEmpty() || !(table instanceof HasTableOperations)) {
      return Optional.empty();
    }
    Transaction transaction;
    RewriteFiles rewrite;
    try {
      transaction = CommitGuard.transaction(table, rewritten, toRemove);
      rewrite =
          rewrite(transaction, plan, rewritten, toRemove, summary(plan, type.label(), processId));
    } catch (RuntimeException e) {
      // Only a head start: the commit is then made as without it.
      LOG.warn("{}: cannot begin the commit while the tasks run: {}", table.name(), e.toString());
      return Optional.empty();
    }
    FutureTask<Snapshot> applied = new FutureTask<>(rewrite::apply);
    Thread thread = new Thread(applied, "firn-commit-prepare");
    thread.setDaemon(true);
    thread.start();
    return Optional.of(new Prepared(table, keys, transaction, rewrite, toRemove, applied));
  }

  /**
   * Commits the groups through {@code prepared}. Null when that did not commit (a conflict, a
   * validation or an early apply that failed, a lost swap): the caller then commits the groups as
   * if nothing had been prepared.
   */
  private @Nullable List<CommitOutcome> commitPrepared(
      Table table, OptimizingPlan plan, Prepared prepared, List<Group> groups) {
    List<DataFile> added = new ArrayList<>();
    groups.forEach(g -> added.addAll(g.added()));
    Snapshot before = refreshed(table);
    long snapshotId;
    try {
      snapshotId = prepared.commit(added);
    } catch (CommitStateUnknownException e) {
      List<CommitOutcome> unknown = new ArrayList<>();
      for (Group group : groups) {
        unknown.add(unknown(table, group.partition().key(), e));
      }
      return unknown;
    } catch (RuntimeException e) {
      LOG.info(
          "{}: the commit begun while the tasks ran did not go through ({}); committing without it",
          table.name(),
          e.getMessage());
      return null;
    }
    try {
      checkAncestry(
          table,
          plan.snapshotId(),
          before,
          snapshotId,
          groups.size() == 1 ? groups.get(0).partition().key() : null);
    } catch (IntegrityCheckFailedException e) {
      LOG.error(e.getMessage());
      List<CommitOutcome> failed = new ArrayList<>();
      for (Group group : groups) {
        failed.add(integrityFailed(group.partition().key(), e));
      }
      return failed;
    }
    return committed(groups, prepared.removedDeletes, true, snapshotId);
  }

  /**
   * A combined commit begun by {@link #prepare} while the tasks run; used, or discarded, by {@link
   * #commitPartitions(Table, OptimizingPlan, List, List, String, Prepared)}. Not thread-safe: one
   * thread prepares and commits.
   */
  public static final class Prepared {
    private final Table table;
    private final Set<PartitionKey> partitions;
    private final Transaction transaction;
    private final RewriteFiles rewrite;
    private final List<DeleteFile> removedDeletes;
    private final FutureTask<Snapshot> applied;
    private boolean committing;
    private boolean discarded;
    private @Nullable Long committedSnapshotId;

    private Prepared(
        Table table,
        Set<PartitionKey> partitions,
        Transaction transaction,
        RewriteFiles rewrite,
        List<DeleteFile> removedDeletes,
        FutureTask<Snapshot> applied) {
      this.table = table;
      this.partitions = partitions;
      this.transaction = transaction;
      this.rewrite = rewrite;
      this.removedDeletes = removedDeletes;
      this.applied = applied;
    }

    /** Begun for exactly these partitions, each ready, none adding position deletes. */
    private boolean usableFor(List<PartitionPlan> requested, List<Group> ready) {
      if (committing || discarded || ready.size() != requested.size()) {
        return false;
      }
      Set<PartitionKey> keys = new HashSet<>();
      requested.forEach(p -> keys.add(p.key()));
      return keys.equals(partitions)
          && ready.stream().allMatch(g -> g.addedDeletes().isEmpty() && g.converted().isEmpty());
    }

    /**
     * Adds the outputs and commits: Iceberg applies the rewrite again on the table as it is now,
     * reusing the manifests the early apply wrote for every manifest still in the table.
     *
     * @return the committed snapshot's id
     */
    private long commit(List<DataFile> added) {
      committing = true;
      await();
      added.forEach(rewrite::addFile);
      rewrite.commit();
      transaction.commitTransaction();
      long id = transaction.table().currentSnapshot().snapshotId();
      committedSnapshotId = id;
      return id;
    }

    /** The snapshot committed through this preparation; empty when it was not used. */
    public OptionalLong committedSnapshotId() {
      Long id = committedSnapshotId;
      return id == null ? OptionalLong.empty() : OptionalLong.of(id);
    }

    /** Waits for the early apply; rethrows its failure. */
    private Snapshot await() {
      try {
        return applied.get();
      } catch (ExecutionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof RuntimeException runtime) {
          throw runtime;
        }
        if (cause instanceof Error error) {
          throw error;
        }
        throw new IllegalStateException("the early apply of the commit failed", cause);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for the early apply", e);
      }
    }

    /**
     * When no commit was attempted through it, waits for the early apply and deletes the manifests
     * and the manifest list it wrote (nothing references them). Best effort: orphan cleanup catches
     * what is left, as after any failed commit. Idempotent.
     */
    public void discard() {
      if (discarded || committing) {
        return;
      }
      discarded = true;
      Snapshot early;
      try {
        early = await();
      } catch (RuntimeException e) {
        return;
      }
      try {
        for (ManifestFile manifest : early.allManifests(table.io())) {
          Long writer = manifest.snapshotId();
          if (writer != null && writer == early.snapshotId()) {
            table.io().deleteFile(manifest.path());
          }
        }
        table.io().deleteFile(early.manifestListLocation());
      } catch (RuntimeException e) {
        LOG.warn(
            "{}: cannot delete the manifests of a commit begun and not used ({}); orphan cleanup"
                + " will",
            table.name(),
            e.toString());
      }
    }
  }

  /**
   * Removes the delete files that span partitions once every partition they need has committed.
   *
   * @param committed partitions whose group committed in this process
   * @return empty when there is nothing to remove
   */
  public Optional<CommitOutcome> commitShared(
      Table table, OptimizingPlan plan, Set<PartitionKey> committed, String processId) {
    List<DeleteFile> candidates = new ArrayList<>();
    for (OptimizingPlan.SharedDelete shared : plan.sharedDeletesToRemove()) {
      if (committed.containsAll(shared.requires())) {
        candidates.add(shared.file());
      }
    }
    if (candidates.isEmpty()) {
      return Optional.empty();
    }
    try {
      Snapshot before = refreshed(table);
      List<DeleteFile> removable = stillLive(table, candidates);
      if (removable.isEmpty()) {
        return Optional.empty();
      }
      requirePlanningSnapshot(table, plan);
      Transaction transaction = CommitGuard.transaction(table, List.of(), removable);
      RowDelta delta = CommitGuard.newRowDelta(transaction).validateFromSnapshot(plan.snapshotId());
      removable.forEach(delta::removeDeletes);
      summary(plan, plan.type().label(), processId).forEach(delta::set);
      delta.commit();
      transaction.commitTransaction();
      Snapshot ours = transaction.table().currentSnapshot();
      checkAncestry(table, plan.snapshotId(), before, ours.snapshotId(), null);
      return Optional.of(
          new CommitOutcome(
              null,
              CommitOutcome.Result.COMMITTED,
              removable.size() + " delete files spanning partitions removed",
              ours.snapshotId(),
              0,
              0,
              removable.size(),
              0));
    } catch (CommitGuard.UnplannedRemovalException e) {
      return Optional.of(
          CommitOutcome.notCommitted(
              null,
              CommitOutcome.Result.CONFLICT,
              "refused removing shared delete files: " + e.getMessage()));
    } catch (ValidationException e) {
      return Optional.of(
          CommitOutcome.notCommitted(
              null,
              CommitOutcome.Result.CONFLICT,
              "conflict removing shared delete files: " + e.getMessage()));
    } catch (CommitStateUnknownException e) {
      return Optional.of(
          CommitOutcome.notCommitted(
              null, CommitOutcome.Result.UNKNOWN, "commit state unknown: " + e.getMessage()));
    } catch (IntegrityCheckFailedException e) {
      LOG.error(e.getMessage());
      return Optional.of(integrityFailed(null, e));
    } catch (RuntimeException e) {
      return Optional.of(
          CommitOutcome.notCommitted(
              null, CommitOutcome.Result.FAILED, "removing shared delete files failed: " + e));
    }
  }

  /** Deletes the files of uncommitted results (best effort; orphan cleanup catches the rest). */
  public static void deleteOutputs(Table table, Collection<TaskResult> results) {
    for (TaskResult result : results) {
      List<ContentFile<?>> files = new ArrayList<>(result.dataFiles());
      files.addAll(result.positionDeletes());
      for (ContentFile<?> file : files) {
        try {
          table.io().deleteFile(file.location());
        } catch (RuntimeException e) {
          LOG.warn("cannot delete uncommitted output {}: {}", file.location(), e.toString());
        }
      }
    }
  }

  private static Transaction transaction(
      Table table,
      OptimizingPlan plan,
      List<DataFile> rewritten,
      List<DataFile> added,
      List<DeleteFile> removedDeletes,
      List<DeleteFile> addedDeletes,
      List<String> converted,
      Map<String, String> summary) {
    boolean removeInDelta = rewritten.isEmpty() && !removedDeletes.isEmpty();
    boolean needsDelta = !addedDeletes.isEmpty() || removeInDelta;
    if (needsDelta) {
      requirePlanningSnapshot(table, plan);
    }
    Transaction transaction = CommitGuard.transaction(table, rewritten, removedDeletes);
    if (!rewritten.isEmpty()) {
      RewriteFiles rewrite = rewrite(transaction, plan, rewritten, removedDeletes, summary);
      added.forEach(rewrite::addFile);
      rewrite.commit();
    }
    if (needsDelta) {
      RowDelta delta = CommitGuard.newRowDelta(transaction).validateFromSnapshot(plan.snapshotId());
      addedDeletes.forEach(delta::addDeletes);
      if (removeInDelta) {
        removedDeletes.forEach(delta::removeDeletes);
      }
      if (!converted.isEmpty()) {
        delta.validateDataFilesExist(converted);
      }
      summary.forEach(delta::set);
      delta.commit();
    }
    return transaction;
  }

  /**
   * The rewrite of a commit group, without its outputs: validated from the planning snapshot S, the
   * new files at S's sequence number, the replaced data files and the delete files to remove (here,
   * not in a row delta: this operation may drop them by sequence number), Firn's summary.
   */
  private static RewriteFiles rewrite(
      Transaction transaction,
      OptimizingPlan plan,
      List<DataFile> rewritten,
      List<DeleteFile> removedDeletes,
      Map<String, String> summary) {
    RewriteFiles rewrite =
        transaction
            .newRewrite()
            .validateFromSnapshot(plan.snapshotId())
            .dataSequenceNumber(plan.sequenceNumber());
    rewritten.forEach(rewrite::deleteFile);
    removedDeletes.forEach(rewrite::deleteFile);
    summary.forEach(rewrite::set);
    return rewrite;
  }

  /**
   * Iceberg validates a row delta only from a snapshot the table still has (a rewrite also from an
   * expired one whose child is retained). When expiry removed the planning snapshot, the group is a
   * conflict: nothing is committed, and the next plan starts from a snapshot that exists.
   *
   * @throws ValidationException when the planning snapshot is gone
   */
  private static void requirePlanningSnapshot(Table table, OptimizingPlan plan) {
    if (table.snapshot(plan.snapshotId()) == null) {
      throw new ValidationException(
          "the planning snapshot %s was expired before the commit; Iceberg cannot validate"
              + " position deletes or delete removals from it",
          plan.snapshotId());
    }
  }

  private static void backoff(int attempt) {
    try {
      Thread.sleep(Math.min(2_000L, 100L << attempt) + (long) (Math.random() * 100));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while retrying a commit", e);
    }
  }

  /** The given delete files that the current snapshot still has. */
  private static List<DeleteFile> stillLive(Table table, List<DeleteFile> deletes) {
    if (deletes.isEmpty() || table.currentSnapshot() == null) {
      return deletes;
    }
    Set<String> live = new HashSet<>();
    for (ManifestFile manifest : table.currentSnapshot().deleteManifests(table.io())) {
      try (ManifestReader<DeleteFile> reader =
          ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
        for (DeleteFile delete : reader) {
          live.add(delete.location());
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read delete manifest " + manifest.path(), e);
      }
    }
    return deletes.stream().filter(d -> live.contains(d.location())).toList();
  }

  private static Map<String, String> summary(OptimizingPlan plan, String type, String processId) {
    Map<String, String> summary = new LinkedHashMap<>();
    summary.put(PROCESS_ID, processId);
    summary.put(OPTIMIZING_TYPE, type);
    summary.put(PLANNING_SNAPSHOT, Long.toString(plan.snapshotId()));
    return summary;
  }

  private static Snapshot refreshed(Table table) {
    table.refresh();
    return table.currentSnapshot();
  }

  /**
   * Every snapshot others committed since S, up to the one seen just before our commit, must be an
   * ancestor of ours: a catalog that lost a concurrent commit would fail here.
   */
  private static void checkAncestry(
      Table table,
      long planningSnapshot,
      @Nullable Snapshot before,
      long ours,
      @Nullable PartitionKey key) {
    table.refresh();
    long current = table.currentSnapshot().snapshotId();
    boolean oursLive = SnapshotUtil.isAncestorOf(table, current, ours);
    boolean keepsBefore =
        before == null
            || SnapshotUtil.isAncestorOf(table, ours, before.snapshotId())
            || expiredAncestor(table, ours, before.snapshotId());
    // Snapshot expiry may have removed S since planning; Iceberg validated from it only because
    // every snapshot after it is still there, so S is the parent of a retained ancestor of ours.
    boolean keepsPlanning =
        SnapshotUtil.isAncestorOf(table, ours, planningSnapshot)
            || expiredAncestor(table, ours, planningSnapshot);
    if (!oursLive || !keepsBefore || !keepsPlanning) {
      throw new IntegrityCheckFailedException(
          String.format(
              "snapshot history check failed for %s%s after commit of snapshot %d (committed, it"
                  + " is in the table): our snapshot is %san ancestor of current %d, snapshot %s"
                  + " seen before commit is %san ancestor, planning snapshot %d is %san ancestor."
                  + " A concurrent commit may have been lost; inspect the table history now",
              table.name(),
              key == null ? "" : " partition " + key,
              ours,
              oursLive ? "" : "NOT ",
              current,
              before == null ? "none" : Long.toString(before.snapshotId()),
              keepsBefore ? "" : "NOT ",
              planningSnapshot,
              keepsPlanning ? "" : "NOT "),
          ours);
    }
  }

  /**
   * Whether {@code expired} is no longer in the table's metadata but was in the history of {@code
   * ours}: the oldest retained ancestor of ours has it as its parent.
   */
  private static boolean expiredAncestor(Table table, long ours, long expired) {
    if (table.snapshot(expired) != null) {
      return false;
    }
    for (Snapshot snapshot : SnapshotUtil.ancestorsOf(ours, table::snapshot)) {
      if (snapshot.parentId() != null && snapshot.parentId() == expired) {
        return true;
      }
    }
    return false;
  }
}
