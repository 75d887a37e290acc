/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.table;

import java.util.Iterator;
import java.util.function.IntFunction;
import java.util.stream.IntStream;

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
 * @param dataFiles the data files of all groups together, as counted before reading them
 * @param reader reads group {@code i} (0 to {@code groupCount - 1}), in partition key order
 */
public record TableFileGroups(
    String table,
    long snapshotId,
    long sequenceNumber,
    boolean complete,
    int groupCount,
    long dataFiles,
    IntFunction<TableFiles> reader)
    implements Iterable<TableFiles> {

  /** One group holding files already read. */
  public static TableFileGroups of(TableFiles files) {
    long dataFiles = 0;
    for (PartitionFiles partition : files.partitionFiles()) {
      dataFiles += partition.dataFiles().size();
    }
    return new TableFileGroups(
        files.table(),
        files.snapshotId(),
        files.sequenceNumber(),
        files.complete(),
        1,
        dataFiles,
        i -> files);
  }

  @Override
  public Iterator<TableFiles> iterator() {
    return startingAt(0).iterator();
  }

  /**
   * The groups from group {@code first} on, wrapping around to the groups before it: every group
   * once. A planner that may stop before the last group starts at another group each time, so no
   * group waits behind the others for ever.
   */
  public Iterable<TableFiles> startingAt(int first) {
    if (first < 0 || (first >= groupCount && groupCount > 0)) {
      throw new IllegalArgumentException(
          "group " + first + " of " + table + ": must be from 0 to " + (groupCount - 1));
    }
    return () ->
        IntStream.range(0, groupCount)
            .mapToObj(i -> reader.apply((first + i) % groupCount))
            .iterator();
  }
}
