/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.history;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.UpdatePartitionSpec;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.Term;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.relocated.com.google.common.util.concurrent.MoreExecutors;

/**
 * The live writers next to Firn, written with Iceberg's generic writers:
 *
 * <ul>
 *   <li>{@link #checkpoint}: a Flink upsert job ({@code BaseEqualityDeltaWriter} semantics), one
 *       {@code RowDelta} per checkpoint with no validation. Per partition touched: one data file of
 *       the upserted rows, one equality-delete file on {@code id} with every key upserted or
 *       deleted (written when the key has no version of its own in this checkpoint), and a position
 *       delete against this checkpoint's own data file for a key touched again (an equality delete
 *       does not apply to data of its own sequence number).
 *   <li>Where a key's live row sits where the new equality delete cannot reach it — another spec's
 *       file while the current spec is partitioned, or another partition after the row moved — the
 *       writer also writes a position delete for the old row, as a merge-on-read engine does. So
 *       the writer never leaves two rows for one key.
 *   <li>{@link #sparkDelete}: Spark-style merge-on-read deletes of live rows: find the rows' files
 *       and positions with the {@code _file}/{@code _pos} metadata columns, one position-delete
 *       file per partition, committed as a {@code RowDelta}.
 *   <li>Schema and partition-spec evolution.
 * </ul>
 *
 * <p>Iceberg's rules the writer relies on: an equality delete of a partitioned spec applies to data
 * files of the same spec and partition with a lower data sequence number; one of an unpartitioned
 * spec applies to every data file with a lower data sequence number; a position delete applies by
 * path to data files with a data sequence number at most its own.
 */
final class UpsertWriter {
  private final Table table;
  private int fileCounter;
  private long cachedSnapshot = -1;
  private List<TableReads.LiveRow> cachedRows = List.of();

  /** One touch of a key in a checkpoint: an upsert, or a delete (blind when the key is absent). */
  record Touch(long key, boolean upsert) {}

  UpsertWriter(Table table) {
    this.table = table;
  }

  /** The rows of one partition of the current spec written in this checkpoint. */
  private static final class PartitionBuffer {
    final StructLike partition;
    final List<Record> rows = new ArrayList<>();
    final Set<Long> equalityKeys = new LinkedHashSet<>();
    final List<Long> ownDeletes = new ArrayList<>();

    PartitionBuffer(StructLike partition) {
      this.partition = partition;
    }
  }

  /** Where a position-delete file goes: the data file's own spec and partition. */
  private record Target(int specId, StructLike partition, String key) {}

