package io.firn.core.plan;

import io.firn.core.table.DataFileEntry;
import io.firn.core.table.PartitionKey;
import java.util.List;

/**
 * One bin-packed unit of work in one partition.
 *
 * @param id unique within its plan
 * @param partition the partition all files belong to
 * @param type the optimizing type of the partition plan
 * @param rewrite data files to read with their deletes applied and write anew at target size
 * @param convert data files kept as they are, whose equality deletes (and several position-delete
 *     files) become one file-scoped position-delete file each
 * @param targetSize output file size in bytes
 */
public record RewriteTask(
    int id,
    PartitionKey partition,
    OptimizingType type,
    List<DataFileEntry> rewrite,
    List<DataFileEntry> convert,
    long targetSize) {

  public RewriteTask {
    rewrite = List.copyOf(rewrite);
    convert = List.copyOf(convert);
  }

  public long rewriteBytes() {
    return rewrite.stream().mapToLong(DataFileEntry::sizeInBytes).sum();
  }

  public long convertBytes() {
    return convert.stream().mapToLong(DataFileEntry::sizeInBytes).sum();
  }

  public long inputRecords() {
    return rewrite.stream().mapToLong(DataFileEntry::recordCount).sum();
  }

  /** Output data files expected: the rewritten bytes over the target size, at least 1. */
  public long estimatedOutputFiles() {
    return rewrite.isEmpty() ? 0 : Math.max(1, (rewriteBytes() + targetSize - 1) / targetSize);
  }
}
