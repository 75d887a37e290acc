/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.table;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataTableType;
import org.apache.iceberg.MetadataTableUtils;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;

/**
 * One row of Iceberg's {@code partitions} metadata table at a snapshot: a partition of a
 * partitioned table's spec, its tuple and how many live data files it holds.
 */
record PartitionCount(PartitionKey key, StructLike tuple, long dataFiles) {

  /**
   * The partitions of a table with at least one partitioned spec, in key order.
   *
   * @throws UncheckedIOException when a manifest cannot be read; the message names the table
   */
  static List<PartitionCount> read(Table table, long snapshotId) {
    Table partitions =
        MetadataTableUtils.createMetadataTableInstance(table, MetadataTableType.PARTITIONS);
    Schema schema = partitions.schema();
    List<PartitionCount> counts = new ArrayList<>();
    // On the calling thread, as TableEvaluator does: Iceberg's pool only adds 10 ms sleeps.
    try (CloseableIterable<FileScanTask> tasks =
        partitions.newScan().useSnapshot(snapshotId).planWith(CallerRuns.INSTANCE).planFiles()) {
      for (FileScanTask task : tasks) {
        try (CloseableIterable<StructLike> rows = task.asDataTask().rows()) {
          for (StructLike row : rows) {
            int specId = (int) TableEvaluator.value(schema, row, "spec_id");
            PartitionSpec spec = TableScanner.spec(table.specs(), specId);
            StructLike tuple = TableEvaluator.tuple(spec, schema, row);
            counts.add(
                new PartitionCount(
                    new PartitionKey(specId, spec.partitionToPath(tuple)),
                    tuple,
                    TableEvaluator.value(schema, row, "file_count")));
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the partitions of " + table.name(), e);
    }
    counts.sort(Comparator.comparing(PartitionCount::key));
    return counts;
  }
}
