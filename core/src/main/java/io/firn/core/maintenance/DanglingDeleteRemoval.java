/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.maintenance;

import io.firn.core.table.PartitionFiles;
import io.firn.core.table.TableFiles;
import io.firn.core.table.TableScanner;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ValidationException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes delete files that can no longer apply to any live data file: equality deletes whose data
 * sequence number is not greater than that of any live data file in their scope, and position
 * deletes whose data files are gone. "Applies" is decided by Iceberg's own scan planning ({@link
 * TableScanner}): a delete file that planning attaches to no data file is dangling. This covers
 * partitions without any live data file, too.
 *
 * <p>The removal is one {@link RowDelta} with {@code validateFromSnapshot(S)} and {@code
 * validateDeletedFiles()}, S being the scanned snapshot, tagged like Firn's optimizing commits
 * ({@link #PROCESS_ID}, {@link #OPTIMIZING_TYPE} = {@value #TYPE}, {@link #PLANNING_SNAPSHOT}).
 * Data files committed after S cannot make a dangling delete apply again: appended files get a
 * newer sequence number, and a rewrite keeps the sequence number of files that were live in S
 * (which the delete did not apply to). Rows therefore stay identical. A conflict is retried from a
 * fresh scan a few times, then reported.
 *
 * <p>Not thread-safe per table.
 */
public final class DanglingDeleteRemoval {
  private static final Logger LOG = LoggerFactory.getLogger(DanglingDeleteRemoval.class);

  /** Snapshot summary keys, the same as Firn's optimizing commits set. */
  public static final String PROCESS_ID = "firn.process-id";

  public static final String OPTIMIZING_TYPE = "firn.optimizing-type";
  public static final String PLANNING_SNAPSHOT = "firn.planning-snapshot-id";

  /** The {@link #OPTIMIZING_TYPE} value of this operation's commits. */
  public static final String TYPE = "dangling-deletes";

  private static final int ATTEMPTS = 3;

  private final Consumer<String> progress;

  /**
   * @param progress receives progress lines an operator can read (also logged at INFO)
   */
  public DanglingDeleteRemoval(Consumer<String> progress) {
    this.progress = progress;
  }

  /**
   * Finds the dangling delete files of the table's current snapshot and removes them.
   *
   * @param processId recorded in the snapshot summary under {@link #PROCESS_ID}
   */
  public DanglingDeleteReport remove(
      Table table, DanglingDeleteSettings settings, String processId) {
    long started = System.nanoTime();
    for (int attempt = 1; ; attempt++) {
      table.refresh();
      Snapshot snapshot = table.currentSnapshot();
      if (snapshot == null) {
        return report(
            table,
            DanglingDeleteReport.Result.NOTHING_TO_REMOVE,
            -1,
            -1,
            List.of(),
            "empty table",
            started);
      }
      List<DeleteFile> dangling = dangling(table, snapshot);
      if (dangling.isEmpty()) {
        return report(
            table,
            DanglingDeleteReport.Result.NOTHING_TO_REMOVE,
            snapshot.snapshotId(),
            -1,
            dangling,
            "no dangling delete files",
            started);
      }
      note(
          "%s: %d dangling delete files in snapshot %d",
          table.name(), dangling.size(), snapshot.snapshotId());
      if (settings.dryRun()) {
        return report(
            table,
            DanglingDeleteReport.Result.DRY_RUN,
            snapshot.snapshotId(),
            -1,
            dangling,
            "dry run: " + dangling.size() + " dangling delete files would be removed",
            started);
      }
      RowDelta delta =
          table
              .newRowDelta()
              .validateFromSnapshot(snapshot.snapshotId())
              .validateDeletedFiles()
              .set(PROCESS_ID, processId)
              .set(OPTIMIZING_TYPE, TYPE)
              .set(PLANNING_SNAPSHOT, Long.toString(snapshot.snapshotId()));
      dangling.forEach(delta::removeDeletes);
      try {
        delta.commit();
      } catch (ValidationException | CommitFailedException e) {
        // A concurrent commit removed one of them (Iceberg drops deletes older than every live
        // data file by itself) or kept winning the metadata swap: scan again.
        if (attempt >= ATTEMPTS) {
          String message = TaggedCommits.conflict(ATTEMPTS, e);
          LOG.warn("{}: {}", table.name(), message);
          return report(
              table,
              DanglingDeleteReport.Result.CONFLICT,
              snapshot.snapshotId(),
              -1,
              List.of(),
              message,
              started);
        }
        note(
            "%s: attempt %d conflicted (%s), scanning again",
            table.name(), attempt, e.getMessage());
        continue;
      } catch (CommitStateUnknownException e) {
        String message = TaggedCommits.unknown(e);
        LOG.error("{}: {}", table.name(), message);
        return report(
            table,
            DanglingDeleteReport.Result.UNKNOWN,
            snapshot.snapshotId(),
            -1,
            dangling,
            message,
            started);
      }
      table.refresh();
      long committed = committedSnapshot(table, processId);
      String message = "removed " + dangling.size() + " dangling delete files";
      note("%s: %s in snapshot %d", table.name(), message, committed);
      return report(
          table,
          DanglingDeleteReport.Result.COMMITTED,
          snapshot.snapshotId(),
          committed,
          dangling,
          message,
          started);
    }
  }

  /**
   * The live delete files of the snapshot that Iceberg's planning attaches to no data file: those
   * {@link TableScanner} reports per partition and globally, plus those of partitions without any
   * live data file.
   */
  static List<DeleteFile> dangling(Table table, Snapshot snapshot) {
    TableFiles files = TableScanner.scan(table, snapshot.snapshotId(), key -> true);
    Map<String, DeleteFile> dangling = new LinkedHashMap<>();
    for (PartitionFiles partition : files.partitionFiles()) {
      partition.danglingDeletes().forEach(d -> dangling.putIfAbsent(d.location(), d));
    }
    files.globalDanglingDeletes().forEach(d -> dangling.putIfAbsent(d.location(), d));
    if (files.complete()) {
      for (ManifestFile manifest : snapshot.deleteManifests(table.io())) {
        try (ManifestReader<DeleteFile> reader =
            ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
          for (DeleteFile delete : reader) {
            if (!files.deleteScopes().containsKey(delete.location())) {
              dangling.putIfAbsent(delete.location(), delete.copy());
            }
          }
        } catch (IOException e) {
          throw new UncheckedIOException(
              "cannot read delete manifest " + manifest.path() + " of table " + table.name(), e);
        }
      }
    }
    return new ArrayList<>(dangling.values());
  }

  private static long committedSnapshot(Table table, String processId) {
    Snapshot committed = TaggedCommits.find(table, processId, TYPE);
    return committed == null ? -1 : committed.snapshotId();
  }

  private static DanglingDeleteReport report(
      Table table,
      DanglingDeleteReport.Result result,
      long planning,
      long committed,
      List<DeleteFile> files,
      String message,
      long started) {
    int equality = 0;
    int position = 0;
    long bytes = 0;
    List<String> locations = new ArrayList<>();
    for (DeleteFile file : files) {
      if (file.content() == FileContent.EQUALITY_DELETES) {
        equality++;
      } else {
        position++;
      }
      bytes += file.fileSizeInBytes();
      locations.add(file.location());
    }
    return new DanglingDeleteReport(
        table.name(),
        result,
        planning,
        committed,
        equality,
        position,
        bytes,
        locations,
        message,
        Duration.ofNanos(System.nanoTime() - started));
  }

  private void note(String format, @Nullable Object... args) {
    String line = String.format(format, args);
    LOG.info(line);
    progress.accept(line);
  }
}
