/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.plan;

import io.firn.core.policy.OptimizingPolicy;
import io.firn.core.policy.PolicyKeys;
import io.firn.core.policy.Sizes;
import io.firn.core.table.DataFileEntry;
import io.firn.core.table.FileKind;
import io.firn.core.table.PartitionFiles;
import io.firn.core.table.PartitionKey;
import io.firn.core.table.PartitionStatistics;
import io.firn.core.table.TableFileGroups;
import io.firn.core.table.TableFiles;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.DeleteFile;
import org.jspecify.annotations.Nullable;

/**
 * Amoro's partition evaluation (fragments, undersized segments, segments; minor, major, full
 * triggers) followed by packing each partition's work into tasks of at most {@link
 * OptimizingPolicy#taskCapacity()} bytes along its output files (see {@code pack}).
 *
 * <p>Rewriting a file costs reading and writing all of it; converting a segment's equality deletes
 * reads only its key columns, so converted files weigh an eighth of their size in a bin.
 *
 * <p>One plan takes at most the policy's {@link OptimizingPolicy#maxProcessFiles()} input files
 * (rewritten plus converted): once the partitions planned reach it, the partitions after them wait
 * for the next process, and a plan that may stop early starts at another group of partitions each
 * time (ADR 0035, "Bounding a process"). This bounds what a plan holds, whatever the size of the
 * table.
 */
public final class BinPackPlanner implements Planner {
  private static final int CONVERT_WEIGHT_DIVISOR = 8;

  @Override
  public OptimizingPlan plan(
      TableFiles files, OptimizingPolicy policy, OptimizingHistory history, Instant now) {
    return planGroups(TableFileGroups.of(files), policy, history, now, null);
  }

  @Override
  public OptimizingPlan plan(
      TableFiles files,
      OptimizingPolicy policy,
      OptimizingHistory history,
      Instant now,
      OptimizingType requested) {
    return planGroups(TableFileGroups.of(files), policy, history, now, requested);
  }

  @Override
  public OptimizingPlan plan(
      TableFileGroups groups,
      OptimizingPolicy policy,
      OptimizingHistory history,
      Instant now,
      Optional<OptimizingType> requested) {
    return planGroups(groups, policy, history, now, requested.orElse(null));
  }

  /**
   * Plans group by group: each group's files are let go once its partitions are planned; the plan
   * keeps per partition its statistics, tasks and deletes to remove. {@code requested} null lets
   * the triggers decide.
   */
  private OptimizingPlan planGroups(
      TableFileGroups groups,
      OptimizingPolicy policy,
      OptimizingHistory history,
      Instant now,
      @Nullable OptimizingType requested) {
    List<PartitionPlan> plans = new ArrayList<>();
    Map<String, SharedCandidate> shared = new LinkedHashMap<>();
    List<DeleteFile> globalDangling = new ArrayList<>();
    int nextTaskId = 0;
    // Only a plan that may stop early rotates: the one that cannot is the same whatever the order.
    long maxProcessFiles = policy.maxProcessFiles();
    boolean mayStop = groups.groupCount() > 1 && groups.dataFiles() > maxProcessFiles;
    int first = mayStop ? (int) Math.floorMod(groups.snapshotId(), (long) groups.groupCount()) : 0;
    long planned = 0;
    int groupsRead = 0;
    int deferredPartitions = 0;
    for (TableFiles files : groups.startingAt(first)) {
      groupsRead++;
      for (PartitionFiles partition : files.partitionFiles()) {
        if (planned >= maxProcessFiles) {
          deferredPartitions++;
          continue;
        }
        PartitionPlan plan =
            planPartition(files, partition, policy, history, now, requested, nextTaskId);
        nextTaskId += plan.tasks().size();
        planned += plan.rewriteFiles() + plan.convertFiles();
        plans.add(plan);
        collectShared(files, partition, plan, shared);
      }
      globalDangling.addAll(files.globalDanglingDeletes());
      if (planned >= maxProcessFiles) {
        break;
      }
    }
    int groupsLeft = groups.groupCount() - groupsRead;
    boolean stopped = deferredPartitions > 0 || groupsLeft > 0;
    List<OptimizingPlan.SharedDelete> sharedDeletes = new ArrayList<>();
    if (groups.complete() && !stopped) {
      for (SharedCandidate candidate : shared.values()) {
        if (candidate.removable) {
          sharedDeletes.add(
              new OptimizingPlan.SharedDelete(candidate.file, Set.copyOf(candidate.requires)));
        }
      }
      for (DeleteFile dangling : globalDangling) {
        sharedDeletes.add(new OptimizingPlan.SharedDelete(dangling, Set.of()));
      }
    }
    String note =
        stopped
            ? "this process takes "
                + planned
                + " input files ("
                + PolicyKeys.MAX_PROCESS_FILES
                + " = "
                + maxProcessFiles
                + "); "
                + (deferredPartitions > 0 ? deferredPartitions + " more partition(s)" : "")
                + (deferredPartitions > 0 && groupsLeft > 0 ? " and " : "")
                + (groupsLeft > 0 ? groupsLeft + " more group(s) of partitions" : "")
                + " wait for the next one"
            : null;
    return new OptimizingPlan(
        groups.table(), groups.snapshotId(), groups.sequenceNumber(), plans, sharedDeletes, note);
  }

