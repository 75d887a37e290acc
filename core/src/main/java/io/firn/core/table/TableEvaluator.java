/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.table;

import io.firn.core.policy.OptimizingPolicy;
import io.firn.core.policy.Sizes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataTableType;
import org.apache.iceberg.MetadataTableUtils;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.jspecify.annotations.Nullable;

/**
 * Decides from cheap signals whether a table needs a plan, and for which partitions, before the
 * expensive {@link TableScanner} read: first the snapshot summary (no I/O after loading the table),
 * then Iceberg's {@code partitions} metadata table (manifests only, no delete index, no per-file
 * tasks).
 */
public final class TableEvaluator {
  private TableEvaluator() {}

  /**
   * @param needsPlan whether any partition may need optimizing
   * @param reason for people: why (not)
   * @param partitionPaths partition paths (as {@link PartitionKey#path()}) worth planning; all when
   *     null
   * @param partitions the same partitions with their tuples, for pushing the choice down into the
   *     scan; empty when {@code partitionPaths} is null
   * @param totals table-wide counts from the same metadata (small files estimated from partition
   *     averages; no dangling counts)
   * @param health {@link HealthScore} of {@code totals}, 0–100
   */
  public record Evaluation(
      boolean needsPlan,
      String reason,
      @Nullable Set<String> partitionPaths,
      Map<PartitionKey, StructLike> partitions,
      PartitionStatistics totals,
      int health) {
    /** Whether a partition is worth reading for a plan. */
    public boolean includes(PartitionKey key) {
      return partitionPaths == null || partitionPaths.contains(key.path());
    }
  }

  public static Evaluation evaluate(Table table, OptimizingPolicy policy) {
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      return new Evaluation(
          false,
          "the table has no snapshot yet",
          Set.of(),
          Map.of(),
          PartitionStatistics.EMPTY,
          100);
    }
    Map<String, String> summary = current.summary() == null ? Map.of() : current.summary();
    long dataFiles = number(summary, "total-data-files");
    long deleteFiles = number(summary, "total-delete-files");
    if (dataFiles >= 0 && deleteFiles == 0 && dataFiles <= 1) {
      long records = Math.max(0, number(summary, "total-records"));
      long bytes = Math.max(0, number(summary, "total-files-size"));
      return new Evaluation(
          false,
          "snapshot summary: " + dataFiles + " data file(s) and no delete files",
          Set.of(),
          Map.of(),
          new PartitionStatistics(
              Math.max(0, dataFiles), 0, 0, Math.max(0, dataFiles), bytes, records, 0, 0, 0, 0, 0),
          100);
    }

