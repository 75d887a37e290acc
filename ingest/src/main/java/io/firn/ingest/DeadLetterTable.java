/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriteResult;
import org.apache.iceberg.io.DeleteWriteResult;
import org.apache.iceberg.io.FanoutDataWriter;
import org.apache.iceberg.io.FanoutPositionOnlyDeleteWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PropertyUtil;
import org.jspecify.annotations.Nullable;

/**
 * The dead-letter table as {@code bin/firn dead-letters} sees it: every dead letter with the data
 * file and position that hold it (so that one row can be removed by a position delete, the table
 * having no key), and the two row-level changes a replay makes (ADR 0008 §12): a claim, which marks
 * dead letters with a replay id, and a removal, which deletes a replay's claimed rows and appends
 * what the replay refused again, in one commit.
 */
final class DeadLetterTable {
  /** The column a replay marks its claimed dead letters with (added by the first replay). */
  static final String REPLAY_ID = "replay_id";

  /** Snapshot summary keys of the dead-letter table's replay commits. */
  static final String CLAIM_PROPERTY = "firn.replay-claim";

  static final String DONE_PROPERTY = "firn.replay-done";

  private DeadLetterTable() {}

  /**
   * One dead letter as stored.
   *
   * @param file the data file holding it
   * @param position its row position in {@code file}
   * @param record the row, in the table's schema at the snapshot read
   */
  record Stored(DataFile file, long position, Record record) {
    String payload() {
      return (String) record.getField("payload");
    }

    String reason() {
      return (String) record.getField("reason");
    }

    String detail() {
      return (String) record.getField("detail");
    }

    @Nullable Instant receivedAt() {
      Object value = record.getField("received_at");
      return value instanceof OffsetDateTime time ? time.toInstant() : null;
    }

    String sourcePosition() {
      return (String) record.getField("source_position");
    }

    @Nullable String replayId() {
      return record.struct().field(REPLAY_ID) == null ? null : (String) record.getField(REPLAY_ID);
    }
  }

