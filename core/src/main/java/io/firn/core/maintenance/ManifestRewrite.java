/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.maintenance;

import io.firn.core.commit.Committer;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.util.PropertyUtil;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Merges a table's small data manifests (ADR 0010, "Manifest rewrite"). Every commit writes the
 * files it adds into a manifest of its own, and Iceberg merges manifests at commit time only from
 * {@code commit.manifest.min-count-to-merge} (100) on; a streaming table therefore carries about
 * one small manifest per live file (each of Firn's minor commits adds one), and every reader opens
 * each of them to plan a scan.
 *
 * <p>When the current snapshot has at least {@link ManifestRewriteSettings#minCount()} data
 * manifests below the table's {@code commit.manifest.target-size-bytes}, one Iceberg {@code
 * RewriteManifests} rewrites exactly those into as few manifests as the target size allows (one
 * group per partition spec, entries in the order read), tagged like Firn's optimizing commits
 * ({@link Committer#PROCESS_ID}, {@link Committer#OPTIMIZING_TYPE} = {@value #TYPE}, {@link
 * Committer#PLANNING_SNAPSHOT}). Iceberg carries every live entry over as an existing entry with
 * its snapshot id and data and file sequence numbers, so which deletes apply to which rows is
 * unchanged, and checks that the new manifests hold as many live files as those they replace.
 * Delete manifests are kept as they are. Nothing is deleted: the replaced manifests go when
 * snapshot expiry removes the snapshots that reference them. Iceberg re-applies the rewrite on top
 * of a concurrent writer's commit; a conflict it cannot resolve is retried from the start a few
 * times, then reported.
 *
 * <p>Not thread-safe per table.
 */
public final class ManifestRewrite {
  private static final Logger LOG = LoggerFactory.getLogger(ManifestRewrite.class);

  /** The {@link Committer#OPTIMIZING_TYPE} value of this operation's commits. */
  public static final String TYPE = "rewrite-manifests";

  private static final int ATTEMPTS = 3;

  private final Consumer<String> progress;

  /**
   * @param progress receives progress lines an operator can read (also logged at INFO)
   */
  public ManifestRewrite(Consumer<String> progress) {
    this.progress = progress;
  }

  /**
   * Rewrites the small data manifests of the table's current snapshot when there are enough.
   *
   * @param processId recorded in the snapshot summary under {@link Committer#PROCESS_ID}
   */
  public ManifestRewriteReport rewrite(
      Table table, ManifestRewriteSettings settings, String processId) {
    long started = System.nanoTime();
    for (int attempt = 1; ; attempt++) {
      table.refresh();
      Snapshot snapshot = table.currentSnapshot();
      if (snapshot == null) {
        return report(
            table,
            ManifestRewriteReport.Result.NOTHING_TO_DO,
            -1,
            -1,
            0,
            0,
            "empty table",
            started);
      }
      long target =
          PropertyUtil.propertyAsLong(
              table.properties(),
              TableProperties.MANIFEST_TARGET_SIZE_BYTES,
              TableProperties.MANIFEST_TARGET_SIZE_BYTES_DEFAULT);
      List<ManifestFile> data = snapshot.dataManifests(table.io());
      int small = (int) data.stream().filter(m -> m.length() < target).count();
      if (small < settings.minCount()) {
        return report(
            table,
            ManifestRewriteReport.Result.NOTHING_TO_DO,
            snapshot.snapshotId(),
            -1,
            data.size(),
            small,
            small
                + " of "
                + data.size()
                + " data manifest(s) below "
                + target
                + " bytes, fewer than min-count "
                + settings.minCount(),
            started);
      }
      ManifestRewriteReport.Result failed = null;
      String failure = "";
      try {
        table
            .rewriteManifests()
            .rewriteIf(m -> m.length() < target)
            .clusterBy(file -> TYPE)
            .set(Committer.PROCESS_ID, processId)
            .set(Committer.OPTIMIZING_TYPE, TYPE)
            .set(Committer.PLANNING_SNAPSHOT, Long.toString(snapshot.snapshotId()))
            .commit();
      } catch (ValidationException | CommitFailedException e) {
        if (attempt < ATTEMPTS) {
          note(
              "%s: attempt %d conflicted (%s), counting again",
              table.name(), attempt, e.getMessage());
          continue;
        }
        failed = ManifestRewriteReport.Result.CONFLICT;
        failure = TaggedCommits.conflict(ATTEMPTS, e);
        LOG.warn("{}: {}", table.name(), failure);
      } catch (CommitStateUnknownException e) {
        failed = ManifestRewriteReport.Result.UNKNOWN;
        failure = TaggedCommits.unknown(e);
        LOG.error("{}: {}", table.name(), failure);
      }
      if (failed != null) {
        return report(
            table, failed, snapshot.snapshotId(), -1, data.size(), small, failure, started);
      }
      table.refresh();
      Snapshot committed = TaggedCommits.find(table, processId, TYPE);
      int replaced = count(committed, SnapshotSummary.REPLACED_MANIFESTS_COUNT);
      int created = count(committed, SnapshotSummary.CREATED_MANIFESTS_COUNT);
      String message =
          "rewrote " + replaced + " of " + data.size() + " data manifest(s) into " + created;
      note(
          "%s: %s in snapshot %d",
          table.name(), message, committed == null ? -1 : committed.snapshotId());
      return new ManifestRewriteReport(
          table.name(),
          ManifestRewriteReport.Result.COMMITTED,
          snapshot.snapshotId(),
          committed == null ? -1 : committed.snapshotId(),
          data.size(),
          small,
          replaced,
          created,
          message,
          Duration.ofNanos(System.nanoTime() - started));
    }
  }

  private static int count(@Nullable Snapshot snapshot, String key) {
    if (snapshot == null || snapshot.summary() == null) {
      return 0;
    }
    try {
      return Integer.parseInt(snapshot.summary().getOrDefault(key, "0"));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private static ManifestRewriteReport report(
      Table table,
      ManifestRewriteReport.Result result,
      long planning,
      long committed,
      int data,
      int small,
      String message,
      long started) {
    return new ManifestRewriteReport(
        table.name(),
        result,
        planning,
        committed,
        data,
        small,
        0,
        0,
        message,
        Duration.ofNanos(System.nanoTime() - started));
  }

  private void note(String format, @Nullable Object... args) {
    String line = String.format(format, args);
    LOG.info(line);
    progress.accept(line);
  }
}
