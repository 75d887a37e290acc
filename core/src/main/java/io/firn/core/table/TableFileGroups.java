/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.table;

import java.util.Iterator;
import java.util.List;
import java.util.function.Supplier;

/**
 * A table's files at one snapshot, read one group of partitions at a time so that a planner holds
 * one group's files, never the whole table's (ADR 0035). Groups are consecutive runs of partitions
 * in key order; each partition is in exactly one group, and no delete file applies in two groups,
 * so planning group by group gives the plan that planning all of them at once gives.
 *
 * <p>Iterating reads: each group is scanned when the iterator reaches it, and iterating again scans
 * again. Not thread-safe.
 *
 * @param table the table name as the catalog knows it
 * @param snapshotId the snapshot the files are read from
 * @param sequenceNumber that snapshot's sequence number
 * @param complete whether every partition of the table is read ({@link TableFiles#complete()})
 * @param groupCount how many groups iterating reads
 * @param reader reads the groups, in partition key order
 */
public record TableFileGroups(
    String table,
    long snapshotId,
    long sequenceNumber,
    boolean complete,
    int groupCount,
    Supplier<Iterator<TableFiles>> reader)
    implements Iterable<TableFiles> {

  /** One group holding files already read. */
  public static TableFileGroups of(TableFiles files) {
    return new TableFileGroups(
        files.table(),
        files.snapshotId(),
        files.sequenceNumber(),
        files.complete(),
        1,
        () -> List.of(files).iterator());
  }

  @Override
  public Iterator<TableFiles> iterator() {
    return reader.get();
  }
}
