/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.commit;

import io.firn.core.catalog.ForwardingTableOperations;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.Transactions;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.io.FileIO;

/**
 * Checks what a Firn commit really removes, on the exact metadata the catalog is asked to swap in,
 * before it is swapped in: the table operations of Firn's transactions, wrapping the catalog's.
 *
 * <p>Iceberg decides part of a commit by itself. Its {@code MergingSnapshotProducer} drops every
 * delete file whose data sequence number is below the oldest live data file it counts, and it does
 * not count the files a rewrite adds with an explicit, older data sequence number (Firn's rewrites
 * keep the planning snapshot's; apache/iceberg#10962, not merged in 1.11). A rewrite of every data
 * file older than a delete committed after planning therefore dropped that delete, and the rows it
 * hid came back in the rewritten files. The guard refuses such a commit: every removed data file
 * must be one the plan rewrites, and every removed delete file one the plan removes or one that
 * provably applies to no live data file afterwards (its sequence number is below every live data
 * file's, counted over all data manifests of the new snapshot, the rewrite's own included).
 *
 * <p>Every operation of a guarded transaction must fail when a file it was asked to remove is not
 * live: Iceberg's {@code RewriteFiles} always does, a row delta does when made by {@link
 * #newRowDelta}. The new snapshots then remove at least the planned files, so when the manifests
 * they wrote count exactly as many removed files as were planned (Iceberg's own counts in the
 * manifest list), they remove nothing else and no manifest is read; any other count reads the
 * removed entries and checks each ({@link RemovedFiles}).
 *
 * <p>Because the check runs inside the catalog's compare-and-swap (on each of Iceberg's retries,
 * against the base that attempt applied to), what it verified is what gets committed, whatever a
 * concurrent writer did in between.
 */
final class CommitGuard extends ForwardingTableOperations {
  private final String table;
  private final Set<String> dataFilesToRemove;
  private final Set<String> deleteFilesToRemove;

  private CommitGuard(
      TableOperations delegate,
      String table,
      Set<String> dataFilesToRemove,
      Set<String> deleteFilesToRemove) {
    super(delegate);
    this.table = table;
    this.dataFilesToRemove = dataFilesToRemove;
    this.deleteFilesToRemove = deleteFilesToRemove;
  }

  /**
   * A transaction on {@code table} whose commit is refused with {@link UnplannedRemovalException}
   * when it would remove other files than these (or delete files that apply to nothing).
   */
  static Transaction transaction(
      Table table, List<DataFile> dataFilesToRemove, List<DeleteFile> deleteFilesToRemove) {
    if (!(table instanceof HasTableOperations withOperations)) {
      throw new IllegalArgumentException(
          "table "
              + table.name()
              + " ("
              + table.getClass().getName()
              + ") does not expose its table operations; Firn verifies every commit through them");
    }
    Set<String> data = new HashSet<>();
    dataFilesToRemove.forEach(f -> data.add(f.location()));
    Set<String> deletes = new HashSet<>();
    deleteFilesToRemove.forEach(f -> deletes.add(f.location()));
    return Transactions.newTransaction(
        table.name(), new CommitGuard(withOperations.operations(), table.name(), data, deletes));
  }

  /**
   * A row delta of a guarded transaction: it fails, as a rewrite does, when a delete file it is
   * asked to remove is no longer live, which the guard's count of removed files relies on.
   */
  static RowDelta newRowDelta(Transaction transaction) {
    return transaction.newRowDelta().validateDeletedFiles();
  }

  @Override
  public void commit(TableMetadata base, TableMetadata metadata) {
    verify(base, metadata);
    super.commit(base, metadata);
  }