  private PartitionPlan planPartition(
      TableFiles files,
      PartitionFiles partition,
      OptimizingPolicy policy,
      OptimizingHistory history,
      Instant now,
      @Nullable OptimizingType requested,
      int firstTaskId) {
    PartitionStatistics stats = PartitionStatistics.of(partition, policy);
    Evaluation eval = new Evaluation(partition, policy);

    OptimizingType type;
    String reason;
    if (requested != null) {
      type = eval.hasWork(requested) ? requested : OptimizingType.NONE;
      if (type == OptimizingType.MAJOR && !eval.majorWork() && eval.minorWork()) {
        reason = "requested major; " + eval.minorReason();
      } else {
        reason =
            type == OptimizingType.NONE
                ? "requested " + requested.label() + ", but nothing to do: " + eval.describe()
                : "requested " + requested.label() + ": " + eval.describe();
      }
    } else {
      Optional<String> full = fullTrigger(eval, policy, history, now);
      Optional<String> major = eval.majorTrigger();
      Optional<String> minor = minorTrigger(eval, policy, history, now);
      if (full.isPresent()) {
        type = OptimizingType.FULL;
        reason = full.get();
      } else if (major.isPresent()) {
        type = OptimizingType.MAJOR;
        reason = major.get();
      } else if (minor.isPresent()) {
        type = OptimizingType.MINOR;
        reason = minor.get();
      } else if (!partition.danglingDeletes().isEmpty()) {
        type = OptimizingType.MINOR;
        reason = partition.danglingDeletes().size() + " dangling delete file(s) to remove";
      } else {
        type = OptimizingType.NONE;
        reason = "nothing due: " + eval.notDueReason(policy, history, now);
      }
    }
    if (type == OptimizingType.NONE) {
      return PartitionPlan.of(partition, stats, type, reason, List.of(), List.of());
    }

    List<DataFileEntry> rewrite = new ArrayList<>();
    List<DataFileEntry> convert = new ArrayList<>();
    eval.select(type, rewrite, convert);
    List<RewriteTask> tasks = pack(partition.key(), type, rewrite, convert, policy, firstTaskId);
    List<DeleteFile> removable = removableDeletes(files, partition, rewrite, convert);
    if (tasks.isEmpty() && removable.isEmpty()) {
      return PartitionPlan.of(
          partition,
          stats,
          OptimizingType.NONE,
          "nothing to rewrite: " + eval.describe(),
          List.of(),
          List.of());
    }
    return PartitionPlan.of(partition, stats, type, reason, tasks, removable);
  }