  /** Every dead letter of {@code snapshot} (null: an empty table), in file and position order. */
  static List<Stored> read(Table table, Snapshot snapshot) {
    List<Stored> all = new ArrayList<>();
    if (snapshot == null) {
      return all;
    }
    Schema schema = table.schemas().get(snapshot.schemaId());
    if (schema == null) {
      throw new IllegalStateException(
          "Snapshot "
              + snapshot.snapshotId()
              + " of the dead-letter table "
              + table.name()
              + " names schema "
              + snapshot.schemaId()
              + ", which the table's metadata does not have");
    }
    Schema withPosition = TypeUtil.join(schema, new Schema(MetadataColumns.ROW_POSITION));
    try (CloseableIterable<FileScanTask> tasks =
        table.newScan().useSnapshot(snapshot.snapshotId()).planFiles()) {
      for (FileScanTask task : tasks) {
        for (DeleteFile delete : task.deletes()) {
          if (delete.content() == org.apache.iceberg.FileContent.EQUALITY_DELETES) {
            throw new IllegalStateException(
                "The dead-letter table "
                    + table.name()
                    + " has equality deletes ("
                    + delete.location()
                    + "): Firn writes none there, so something else changed it; rewrite the"
                    + " table with 'bin/firn optimize --type full' before listing or replaying it");
          }
        }
        GenericDeleteFilter deletes =
            new GenericDeleteFilter(table.io(), task, schema, withPosition);
        Schema readSchema = deletes.requiredSchema();
        try (CloseableIterable<Record> rows =
            deletes.filter(
                FormatModelRegistry.readBuilder(
                        task.file().format(), Record.class, table.io().newInputFile(task.file()))
                    .project(readSchema)
                    .split(task.start(), task.length())
                    .build())) {
          for (Record row : rows) {
            long position = (Long) row.getField(MetadataColumns.ROW_POSITION.name());
            Record copy = org.apache.iceberg.data.GenericRecord.create(schema);
            for (Types.NestedField field : schema.columns()) {
              copy.setField(field.name(), row.getField(field.name()));
            }
            all.add(new Stored(task.file(), position, copy));
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Reading the dead-letter table " + table.name() + " failed", e);
    }
    return all;
  }

  /** Adds the {@value #REPLAY_ID} column when the table does not have it yet. */
  static void ensureReplayColumn(Table table) {
    if (table.schema().findField(REPLAY_ID) == null) {
      table
          .updateSchema()
          .addColumn(
              REPLAY_ID,
              Types.StringType.get(),
              "set while 'bin/firn dead-letters replay' holds this dead letter (ADR 0008 §12)")
          .commit();
    }
  }

  /**
   * Replaces {@code removed} (rows of {@code base}) by {@code added} in one commit that fails when
   * another commit since {@code base} removed or deleted from the same files (another replay, or an
   * optimizer rewriting them): the caller then reads the table again.
   */
  static void replace(
      Table table,
      Snapshot base,
      List<Stored> removed,
      List<Record> added,
      Map<String, String> summary) {
    String operation = UUID.randomUUID().toString();
    GenericFileWriterFactory writers = new GenericFileWriterFactory.Builder(table).build();
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 0, 0).operationId(operation).build();
    long targetSize =
        PropertyUtil.propertyAsLong(
            table.properties(),
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
    RowDelta delta = table.newRowDelta();
    try {
      if (!removed.isEmpty()) {
        FanoutPositionOnlyDeleteWriter<Record> deleteWriter =
            new FanoutPositionOnlyDeleteWriter<>(writers, files, table.io(), targetSize);
        PositionDelete<Record> delete = PositionDelete.create();
        try (deleteWriter) {
          for (Stored row : removed) {
            PartitionSpec spec = table.specs().get(row.file().specId());
            deleteWriter.write(
                delete.set(row.file().location(), row.position()), spec, row.file().partition());
          }
        }
        DeleteWriteResult result = deleteWriter.result();
        result.deleteFiles().forEach(delta::addDeletes);
        delta.validateDataFilesExist(
            removed.stream().map(row -> row.file().location()).collect(Collectors.toSet()));
        delta.validateDeletedFiles();
        delta.validateNoConflictingDeleteFiles();
      }
      if (!added.isEmpty()) {
        FanoutDataWriter<Record> dataWriter =
            new FanoutDataWriter<>(writers, files, table.io(), targetSize);
        PartitionSpec spec = table.spec();
        PartitionKey partition = new PartitionKey(spec, table.schema());
        InternalRecordWrapper wrapper = new InternalRecordWrapper(table.schema().asStruct());
        try (dataWriter) {
          for (Record row : added) {
            partition.partition(wrapper.wrap(row));
            dataWriter.write(row, spec, partition.copy());
          }
        }
        DataWriteResult result = dataWriter.result();
        result.dataFiles().forEach(delta::addRows);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Writing the replay's changes of the dead-letter table " + table.name() + " failed", e);
    }
    if (base != null) {
      delta.validateFromSnapshot(base.snapshotId());
    }
    delta.conflictDetectionFilter(Expressions.alwaysTrue());
    summary.forEach(delta::set);
    delta.commit();
  }

  /** {@code row} as a row of the table's current schema, with {@code replayId} set. */
  static Record withReplayId(Table table, Record row, @Nullable String replayId) {
    Schema schema = table.schema();
    Record copy = org.apache.iceberg.data.GenericRecord.create(schema);
    for (Types.NestedField field : schema.columns()) {
      if (row.struct().field(field.name()) != null) {
        copy.setField(field.name(), row.getField(field.name()));
      }
    }
    copy.setField(REPLAY_ID, replayId);
    return copy;
  }

  /** The replay ids of {@code rows}, with how many rows each holds. */
  static Map<String, List<Stored>> claimed(List<Stored> rows) {
    Map<String, List<Stored>> claims = new HashMap<>();
    for (Stored row : rows) {
      if (row.replayId() != null) {
        claims.computeIfAbsent(row.replayId(), id -> new ArrayList<>()).add(row);
      }
    }
    return claims;
  }
}