  /**
   * Commits one checkpoint: the touches in order; a key's n-th touch in it (from 0) gets the row
   * {@code Rows.record(schema, key, version, n)}, as the model computes it.
   */
  void checkpoint(int version, List<Touch> touches) {
    table.refresh();
    Schema schema = table.schema();
    PartitionSpec spec = table.spec();
    Map<Long, TableReads.LiveRow> live = liveByKey();

    Map<String, PartitionBuffer> buffers = new LinkedHashMap<>();
    // Key → (buffer, position) of its version written in this checkpoint.
    Map<Long, PartitionBuffer> ownBuffer = new HashMap<>();
    Map<Long, Integer> ownPosition = new HashMap<>();
    Map<Long, Integer> occurrences = new HashMap<>();
    Set<Long> oldRowHandled = new HashSet<>();
    Map<String, Target> targets = new LinkedHashMap<>();
    Map<String, List<TableReads.Position>> oldRowDeletes = new LinkedHashMap<>();

    for (Touch touch : touches) {
      long key = touch.key();
      int occurrence = occurrences.merge(key, 1, Integer::sum) - 1;
      Record row = touch.upsert() ? Rows.record(schema, key, version, occurrence) : null;
      TableReads.LiveRow old = live.get(key);
      // The partition of the equality delete: the new row's, or for a delete the live row's (a
      // CDC delete carries the old row), or for a blind delete a made-up row's.
      Record deleteRow =
          row != null
              ? row
              : old != null
                  ? old.row()
                  : Rows.keyOnly(
                      schema, key, (String) Rows.value("cat", "string", key, version, occurrence));
      PartitionBuffer deleteBuffer = buffer(buffers, spec, schema, deleteRow);
      if (ownBuffer.containsKey(key)) {
        ownBuffer.remove(key).ownDeletes.add((long) ownPosition.remove(key));
      } else {
        deleteBuffer.equalityKeys.add(key);
      }
      if (old != null && oldRowHandled.add(key) && !reaches(spec, deleteBuffer.partition, old)) {
        Target target = targetOf(old.file());
        targets.putIfAbsent(target.key(), target);
        oldRowDeletes
            .computeIfAbsent(target.key(), k -> new ArrayList<>())
            .add(new TableReads.Position(old.path(), old.pos()));
      }
      if (row != null) {
        PartitionBuffer rowBuffer = buffer(buffers, spec, schema, row);
        ownBuffer.put(key, rowBuffer);
        ownPosition.put(key, rowBuffer.rows.size());
        rowBuffer.rows.add(row);
      }
    }

    GenericFileWriterFactory writers = writers(schema);
    OutputFileFactory files = files();
    List<DataFile> dataFiles = new ArrayList<>();
    List<DeleteFile> deleteFiles = new ArrayList<>();
    try {
      for (PartitionBuffer buffer : buffers.values()) {
        if (!buffer.rows.isEmpty()) {
          DataWriter<Record> writer =
              writers.newDataWriter(
                  files.newOutputFile(spec, buffer.partition), spec, buffer.partition);
          try (writer) {
            buffer.rows.forEach(writer::write);
          }
          DataFile dataFile = writer.toDataFile();
          dataFiles.add(dataFile);
          if (!buffer.ownDeletes.isEmpty()) {
            List<TableReads.Position> own = new ArrayList<>();
            buffer.ownDeletes.forEach(
                pos -> own.add(new TableReads.Position(dataFile.location(), pos)));
            deleteFiles.add(positionDeletes(writers, files, spec, buffer.partition, own));
          }
        }
        if (!buffer.equalityKeys.isEmpty()) {
          EqualityDeleteWriter<Record> writer =
              writers.newEqualityDeleteWriter(
                  files.newOutputFile(spec, buffer.partition), spec, buffer.partition);
          Schema keySchema = schema.select("id");
          try (writer) {
            for (long key : buffer.equalityKeys) {
              Record record = org.apache.iceberg.data.GenericRecord.create(keySchema);
              record.setField("id", key);
              writer.write(record);
            }
          }
          deleteFiles.add(writer.toDeleteFile());
        }
      }
      for (Map.Entry<String, List<TableReads.Position>> entry : oldRowDeletes.entrySet()) {
        Target target = targets.get(entry.getKey());
        PartitionSpec targetSpec = table.specs().get(target.specId());
        deleteFiles.add(
            positionDeletes(writers, files, targetSpec, target.partition(), entry.getValue()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (dataFiles.isEmpty() && deleteFiles.isEmpty()) {
      return;
    }
    // Flink's committer sets no validation at all. Manifests are scanned on this thread: Iceberg's
    // pool is polled in 10 ms sleeps.
    RowDelta delta =
        table.newRowDelta().scanManifestsWith(MoreExecutors.newDirectExecutorService());
    dataFiles.forEach(delta::addRows);
    deleteFiles.forEach(delta::addDeletes);
    delta.commit();
  }

  /**
   * Deletes the live rows of these keys the way Spark's merge-on-read DELETE does.
   *
   * @return the keys that were live and are deleted now
   */
  Set<Long> sparkDelete(Set<Long> keys) {
    table.refresh();
    Map<Long, TableReads.LiveRow> live = liveByKey();
    Map<String, Target> targets = new LinkedHashMap<>();
    Map<String, List<TableReads.Position>> positions = new TreeMap<>();
    Set<Long> deleted = new LinkedHashSet<>();
    Set<String> referenced = new LinkedHashSet<>();
    for (long key : keys) {
      TableReads.LiveRow row = live.get(key);
      if (row == null) {
        continue;
      }
      Target target = targetOf(row.file());
      targets.putIfAbsent(target.key(), target);
      positions
          .computeIfAbsent(target.key(), k -> new ArrayList<>())
          .add(new TableReads.Position(row.path(), row.pos()));
      referenced.add(row.path());
      deleted.add(key);
    }
    if (deleted.isEmpty()) {
      return deleted;
    }
    GenericFileWriterFactory writers = writers(table.schema());
    OutputFileFactory files = files();
    RowDelta delta =
        table
            .newRowDelta()
            .scanManifestsWith(MoreExecutors.newDirectExecutorService())
            .validateFromSnapshot(table.currentSnapshot().snapshotId())
            .validateDataFilesExist(referenced)
            .validateDeletedFiles();
    try {
      for (Map.Entry<String, List<TableReads.Position>> entry : positions.entrySet()) {
        Target target = targets.get(entry.getKey());
        delta.addDeletes(
            positionDeletes(
                writers,
                files,
                table.specs().get(target.specId()),
                target.partition(),
                entry.getValue()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    delta.commit();
    return deleted;
  }

  void addColumn(String name, String type) {
    table.refresh();
    table.updateSchema().addColumn(name, Rows.icebergType(type)).commit();
  }

  void widen(String name) {
    table.refresh();
    table.updateSchema().updateColumn(name, org.apache.iceberg.types.Types.LongType.get()).commit();
  }

  /**
   * Evolves the default spec to the one described: {@code unpartitioned}, {@code bucket[N]} (on
   * id), {@code cat} (identity), or {@code bucket[N]+cat}.
   *
   * @return whether the spec changed
   */
  boolean spec(String description) {
    table.refresh();
    Map<String, Term> wanted = new LinkedHashMap<>();
    Map<String, String> wantedTransforms = new LinkedHashMap<>();
    if (!description.equals("unpartitioned")) {
      for (String part : description.split("\\+")) {
        if (part.equals("cat")) {
          wanted.put("cat", Expressions.ref("cat"));
          wantedTransforms.put("cat", "identity:2");
        } else if (part.startsWith("bucket[") && part.endsWith("]")) {
          int buckets = Integer.parseInt(part.substring(7, part.length() - 1));
          wanted.put("id_b" + buckets, Expressions.bucket("id", buckets));
          wantedTransforms.put("id_b" + buckets, "bucket[" + buckets + "]:1");
        } else {
          throw new IllegalArgumentException("unknown spec part '" + part + "' in " + description);
        }
      }
    }
    Map<String, String> current = new LinkedHashMap<>();
    for (PartitionField field : table.spec().fields()) {
      current.put(field.name(), field.transform() + ":" + field.sourceId());
    }
    UpdatePartitionSpec update = table.updateSpec();
    boolean changed = false;
    for (Map.Entry<String, String> field : current.entrySet()) {
      if (!field.getValue().equals(wantedTransforms.get(field.getKey()))) {
        update.removeField(field.getKey());
        changed = true;
      }
    }
    for (Map.Entry<String, Term> field : wanted.entrySet()) {
      if (!wantedTransforms.get(field.getKey()).equals(current.get(field.getKey()))) {
        update.addField(field.getKey(), field.getValue());
        changed = true;
      }
    }
    if (changed) {
      update.commit();
    }
    return changed;
  }

  /** Whether an equality delete of the current spec in {@code partition} removes this old row. */
  private boolean reaches(PartitionSpec spec, StructLike partition, TableReads.LiveRow old) {
    if (spec.isUnpartitioned()) {
      return true;
    }
    return old.file().specId() == spec.specId()
        && spec.partitionToPath(partition)
            .equals(table.specs().get(old.file().specId()).partitionToPath(old.file().partition()));
  }

  private Target targetOf(DataFile file) {
    return new Target(file.specId(), file.partition(), TableReads.partitionOf(table, file));
  }

  /**
   * Remembers the live rows the history's check just read at this snapshot, so the next commit need
   * not read them again.
   */
  void cache(Snapshot snapshot, List<TableReads.LiveRow> live) {
    cachedSnapshot = snapshot == null ? -1 : snapshot.snapshotId();
    cachedRows = live;
  }

  private Map<Long, TableReads.LiveRow> liveByKey() {
    Snapshot current = table.currentSnapshot();
    List<TableReads.LiveRow> rows =
        current != null && current.snapshotId() == cachedSnapshot
            ? cachedRows
            : TableReads.locate(table);
    Map<Long, TableReads.LiveRow> live = new HashMap<>();
    for (TableReads.LiveRow row : rows) {
      TableReads.LiveRow before = live.put(row.key(), row);
      if (before != null) {
        throw new IllegalStateException(
            "key "
                + row.key()
                + " is live twice before a writer commit ("
                + before.path()
                + "@"
                + before.pos()
                + " and "
                + row.path()
                + "@"
                + row.pos()
                + "); the history check should have failed earlier");
      }
    }
    return live;
  }

  private PartitionBuffer buffer(
      Map<String, PartitionBuffer> buffers, PartitionSpec spec, Schema schema, Record row) {
    PartitionKey key = new PartitionKey(spec, schema);
    key.partition(row);
    String path = spec.partitionToPath(key);
    return buffers.computeIfAbsent(path, p -> new PartitionBuffer(key.copy()));
  }

  private DeleteFile positionDeletes(
      GenericFileWriterFactory writers,
      OutputFileFactory files,
      PartitionSpec spec,
      StructLike partition,
      List<TableReads.Position> positions)
      throws IOException {
    List<TableReads.Position> sorted = new ArrayList<>(positions);
    sorted.sort(
        Comparator.comparing(TableReads.Position::path)
            .thenComparingLong(TableReads.Position::pos));
    PositionDeleteWriter<Record> writer =
        writers.newPositionDeleteWriter(files.newOutputFile(spec, partition), spec, partition);
    try (writer) {
      PositionDelete<Record> delete = PositionDelete.create();
      for (TableReads.Position position : sorted) {
        writer.write(delete.set(position.path(), position.pos()));
      }
    }
    return writer.toDeleteFile();
  }

  private GenericFileWriterFactory writers(Schema schema) {
    return new GenericFileWriterFactory.Builder(table)
        .dataSchema(schema)
        .dataFileFormat(FileFormat.PARQUET)
        .deleteFileFormat(FileFormat.PARQUET)
        .equalityFieldIds(new int[] {schema.findField("id").fieldId()})
        .equalityDeleteRowSchema(schema.select("id"))
        .build();
  }

  private OutputFileFactory files() {
    fileCounter++;
    return OutputFileFactory.builderFor(table, 7, fileCounter)
        .format(FileFormat.PARQUET)
        .operationId("writer-" + UUID.randomUUID())
        .build();
  }
}