  private static Optional<String> fullTrigger(
      Evaluation eval, OptimizingPolicy policy, OptimizingHistory history, Instant now) {
    if (!policy.fullByInterval() || !eval.hasWork(OptimizingType.FULL)) {
      return Optional.empty();
    }
    Optional<Instant> last = history.last(OptimizingType.FULL);
    if (last.isPresent()
        && Duration.between(last.get(), now).compareTo(policy.fullTriggerInterval()) < 0) {
      return Optional.empty();
    }
    return Optional.of(
        "full: "
            + (last.isEmpty()
                ? "never fully optimized"
                : "last full " + ago(last.get(), now) + " ago")
            + " >= full.trigger.interval "
            + policy.fullTriggerInterval()
            + "; "
            + eval.describe());
  }

  private static Optional<String> minorTrigger(
      Evaluation eval, OptimizingPolicy policy, OptimizingHistory history, Instant now) {
    long smallAndEq = eval.fragments.size() + eval.equalityDeleteFiles;
    if (smallAndEq >= policy.minorTriggerFileCount()) {
      return Optional.of(
          "minor: "
              + eval.fragments.size()
              + " fragments + "
              + eval.equalityDeleteFiles
              + " equality-delete files >= minor.trigger.file-count "
              + policy.minorTriggerFileCount());
    }
    if (eval.segmentsWithSeveralPositionDeletes > 0) {
      return Optional.of(
          "minor: "
              + eval.segmentsWithSeveralPositionDeletes
              + " segment(s) with 2 or more position-delete files to combine");
    }
    if (smallAndEq > 1 && eval.minorWork()) {
      Optional<Instant> last = history.last(OptimizingType.MINOR);
      if (last.isEmpty()
          || Duration.between(last.get(), now).compareTo(policy.minorTriggerInterval()) >= 0) {
        return Optional.of(
            "minor: "
                + smallAndEq
                + " fragments and equality-delete files, and "
                + (last.isEmpty()
                    ? "never minor-optimized"
                    : "last minor " + ago(last.get(), now) + " ago")
                + " >= minor.trigger.interval "
                + policy.minorTriggerInterval());
      }
    }
    return Optional.empty();
  }

  private static String ago(Instant then, Instant now) {
    Duration d = Duration.between(then, now);
    return d.toMinutes() < 120 ? d.toMinutes() + "m" : d.toHours() + "h";
  }

  /**
   * Splits a partition's work into tasks along its output files, so that every task ends with whole
   * files within [minTargetSize, targetSize] and no task leaves a small tail (ADR 0031):
   *
   * <ol>
   *   <li>the rewritten input bytes decide the partition's output file count ({@link
   *       RewriteTask#outputFiles});
   *   <li>each task takes as many of those files as fit in {@link OptimizingPolicy#taskCapacity()}
   *       input bytes (at least one: a task reads one output file's input even where that is above
   *       the capacity, at most 1 / min-target-size-ratio targets), the files dealt evenly;
   *   <li>input files, largest first, go to the task with the most of its share still free;
   *   <li>converted files, weighing an eighth of their size, fill tasks first-fit up to the
   *       capacity, then tasks of their own.
   * </ol>
   *
   * <p>First-fit by input bytes, as before, ended each partition with a bin of what was left: its
   * file came out a fragment or an undersized segment, which the next plan rewrote again.
   */
  private static List<RewriteTask> pack(
      PartitionKey key,
      OptimizingType type,
      List<DataFileEntry> rewrite,
      List<DataFileEntry> convert,
      OptimizingPolicy policy,
      int firstTaskId) {
    long capacity = policy.taskCapacity();
    List<Bin> bins = new ArrayList<>();
    if (!rewrite.isEmpty()) {
      List<DataFileEntry> inputs = new ArrayList<>(rewrite);
      inputs.sort(BY_SIZE_DESCENDING);
      long bytes = inputs.stream().mapToLong(e -> Math.max(1, e.sizeInBytes())).sum();
      long files = RewriteTask.outputFiles(bytes, policy.targetSize(), policy.minTargetSize());
      double perFile = (double) bytes / files;
      long filesPerTask = Math.min(files, Math.max(1, (long) Math.floor(capacity / perFile)));
      long taskCount = Math.min(inputs.size(), (files + filesPerTask - 1) / filesPerTask);
      for (long i = 0; i < taskCount; i++) {
        long filesOfTask = files / taskCount + (i < files % taskCount ? 1 : 0);
        bins.add(new Bin(filesOfTask * perFile));
      }
      for (DataFileEntry input : inputs) {
        Bin roomiest = bins.get(0);
        for (Bin bin : bins) {
          if (bin.share - bin.load > roomiest.share - roomiest.load) {
            roomiest = bin;
          }
        }
        roomiest.rewrite.add(input);
        roomiest.load += Math.max(1, input.sizeInBytes());
      }
    }
    List<DataFileEntry> converted = new ArrayList<>(convert);
    converted.sort(BY_SIZE_DESCENDING);
    for (DataFileEntry entry : converted) {
      long weight = Math.max(1, entry.sizeInBytes() / CONVERT_WEIGHT_DIVISOR);
      @Nullable Bin target = null;
      for (Bin bin : bins) {
        if (bin.load + weight <= capacity) {
          target = bin;
          break;
        }
      }
      if (target == null) {
        target = new Bin(0);
        bins.add(target);
      }
      target.convert.add(entry);
      target.load += weight;
    }
    List<RewriteTask> tasks = new ArrayList<>();
    for (Bin bin : bins) {
      // Rewriting one clean file alone gains nothing; full optimizing already filtered such cases.
      if (bin.convert.isEmpty()
          && bin.rewrite.size() == 1
          && bin.rewrite.get(0).deletes().isEmpty()
          && type != OptimizingType.FULL) {
        continue;
      }
      if (bin.rewrite.isEmpty() && bin.convert.isEmpty()) {
        continue;
      }
      tasks.add(
          new RewriteTask(
              firstTaskId + tasks.size(),
              key,
              type,
              bin.rewrite,
              bin.convert,
              policy.targetSize(),
              policy.minTargetSize()));
    }
    return tasks;
  }

