/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.table;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import org.apache.iceberg.DeleteFile;

/**
 * What a planner needs of a table at one snapshot: its partitions' live files, which partitions
 * each delete file applies to, and the dangling deletes that belong to no partition.
 *
 * @param table the table name as the catalog knows it
 * @param snapshotId the snapshot the files were read from (the process's starting snapshot)
 * @param sequenceNumber that snapshot's sequence number
 * @param partitions the partitions read, in key order (possibly only those that cheap signals
 *     flagged)
 * @param deleteScopes for every attached delete file (by location), the partitions whose data it
 *     applies to; a delete of an unpartitioned spec in a partitioned table spans several
 * @param globalDanglingDeletes dangling delete files of an unpartitioned spec in a table whose data
 *     lives in other specs
 * @param complete whether every partition of the table was read; deletes spanning partitions are
 *     only removed from complete reads
 * @param partlyReadDeletes locations of attached delete files that may also apply to data files of
 *     partitions this read skipped (equality deletes of an unpartitioned spec, which Iceberg
 *     applies to every partition of every spec, in a read that is not complete): what they hide
 *     outside the read is unknown, so no plan from this read may remove them
 */
public record TableFiles(
    String table,
    long snapshotId,
    long sequenceNumber,
    SortedMap<PartitionKey, PartitionFiles> partitions,
    Map<String, Set<PartitionKey>> deleteScopes,
    List<DeleteFile> globalDanglingDeletes,
    boolean complete,
    Set<String> partlyReadDeletes) {

  public TableFiles {
    partlyReadDeletes = Set.copyOf(partlyReadDeletes);
  }

  /** Whether a plan from this read may remove the delete file: its whole scope was read. */
  public boolean scopeFullyRead(DeleteFile delete) {
    return !partlyReadDeletes.contains(delete.location());
  }

  public Collection<PartitionFiles> partitionFiles() {
    return partitions.values();
  }
}
