/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.maintenance;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.iceberg.ExpireSnapshots;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Expires snapshots older than a max age while keeping the newest N of every branch, through
 * Iceberg's {@link ExpireSnapshots} (no engine needed).
 *
 * <p>Always kept, whatever their age: the current snapshot, branch and tag heads, and per Flink job
 * and operator the newest snapshot carrying {@link FlinkCommits#MAX_COMMITTED_CHECKPOINT_ID}
 * together with every snapshot between it and the head of the branch it is on, because Flink finds
 * it by walking parent ids from the head (see {@link FlinkCommits}). Iceberg's API cannot retain
 * single snapshot ids, but it keeps on every branch the unbroken run of ancestors not older than
 * the expiry timestamp; the expiry timestamp is therefore lowered to the oldest of these kept
 * snapshots, and the plan is checked with {@link ExpireSnapshots#apply()} before anything is
 * committed. One consequence: a Flink job that stopped committing long ago keeps every snapshot
 * committed after its last checkpoint (the report says so).
 *
 * <p>Not thread-safe per table: run one maintenance operation per table at a time.
 */
public final class SnapshotExpiry {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotExpiry.class);

  private final Consumer<String> progress;

  /**
   * @param progress receives progress lines an operator can read (also logged at INFO)
   */
  public SnapshotExpiry(Consumer<String> progress) {
    this.progress = progress;
  }

  /** A Flink job's committing operator. */
  private record FlinkWriter(String jobId, @Nullable String operatorId) {
    @Override
    public String toString() {
      return "job " + jobId + (operatorId == null ? "" : " operator " + operatorId);
    }
  }

  /**
   * Expires the table's old snapshots.
   *
   * @param now the clock; snapshots committed before {@code now - maxAge} may expire
   * @throws IllegalStateException when Iceberg's plan would remove a snapshot that must stay (for
   *     example a branch with its own shorter retention holds a Flink checkpoint); nothing is
   *     changed then
   */
  public SnapshotExpiryReport expire(Table table, SnapshotExpirySettings settings, Instant now) {
    long started = System.nanoTime();
    table.refresh();
    List<Snapshot> before = new ArrayList<>();
    table.snapshots().forEach(before::add);
    // The refs of the same metadata: a writer may commit while the run goes on.
    Map<String, SnapshotRef> refsBefore = Map.copyOf(table.refs());
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      return new SnapshotExpiryReport(
          table.name(), settings.dryRun(), 0, List.of(), 0, List.of(), elapsed(started));
    }
    long cutoff = now.toEpochMilli() - settings.maxAge().toMillis();

    // Snapshots that must stay, with the reason (first reason wins).
    Map<Long, String> mustKeep = new LinkedHashMap<>();
    mustKeep.put(current.snapshotId(), "current snapshot");
    Map<Long, String> flinkPins = new LinkedHashMap<>();
    pinFlinkCheckpoints(table, before, flinkPins);
    flinkPins.forEach(mustKeep::putIfAbsent);
    // Ref heads stay while Iceberg retains the ref (a tag past its max-ref-age goes, rightly).
    Map<Long, String> refHeads = new HashMap<>();
    for (Map.Entry<String, SnapshotRef> ref : table.refs().entrySet()) {
      refHeads.putIfAbsent(
          ref.getValue().snapshotId(),
          "head of " + (ref.getValue().isBranch() ? "branch" : "tag") + " " + ref.getKey());
    }

    long expireOlderThan = cutoff;
    for (long id : flinkPins.keySet()) {
      Snapshot snapshot = table.snapshot(id);
      if (snapshot != null) {
        expireOlderThan = Math.min(expireOlderThan, snapshot.timestampMillis());
      }
    }
    List<String> unreferenced = Collections.synchronizedList(new ArrayList<>());
    ExpireSnapshots expire =
        table
            .expireSnapshots()
            .expireOlderThan(expireOlderThan)
            .retainLast(settings.retainLast())
            .cleanExpiredFiles(settings.cleanExpiredFiles())
            // Collected, then deleted after the commit, in bulk where the FileIO can (one request
            // per batch of keys on object storage); a file left behind is an orphan for cleanup.
            .deleteWith(unreferenced::add);
    List<Snapshot> planned = expire.apply();
    Set<Long> plannedIds = new HashSet<>();
    planned.forEach(s -> plannedIds.add(s.snapshotId()));
    for (Map.Entry<Long, String> keep : mustKeep.entrySet()) {
      if (plannedIds.contains(keep.getKey())) {
        throw new IllegalStateException(
            "snapshot expiry of "
                + table.name()
                + " refused: Iceberg's retention would expire snapshot "
                + keep.getKey()
                + " ("
                + keep.getValue()
                + "); check the branch and tag retention properties. Nothing was expired");
      }
    }
    note(
        "%s: %d of %d snapshots %s (max age %s, retain last %d, %d kept for the current snapshot,"
            + " and Flink checkpoints)",
        table.name(),
        planned.size(),
        before.size(),
        settings.dryRun() ? "would expire" : "expire",
        settings.maxAge(),
        settings.retainLast(),
        mustKeep.size());
    if (expireOlderThan < cutoff) {
      note(
          "%s: Flink's restore point keeps snapshots since %s (%d pinned)",
          table.name(), Instant.ofEpochMilli(expireOlderThan), flinkPins.size());
    }

    List<Long> expired = new ArrayList<>();
    long deleted = 0;
    if (settings.dryRun()) {
      planned.stream()
          .sorted(Comparator.comparingLong(Snapshot::timestampMillis))
          .forEach(s -> expired.add(s.snapshotId()));
    } else if (!planned.isEmpty()) {
      expire.commit();
      List<String> failed =
          FileDeletes.delete(table.io(), List.copyOf(unreferenced), table.name(), "expired file");
      deleted = unreferenced.size() - failed.size();
      table.refresh();
      Set<Long> after = new HashSet<>();
      table.snapshots().forEach(s -> after.add(s.snapshotId()));
      before.stream()
          .filter(s -> !after.contains(s.snapshotId()))
          .sorted(Comparator.comparingLong(Snapshot::timestampMillis))
          .forEach(s -> expired.add(s.snapshotId()));
      note("%s: expired %d snapshots, deleted %d files", table.name(), expired.size(), deleted);
    }

    Set<Long> gone = new HashSet<>(expired);
    Set<Long> newest = newestOfBranches(refsBefore, before, settings.retainLast());
    List<SnapshotExpiryReport.KeptSnapshot> kept = new ArrayList<>();
    for (Snapshot snapshot : before) {
      if (snapshot.timestampMillis() >= cutoff || gone.contains(snapshot.snapshotId())) {
        continue;
      }
      String reason = mustKeep.get(snapshot.snapshotId());
      if (reason == null) {
        reason = refHeads.get(snapshot.snapshotId());
      }
      if (reason == null && newest.contains(snapshot.snapshotId())) {
        reason = "one of the newest " + settings.retainLast() + " snapshots of a branch";
      }
      if (reason == null) {
        reason =
            "kept by Iceberg's retention (newer than the oldest snapshot that must stay, or a ref's"
                + " own retention)";
      }
      kept.add(
          new SnapshotExpiryReport.KeptSnapshot(
              snapshot.snapshotId(), snapshot.timestampMillis(), reason));
    }
    kept.sort(Comparator.comparingLong(SnapshotExpiryReport.KeptSnapshot::timestampMillis));
    return new SnapshotExpiryReport(
        table.name(), settings.dryRun(), before.size(), expired, deleted, kept, elapsed(started));
  }

  /**
   * Adds, per Flink job and operator, the newest checkpoint snapshot and, on every branch, the
   * ancestors from the head down to the first checkpoint snapshot of each writer (what Flink's
   * restore walk reads).
   */
  private static void pinFlinkCheckpoints(
      Table table, List<Snapshot> snapshots, Map<Long, String> mustKeep) {
    for (Map.Entry<String, SnapshotRef> ref : table.refs().entrySet()) {
      if (!ref.getValue().isBranch()) {
        continue;
      }
      List<Snapshot> walked = new ArrayList<>();
      Set<FlinkWriter> found = new HashSet<>();
      for (Snapshot ancestor :
          SnapshotUtil.ancestorsOf(ref.getValue().snapshotId(), table::snapshot)) {
        walked.add(ancestor);
        FlinkWriter writer = writerOf(ancestor);
        if (writer == null || !found.add(writer)) {
          continue;
        }
        mustKeep.putIfAbsent(
            ancestor.snapshotId(),
            "newest Flink checkpoint snapshot of "
                + writer
                + " on branch "
                + ref.getKey()
                + " (checkpoint "
                + ancestor.summary().get(FlinkCommits.MAX_COMMITTED_CHECKPOINT_ID)
                + ")");
        for (Snapshot between : walked) {
          mustKeep.putIfAbsent(
              between.snapshotId(),
              "between the head of branch "
                  + ref.getKey()
                  + " and the newest Flink checkpoint snapshot of "
                  + writer
                  + " (Flink restores by walking parent snapshots)");
        }
      }
    }
    // A writer's newest checkpoint snapshot that is on no branch (after a rollback, say).
    Map<FlinkWriter, Snapshot> newest = new HashMap<>();
    for (Snapshot snapshot : snapshots) {
      FlinkWriter writer = writerOf(snapshot);
      if (writer != null) {
        newest.merge(writer, snapshot, (a, b) -> a.sequenceNumber() >= b.sequenceNumber() ? a : b);
      }
    }
    newest.forEach(
        (writer, snapshot) ->
            mustKeep.putIfAbsent(
                snapshot.snapshotId(),
                "newest Flink checkpoint snapshot of "
                    + writer
                    + " (checkpoint "
                    + snapshot.summary().get(FlinkCommits.MAX_COMMITTED_CHECKPOINT_ID)
                    + ")"));
  }

  private static @Nullable FlinkWriter writerOf(Snapshot snapshot) {
    Map<String, String> summary = snapshot.summary();
    if (summary == null
        || summary.get(FlinkCommits.JOB_ID) == null
        || summary.get(FlinkCommits.MAX_COMMITTED_CHECKPOINT_ID) == null) {
      return null;
    }
    return new FlinkWriter(summary.get(FlinkCommits.JOB_ID), summary.get(FlinkCommits.OPERATOR_ID));
  }

  /** The newest {@code count} ancestors of every branch head, as they were before the run. */
  private static Set<Long> newestOfBranches(
      Map<String, SnapshotRef> refs, List<Snapshot> snapshots, int count) {
    Map<Long, Snapshot> byId = new HashMap<>();
    snapshots.forEach(s -> byId.put(s.snapshotId(), s));
    Set<Long> newest = new HashSet<>();
    for (SnapshotRef ref : refs.values()) {
      if (ref.isBranch()) {
        int n = 0;
        for (Snapshot ancestor : SnapshotUtil.ancestorsOf(ref.snapshotId(), byId::get)) {
          if (n++ >= count) {
            break;
          }
          newest.add(ancestor.snapshotId());
        }
      }
    }
    return newest;
  }

  private void note(String format, @Nullable Object... args) {
    String line = String.format(format, args);
    LOG.info(line);
    progress.accept(line);
  }

  private static Duration elapsed(long started) {
    return Duration.ofNanos(System.nanoTime() - started);
  }
}