  private static final Comparator<DataFileEntry> BY_SIZE_DESCENDING =
      Comparator.comparingLong(DataFileEntry::sizeInBytes)
          .reversed()
          .thenComparing(DataFileEntry::path);

  /** One task in the making: its share of the rewritten bytes, and what it holds so far. */
  private static final class Bin {
    final double share;
    final List<DataFileEntry> rewrite = new ArrayList<>();
    final List<DataFileEntry> convert = new ArrayList<>();
    long load;

    Bin(double share) {
      this.share = share;
    }
  }

  /**
   * Delete files no live data file needs after the partition's tasks: every data file of this
   * partition they apply to is rewritten (new files carry the planning sequence number, which is
   * not below any of these deletes) or converted (its deletes become its new position-delete file),
   * they apply to no other partition, and the read saw every data file they may apply to (a global
   * equality delete in a read of some partitions only is never removable). Dangling deletes are
   * added as they are.
   */
  private static List<DeleteFile> removableDeletes(
      TableFiles files,
      PartitionFiles partition,
      List<DataFileEntry> rewrite,
      List<DataFileEntry> convert) {
    Set<String> covered = new HashSet<>();
    rewrite.forEach(e -> covered.add(e.path()));
    convert.forEach(e -> covered.add(e.path()));
    Set<String> needed = stillNeeded(partition, covered);
    List<DeleteFile> removable = new ArrayList<>();
    for (DeleteFile delete : partition.attachedDeletes()) {
      Set<PartitionKey> scope = files.deleteScopes().get(delete.location());
      if (!needed.contains(delete.location())
          && (scope == null || scope.size() <= 1)
          && files.scopeFullyRead(delete)) {
        removable.add(delete);
      }
    }
    removable.addAll(partition.danglingDeletes());
    return removable;
  }

  /**
   * The locations of the deletes that apply to a data file of this partition outside {@code
   * covered}. Only those files' pairs are visited: a full rewrite visits none, where visiting every
   * (data file, delete) pair cost seconds on streaming tables (each data file pairs with every
   * later equality delete of its partition: 9 million pairs for 25,600 data files).
   */
  private static Set<String> stillNeeded(PartitionFiles partition, Set<String> covered) {
    Set<String> needed = new HashSet<>();
    for (DataFileEntry entry : partition.dataFiles()) {
      if (!covered.contains(entry.path())) {
        for (DeleteFile delete : entry.deletes()) {
          needed.add(delete.location());
        }
      }
    }
    return needed;
  }