    Table partitions =
        MetadataTableUtils.createMetadataTableInstance(table, MetadataTableType.PARTITIONS);
    Schema schema = partitions.schema();
    boolean partitioned = schema.findField("partition") != null;
    Set<String> flagged = new HashSet<>();
    Map<PartitionKey, StructLike> tuples = new HashMap<>();
    int rows = 0;
    long allFiles = 0;
    long smallFileCount = 0;
    long allBytes = 0;
    long allRecords = 0;
    long equalityFiles = 0;
    long positionFiles = 0;
    long equalityRecords = 0;
    long positionRecords = 0;
    boolean globalDeletes = false;
    // On the calling thread: Iceberg's shared worker pool made every evaluation wait in 10 ms
    // sleeps (6.5x slower on a 10,000-table round, BENCHMARKS.md); callers parallelize over tables.
    try (CloseableIterable<FileScanTask> tasks =
        partitions.newScan().planWith(CallerRuns.INSTANCE).planFiles()) {
      for (FileScanTask task : tasks) {
        try (CloseableIterable<StructLike> partitionRows = task.asDataTask().rows()) {
          for (StructLike row : partitionRows) {
            rows++;
            long files = value(schema, row, "file_count");
            long bytes = value(schema, row, "total_data_file_size_in_bytes");
            long deletes =
                value(schema, row, "position_delete_file_count")
                    + value(schema, row, "equality_delete_file_count");
            boolean smallFiles = files >= 2 && bytes / Math.max(1, files) < policy.minTargetSize();
            allFiles += files;
            allBytes += bytes;
            allRecords += value(schema, row, "record_count");
            equalityFiles += value(schema, row, "equality_delete_file_count");
            positionFiles += value(schema, row, "position_delete_file_count");
            equalityRecords += value(schema, row, "equality_delete_record_count");
            positionRecords += value(schema, row, "position_delete_record_count");
            if (bytes / Math.max(1, files) < policy.minTargetSize()) {
              smallFileCount += files;
            }
            if (deletes > 0 || smallFiles) {
              if (partitioned) {
                int specId = (int) value(schema, row, "spec_id");
                if (TableScanner.spec(table.specs(), specId).isUnpartitioned()
                    && value(schema, row, "equality_delete_file_count") > 0) {
                  globalDeletes = true;
                }
                PartitionSpec spec = TableScanner.spec(table.specs(), specId);
                StructLike tuple = tuple(spec, schema, row);
                String path = spec.partitionToPath(tuple);
                flagged.add(path);
                tuples.put(new PartitionKey(specId, path), tuple);
              } else {
                flagged.add("");
              }
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the partitions of " + table.name(), e);
    }
    // Estimated from per-partition averages: a partition whose files average below the minimum
    // target size counts all its files as small (the plan later classifies each file exactly).
    PartitionStatistics totals =
        new PartitionStatistics(
            allFiles,
            smallFileCount,
            0,
            allFiles - smallFileCount,
            allBytes,
            allRecords,
            equalityFiles,
            positionFiles,
            equalityRecords,
            positionRecords,
            0);
    int health = HealthScore.of(totals, policy, Math.max(1, rows));
    if (flagged.isEmpty()) {
      return new Evaluation(
          false,
          rows
              + " partition(s): none has delete files or 2 or more data files averaging below "
              + Sizes.format(policy.minTargetSize())
              + " (min-target-size-ratio × target-size)",
          Set.of(),
          Map.of(),
          totals,
          health);
    }
    String reason =
        flagged.size() + " of " + rows + " partition(s) have delete files or small data files";
    if (globalDeletes) {
      // They hide rows in partitions of other specs too: only a read of every partition shows what
      // they apply to, and only such a read may remove them.
      return new Evaluation(
          true,
          reason
              + "; equality deletes of an unpartitioned spec apply to every partition, all are read",
          null,
          Map.of(),
          totals,
          health);
    }
    return new Evaluation(
        true,
        reason,
        partitioned ? flagged : null,
        partitioned ? tuples : Map.of(),
        totals,
        health);
  }

  private static long number(Map<String, String> summary, String key) {
    try {
      return Long.parseLong(summary.getOrDefault(key, "-1"));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  static long value(Schema schema, StructLike row, String column) {
    int position = position(schema.asStruct(), column);
    Object value = row.get(position, Object.class);
    return value == null ? 0 : ((Number) value).longValue();
  }

  private static int position(Types.StructType struct, String column) {
    List<Types.NestedField> fields = struct.fields();
    for (int i = 0; i < fields.size(); i++) {
      if (fields.get(i).name().equals(column)) {
        return i;
      }
    }
    throw new IllegalStateException("the partitions metadata table has no column " + column);
  }

  /** Maps a row's unified partition tuple to its own spec's tuple. */
  static StructLike tuple(PartitionSpec spec, Schema schema, StructLike row) {
    Types.StructType unified = schema.findField("partition").type().asStructType();
    StructLike values = row.get(position(schema.asStruct(), "partition"), StructLike.class);
    GenericRecord tuple = GenericRecord.create(spec.partitionType());
    List<PartitionField> fields = spec.fields();
    for (int i = 0; i < fields.size(); i++) {
      int fieldId = fields.get(i).fieldId();
      List<Types.NestedField> unifiedFields = unified.fields();
      for (int u = 0; u < unifiedFields.size(); u++) {
        if (unifiedFields.get(u).fieldId() == fieldId) {
          tuple.set(i, values.get(u, Object.class));
        }
      }
    }
    return tuple;
  }
}
