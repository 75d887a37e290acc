/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.api;

import io.firn.core.commit.Committer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.MetadataTableType;
import org.apache.iceberg.MetadataTableUtils;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.jspecify.annotations.Nullable;

/**
 * What the console's table page shows of a table's own metadata: its partitions (Iceberg's {@code
 * partitions} metadata table: manifests only) and its snapshots, with Firn's commits told from the
 * writers' by the {@code firn.process-id} of their summary.
 */
final class TableContents {
  /** A table's partitions, the most delete files first. */
  record PartitionsView(
      String table, @Nullable Long snapshotId, int partitions, List<PartitionRow> shown) {}

  /** One partition of the current snapshot. */
  record PartitionRow(
      String partition,
      int specId,
      long dataFiles,
      long dataBytes,
      long records,
      long equalityDeleteFiles,
      long equalityDeleteRecords,
      long positionDeleteFiles,
      long positionDeleteRecords,
      @Nullable Instant lastUpdatedAt) {}

  /**
   * One snapshot.
   *
   * @param committer {@code firn} when Firn's optimizer or maintenance committed it, else {@code
   *     writer}
   * @param processId Firn's process id; null for a writer's snapshot
   * @param optimizingType minor, major or full for Firn's snapshots; null otherwise
   */
  record SnapshotRow(
      long snapshotId,
      @Nullable Long parentId,
      long sequenceNumber,
      Instant committedAt,
      @Nullable String operation,
      String committer,
      @Nullable String processId,
      @Nullable String optimizingType,
      long addedDataFiles,
      long removedDataFiles,
      long addedDeleteFiles,
      long removedDeleteFiles,
      long totalDataFiles,
      long totalDeleteFiles,
      long totalRecords,
      long totalBytes) {}

  private TableContents() {}

  static PartitionsView partitions(String name, Table table, int limit) {
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      return new PartitionsView(name, null, 0, List.of());
    }
    Table partitions =
        MetadataTableUtils.createMetadataTableInstance(table, MetadataTableType.PARTITIONS);
    Schema schema = partitions.schema();
    Types.StructType struct = schema.asStruct();
    Types.NestedField partitionField = schema.findField("partition");
    List<PartitionRow> rows = new ArrayList<>();
    try (CloseableIterable<org.apache.iceberg.FileScanTask> tasks =
        partitions.newScan().planFiles()) {
      for (org.apache.iceberg.FileScanTask task : tasks) {
        try (CloseableIterable<StructLike> partitionRows = task.asDataTask().rows()) {
          for (StructLike row : partitionRows) {
            int specId = (int) number(struct, row, "spec_id");
            String label =
                partitionField == null
                    ? "<unpartitioned>"
                    : label(
                        table.specs().get(specId),
                        partitionField.type().asStructType(),
                        row.get(struct.fields().indexOf(partitionField), StructLike.class));
            long updatedMicros = number(struct, row, "last_updated_at");
            rows.add(
                new PartitionRow(
                    label,
                    specId,
                    number(struct, row, "file_count"),
                    number(struct, row, "total_data_file_size_in_bytes"),
                    number(struct, row, "record_count"),
                    number(struct, row, "equality_delete_file_count"),
                    number(struct, row, "equality_delete_record_count"),
                    number(struct, row, "position_delete_file_count"),
                    number(struct, row, "position_delete_record_count"),
                    updatedMicros <= 0 ? null : Instant.EPOCH.plusNanos(updatedMicros * 1000)));
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the partitions of " + name, e);
    }
    rows.sort(
        Comparator.comparingLong((PartitionRow r) -> r.equalityDeleteFiles + r.positionDeleteFiles)
            .thenComparingLong(PartitionRow::dataFiles)
            .reversed()
            .thenComparing(PartitionRow::partition));
    return new PartitionsView(
        name, current.snapshotId(), rows.size(), rows.subList(0, Math.min(limit, rows.size())));
  }

  static List<SnapshotRow> snapshots(Table table, int limit) {
    List<Snapshot> all = new ArrayList<>();
    table.snapshots().forEach(all::add);
    all.sort(Comparator.comparingLong(Snapshot::sequenceNumber).reversed());
    List<SnapshotRow> rows = new ArrayList<>();
    for (Snapshot s : all.subList(0, Math.min(limit, all.size()))) {
      Map<String, String> summary = s.summary() == null ? Map.of() : s.summary();
      String process = summary.get(Committer.PROCESS_ID);
      rows.add(
          new SnapshotRow(
              s.snapshotId(),
              s.parentId(),
              s.sequenceNumber(),
              Instant.ofEpochMilli(s.timestampMillis()),
              s.operation(),
              process == null ? "writer" : "firn",
              process,
              summary.get(Committer.OPTIMIZING_TYPE),
              count(summary, "added-data-files"),
              count(summary, "deleted-data-files"),
              count(summary, "added-delete-files"),
              count(summary, "removed-delete-files"),
              count(summary, "total-data-files"),
              count(summary, "total-delete-files"),
              count(summary, "total-records"),
              count(summary, "total-files-size")));
    }
    return rows;
  }

  /** {@code name=value/...} of the partition's own spec, in the spec's human form. */
  private static String label(
      @Nullable PartitionSpec spec, Types.StructType unified, StructLike values) {
    if (spec == null || spec.isUnpartitioned()) {
      return "<unpartitioned>";
    }
    StringBuilder label = new StringBuilder();
    Schema schema = spec.schema();
    for (PartitionField field : spec.fields()) {
      List<Types.NestedField> fields = unified.fields();
      for (int u = 0; u < fields.size(); u++) {
        if (fields.get(u).fieldId() != field.fieldId()) {
          continue;
        }
        Type source = schema.findType(field.sourceId());
        @SuppressWarnings("unchecked")
        String value =
            ((org.apache.iceberg.transforms.Transform<Object, Object>) field.transform())
                .toHumanString(
                    field.transform().getResultType(source), values.get(u, Object.class));
        if (label.length() > 0) {
          label.append('/');
        }
        label.append(field.name()).append('=').append(value);
      }
    }
    return label.toString();
  }

  private static long number(Types.StructType struct, StructLike row, String column) {
    List<Types.NestedField> fields = struct.fields();
    for (int i = 0; i < fields.size(); i++) {
      if (fields.get(i).name().equals(column)) {
        Object value = row.get(i, Object.class);
        return value == null ? 0 : ((Number) value).longValue();
      }
    }
    return 0;
  }

  private static long count(Map<String, String> summary, String key) {
    try {
      return Long.parseLong(summary.getOrDefault(key, "0"));
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