  private static final class SharedCandidate {
    final DeleteFile file;
    final Set<PartitionKey> requires = new TreeSet<>();
    boolean removable = true;

    SharedCandidate(DeleteFile file) {
      this.file = file;
    }
  }

  /**
   * Deletes spanning partitions are never in a partition's removable list; they are removable for
   * the process when every partition they apply to covers all its files they apply to.
   */
  private static void collectShared(
      TableFiles files,
      PartitionFiles partition,
      PartitionPlan plan,
      Map<String, SharedCandidate> shared) {
    List<DeleteFile> spanning = new ArrayList<>();
    for (DeleteFile delete : partition.attachedDeletes()) {
      Set<PartitionKey> scope = files.deleteScopes().get(delete.location());
      if (scope != null && scope.size() > 1) {
        spanning.add(delete);
      }
    }
    if (spanning.isEmpty()) {
      return;
    }
    Set<String> covered = new HashSet<>();
    for (RewriteTask task : plan.tasks()) {
      task.rewrite().forEach(e -> covered.add(e.path()));
      task.convert().forEach(e -> covered.add(e.path()));
    }
    Set<String> needed = stillNeeded(partition, covered);
    for (DeleteFile delete : spanning) {
      SharedCandidate candidate =
          shared.computeIfAbsent(delete.location(), p -> new SharedCandidate(delete));
      candidate.requires.add(partition.key());
      candidate.removable &= !needed.contains(delete.location()) && files.scopeFullyRead(delete);
    }
  }

  /** The per-file classification of one partition. */
  private static final class Evaluation {
    final OptimizingPolicy policy;
    final List<DataFileEntry> fragments = new ArrayList<>();
    final List<DataFileEntry> undersized = new ArrayList<>();
    final List<DataFileEntry> segments = new ArrayList<>();
    final long equalityDeleteFiles;
    final long positionDeleteFiles;
    final long danglingDeleteFiles;
    long segmentsWithSeveralPositionDeletes;
    long undersizedBytes;

    Evaluation(PartitionFiles partition, OptimizingPolicy policy) {
      this.policy = policy;
      for (DataFileEntry entry : partition.dataFiles()) {
        switch (FileKind.of(entry.sizeInBytes(), policy)) {
          case FRAGMENT -> fragments.add(entry);
          case UNDERSIZED_SEGMENT -> {
            undersized.add(entry);
            undersizedBytes += entry.sizeInBytes();
          }
          case SEGMENT -> segments.add(entry);
        }
        if (!isFragment(entry) && entry.positionDeleteFileCount() >= 2) {
          segmentsWithSeveralPositionDeletes++;
        }
      }
      PartitionStatistics stats = PartitionStatistics.of(partition, policy);
      this.equalityDeleteFiles = stats.equalityDeleteFiles();
      this.positionDeleteFiles = stats.positionDeleteFiles();
      this.danglingDeleteFiles = stats.danglingDeleteFiles();
    }

    boolean isFragment(DataFileEntry entry) {
      return FileKind.of(entry.sizeInBytes(), policy) == FileKind.FRAGMENT;
    }

    boolean needsRewriteForDeletes(DataFileEntry entry) {
      return entry.recordCount() > 0
          && entry.positionDeletedRecordsEstimate()
              >= policy.duplicateRatio() * entry.recordCount();
    }

    static boolean needsConvert(DataFileEntry entry) {
      return entry.equalityDeleteFileCount() > 0 || entry.positionDeleteFileCount() >= 2;
    }

    boolean minorFragments() {
      return fragments.size() >= 2 || fragments.stream().anyMatch(e -> !e.deletes().isEmpty());
    }

    boolean minorWork() {
      return minorFragments()
          || undersized.stream().anyMatch(Evaluation::needsConvert)
          || segments.stream().anyMatch(Evaluation::needsConvert)
          || danglingDeleteFiles > 0;
    }