  private void verify(TableMetadata base, TableMetadata metadata) {
    List<Snapshot> added = newSnapshots(base, metadata);
    if (added.isEmpty() || removesExactlyThePlan(added)) {
      return;
    }
    long minLiveDataSequence = minLiveDataSequenceNumber(metadata.currentSnapshot(), io());
    List<String> unplannedData = new ArrayList<>();
    List<String> unplannedDeletes = new ArrayList<>();
    for (Snapshot snapshot : added) {
      RemovedFiles changes = RemovedFiles.of(snapshot, io());
      for (RemovedFiles.Removed file : changes.data()) {
        if (!dataFilesToRemove.contains(file.location())) {
          unplannedData.add(file.location());
        }
      }
      for (RemovedFiles.Removed file : changes.deletes()) {
        if (!deleteFilesToRemove.contains(file.location())
            && !appliesToNothing(file, minLiveDataSequence)) {
          unplannedDeletes.add(
              String.format(
                  Locale.ROOT,
                  "%s (%s, sequence number %s)",
                  file.location(),
                  file.content() == FileContent.EQUALITY_DELETES ? "equality" : "position",
                  file.dataSequenceNumber()));
        }
      }
    }
    if (!unplannedData.isEmpty() || !unplannedDeletes.isEmpty()) {
      throw new UnplannedRemovalException(
          String.format(
              Locale.ROOT,
              "the commit to %s would also remove %d data file(s) and %d delete file(s) that still"
                  + " apply"
                  + " to live rows and that the plan did not remove (Iceberg drops delete files"
                  + " older than the data files it counts, apache/iceberg#10962): data %s, deletes"
                  + " %s",
              table,
              unplannedData.size(),
              unplannedDeletes.size(),
              unplannedData,
              unplannedDeletes));
    }
  }

  /**
   * Whether the manifests the new snapshots wrote count as many removed data files and removed
   * delete files as were planned. With every planned file removed (each operation fails otherwise)
   * that means nothing else was. False when a count is missing (old writers): read them.
   */
  private boolean removesExactlyThePlan(List<Snapshot> added) {
    long data = 0;
    long deletes = 0;
    for (Snapshot snapshot : added) {
      for (ManifestFile manifest : snapshot.allManifests(io())) {
        if (!Objects.equals(manifest.snapshotId(), snapshot.snapshotId())) {
          continue;
        }
        Integer removed = manifest.deletedFilesCount();
        if (removed == null) {
          return false;
        }
        if (manifest.content() == ManifestContent.DATA) {
          data += removed;
        } else {
          deletes += removed;
        }
      }
    }
    return data == dataFilesToRemove.size() && deletes == deleteFilesToRemove.size();
  }

  /** The snapshots {@code metadata} adds on top of {@code base}'s current one, newest first. */
  private static List<Snapshot> newSnapshots(TableMetadata base, TableMetadata metadata) {
    Long stop =
        base == null || base.currentSnapshot() == null ? null : base.currentSnapshot().snapshotId();
    List<Snapshot> added = new ArrayList<>();
    Snapshot snapshot = metadata.currentSnapshot();
    while (snapshot != null && (stop == null || snapshot.snapshotId() != stop)) {
      added.add(snapshot);
      Long parent = snapshot.parentId();
      snapshot = parent == null ? null : metadata.snapshot(parent);
    }
    return added;
  }

  /** The lowest data sequence number of any live data file of the snapshot. */
  private static long minLiveDataSequenceNumber(Snapshot snapshot, FileIO io) {
    long min = Long.MAX_VALUE;
    for (ManifestFile manifest : snapshot.dataManifests(io)) {
      if (manifest.hasAddedFiles() || manifest.hasExistingFiles()) {
        long seq = manifest.minSequenceNumber();
        min = Math.min(min, seq >= 0 ? seq : manifest.sequenceNumber());
      }
    }
    return min;
  }

  /**
   * An equality delete applies to data files of a lower data sequence number, a position delete to
   * those of a lower or equal one: below every live data file, it hides nothing.
   */
  private static boolean appliesToNothing(RemovedFiles.Removed file, long minLiveDataSequence) {
    Long seq = file.dataSequenceNumber();
    if (seq == null) {
      return false;
    }
    return file.content() == FileContent.EQUALITY_DELETES
        ? seq <= minLiveDataSequence
        : seq < minLiveDataSequence;
  }

  /** A commit refused because it would remove files its plan does not; nothing was committed. */
  static final class UnplannedRemovalException extends ValidationException {
    UnplannedRemovalException(String message) {
      super("%s", message);
    }
  }
}
