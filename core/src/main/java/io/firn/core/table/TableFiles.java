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
 */
public record TableFiles(
    String table,
    long snapshotId,
    long sequenceNumber,
    SortedMap<PartitionKey, PartitionFiles> partitions,
    Map<String, Set<PartitionKey>> deleteScopes,
    List<DeleteFile> globalDanglingDeletes,
    boolean complete) {

  public Collection<PartitionFiles> partitionFiles() {
    return partitions.values();
  }
}