    boolean majorMerge() {
      return undersized.size() >= 2 && undersizedBytes >= policy.targetSize();
    }

    boolean majorWork() {
      return majorMerge()
          || undersized.stream().anyMatch(this::needsRewriteForDeletes)
          || segments.stream().anyMatch(this::needsRewriteForDeletes);
    }

    Optional<String> majorTrigger() {
      if (majorMerge()) {
        return Optional.of(
            "major: "
                + undersized.size()
                + " undersized segments hold "
                + Sizes.format(undersizedBytes)
                + " >= target-size "
                + Sizes.format(policy.targetSize()));
      }
      long dirty =
          segments.stream().filter(this::needsRewriteForDeletes).count()
              + undersized.stream().filter(this::needsRewriteForDeletes).count();
      if (dirty > 0) {
        return Optional.of(
            "major: "
                + dirty
                + " segment(s) with deleted rows >= major.trigger.duplicate-ratio "
                + policy.duplicateRatio());
      }
      return Optional.empty();
    }

    String minorReason() {
      return describe();
    }

    boolean hasWork(OptimizingType type) {
      return switch (type) {
        case NONE -> false;
        case MINOR -> minorWork();
        case MAJOR -> majorWork() || minorWork() || undersized.size() + fragments.size() >= 2;
        case FULL ->
            equalityDeleteFiles + positionDeleteFiles + danglingDeleteFiles > 0
                || fragments.size() + undersized.size() >= 2
                || majorWork();
      };
    }

    void select(OptimizingType type, List<DataFileEntry> rewrite, List<DataFileEntry> convert) {
      switch (type) {
        case FULL -> {
          rewrite.addAll(fragments);
          rewrite.addAll(undersized);
          rewrite.addAll(segments);
        }
        case MAJOR -> {
          List<DataFileEntry> small = new ArrayList<>(fragments);
          small.addAll(undersized);
          if (small.size() >= 2 || small.stream().anyMatch(e -> !e.deletes().isEmpty())) {
            rewrite.addAll(small);
          }
          for (DataFileEntry segment : segments) {
            if (needsRewriteForDeletes(segment)) {
              rewrite.add(segment);
            } else if (needsConvert(segment)) {
              convert.add(segment);
            }
          }
          if (!rewrite.containsAll(small)) {
            small.stream().filter(Evaluation::needsConvert).forEach(convert::add);
          }
        }
        case MINOR -> {
          if (minorFragments()) {
            rewrite.addAll(fragments);
          }
          undersized.stream().filter(Evaluation::needsConvert).forEach(convert::add);
          segments.stream().filter(Evaluation::needsConvert).forEach(convert::add);
        }
        case NONE -> {}
      }
    }

    String describe() {
      return fragments.size()
          + " fragments, "
          + undersized.size()
          + " undersized segments, "
          + segments.size()
          + " segments, "
          + equalityDeleteFiles
          + " equality-delete and "
          + positionDeleteFiles
          + " position-delete files"
          + (danglingDeleteFiles > 0 ? ", " + danglingDeleteFiles + " dangling" : "");
    }

    String notDueReason(OptimizingPolicy policy, OptimizingHistory history, Instant now) {
      long smallAndEq = fragments.size() + equalityDeleteFiles;
      String minor =
          smallAndEq
              + " fragments + equality-delete files < minor.trigger.file-count "
              + policy.minorTriggerFileCount();
      if (smallAndEq > 1 && minorWork()) {
        minor +=
            " and last minor "
                + history.last(OptimizingType.MINOR).map(t -> ago(t, now) + " ago").orElse("never")
                + " < minor.trigger.interval "
                + policy.minorTriggerInterval();
      }
      String full =
          policy.fullByInterval()
              ? "full.trigger.interval " + policy.fullTriggerInterval() + " not reached"
              : "full.trigger.interval off";
      return describe()
          + "; "
          + minor
          + "; no undersized merge or segment over major.trigger.duplicate-ratio "
          + policy.duplicateRatio()
          + "; "
          + full;
    }
  }
}
