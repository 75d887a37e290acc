/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.util.StructLikeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the CDC stream of a generated table the way a Flink upsert job (Iceberg {@code FlinkSink}
 * or {@code DynamicIcebergSink} in upsert mode, one writer task) does, and keeps a reference model
 * of the live rows.
 *
 * <p>Each {@link #commit} is one {@code RowDelta} with, per touched partition:
 *
 * <ul>
 *   <li>one Parquet data file with the rows upserted in this commit, in arrival order;
 *   <li>one equality-delete file on {@code id} with every key upserted (new keys included) or
 *       deleted in this commit, written at the key's first touch in the commit;
 *   <li>when a key is touched again in the same commit, a file-scoped position-delete file on this
 *       commit's data file with the position of the earlier version (an equality delete does not
 *       apply to data of its own sequence number).
 * </ul>
 *
 * <p>No validation is set on the {@code RowDelta} (Flink sets none). A {@link
 * CommitFailedException} left after Iceberg's own retries is retried with the same files after a
 * refresh, so the writer can run in its own thread while an optimizer commits. Methods are
 * synchronized; the reference model changes only when a commit succeeds.
 *
 * <p><b>Partition-spec changes.</b> Partition-scoped equality deletes apply only to data files of
 * the same spec (and unpartitioned, global equality deletes only to data of a lower sequence
 * number). So once the table's default spec differs from the spec a key's live row was written
 * with, an equality delete written now would not remove that row. The writer therefore updates and
 * deletes only keys whose live row was written with the current default spec; when the spec
 * changes, the keys written before become read-only (they stay live in the model) and updates are
 * taken from keys written after the change (new keys fill the shortfall). This keeps the reference
 * model exact.
 */
public final class CdcWriter {
  private static final Logger LOG = LoggerFactory.getLogger(CdcWriter.class);

  private static final String[] REGIONS = {
    "eu-west", "eu-central", "eu-north", "us-east", "us-west", "ap-south", "ap-east", "sa-east"
  };
  private static final char[] PAYLOAD_CHARS =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -".toCharArray();
  private static final int MIN_PAYLOAD = 40;
  private static final int MAX_PAYLOAD = 80;
  private static final int MAX_COMMIT_ATTEMPTS = 20;

  private final Table table;
  private final CdcTableSpec spec;
  private final SplittableRandom random;
  private final Map<Long, Record> live = new HashMap<>();
  private final KeyPool writable = new KeyPool();
  private int writableSpecId;
  private long nextId = 1;
  private long commits;

  CdcWriter(Table table, CdcTableSpec spec) {
    this.table = table;
    this.spec = spec;
    this.random = new SplittableRandom(spec.seed());
    this.writableSpecId = table.spec().specId();
  }

  /**
   * Writes one Flink-shaped commit.
   *
   * @param upserts rows to write: updates of existing keys and new keys (in the proportion of the
   *     spec's {@code updateRatio}), plus second writes of keys already written in this commit (in
   *     the proportion of {@code inCommitDuplicateRatio})
   * @param deletes deletes of existing keys (fewer if fewer keys are writable, see the class
   *     comment)
   */
  public synchronized void commit(int upserts, int deletes) {
    if (upserts < 0 || deletes < 0) {
      throw new IllegalArgumentException(
          "upserts and deletes must be >= 0, were " + upserts + " and " + deletes);
    }
    double parts = 1 + spec.updateRatio() + spec.inCommitDuplicateRatio();
    int updates = (int) Math.round(upserts * spec.updateRatio() / parts);
    int duplicates = (int) Math.round(upserts * spec.inCommitDuplicateRatio() / parts);
    commit(upserts - updates - duplicates, updates, deletes, duplicates, true);
  }

  /** The reference model: a copy of the live rows by id, as of the last successful commit. */
  public synchronized Map<Long, Record> expected() {
    Map<Long, Record> copy = new HashMap<>(live.size() * 2);
    for (Map.Entry<Long, Record> entry : live.entrySet()) {
      copy.put(entry.getKey(), entry.getValue().copy());
    }
    return copy;
  }

  /** Number of successful data commits of this stream, the generated history included. */
  public synchronized long commits() {
    return commits;
  }

  /** The writer's own table instance (the generator changes schema and spec through it). */
  Table table() {
    return table;
  }

  /**
   * Writes one commit with these counts where possible: updates and deletes are capped by the
   * writable keys, duplicates need at least one upsert.
   *
   * @param replaceMissingUpdates write a new key for each update that found no writable key, to
   *     keep the number of upserts
   */
  synchronized void commit(
      int newKeys, int updates, int deletes, int duplicates, boolean replaceMissingUpdates) {
    table.refresh();
    Schema schema = table.schema();
    PartitionSpec partitionSpec = table.spec();
    if (partitionSpec.specId() != writableSpecId) {
      LOG.debug(
          "{}: spec {} -> {}, {} keys become read-only",
          table.name(),
          writableSpecId,
          partitionSpec.specId(),
          writable.size());
      writable.clear();
      writableSpecId = partitionSpec.specId();
    }
    long commitNumber = commits + 1;

    int actualUpdates = Math.min(updates, writable.size());
    int actualDeletes = Math.min(deletes, writable.size() - actualUpdates);
    int actualNewKeys = replaceMissingUpdates ? newKeys + updates - actualUpdates : newKeys;
    List<Long> chosen = writable.sample(actualUpdates + actualDeletes, random);

    // Arrival order: every change gets a random position in the commit; a second write of a key
    // comes after its first.
    List<Op> ops = new ArrayList<>(actualNewKeys + actualUpdates + actualDeletes + duplicates);
    for (int i = 0; i < actualUpdates; i++) {
      ops.add(new Op(chosen.get(i), false, random.nextDouble()));
    }
    for (int i = 0; i < actualNewKeys; i++) {
      ops.add(new Op(nextId + i, false, random.nextDouble()));
    }
    int upsertOps = ops.size();
    for (int i = 0; i < actualDeletes; i++) {
      ops.add(new Op(chosen.get(actualUpdates + i), true, random.nextDouble()));
    }
    int actualDuplicates = upsertOps == 0 ? 0 : duplicates;
    for (int i = 0; i < actualDuplicates; i++) {
      Op first = ops.get(random.nextInt(upsertOps));
      double later = first.order() + (1 - first.order()) * random.nextDouble();
      ops.add(new Op(first.key(), false, later));
    }
    ops.sort(Comparator.comparingDouble(Op::order)); // stable: ties keep first-before-second

    // Route the changes to per-partition buffers, as the Flink task writer does.
    PartitionKey partitionKey = new PartitionKey(partitionSpec, schema);
    GenericRecord keyRow = GenericRecord.create(schema);
    StructLikeMap<PartitionBuffer> buffers = StructLikeMap.create(partitionSpec.partitionType());
    List<PartitionBuffer> bufferOrder = new ArrayList<>();
    Map<Long, Record> changed = new LinkedHashMap<>(); // id -> new row, or null when deleted
    for (Op op : ops) {
      Record row = null;
      if (op.delete()) {
        keyRow.setField(CdcTableGenerator.ID, op.key());
        partitionKey.partition(keyRow);
      } else {
        row = newRow(schema, op.key(), commitNumber);
        partitionKey.partition(row);
      }
      PartitionBuffer buffer = buffers.get(partitionKey);
      if (buffer == null) {
        buffer = new PartitionBuffer(partitionKey.copy());
        buffers.put(buffer.partition, buffer);
        bufferOrder.add(buffer);
      }
      if (row == null) {
        buffer.delete(op.key());
      } else {
        buffer.upsert(op.key(), row);
      }
      changed.put(op.key(), row);
    }

    List<DataFile> dataFiles = new ArrayList<>();
    List<DeleteFile> deleteFiles = new ArrayList<>();
    writeFiles(schema, partitionSpec, commitNumber, bufferOrder, dataFiles, deleteFiles);
    if (dataFiles.isEmpty() && deleteFiles.isEmpty()) {
      return;
    }
    commitFiles(dataFiles, deleteFiles);

    for (Map.Entry<Long, Record> change : changed.entrySet()) {
      long key = change.getKey();
      if (change.getValue() == null) {
        live.remove(key);
        writable.remove(key);
      } else {
        live.put(key, change.getValue());
        writable.add(key);
      }
    }
    nextId += actualNewKeys;
    commits = commitNumber;
    LOG.debug(
        "{}: commit {}: {} new keys, {} updates, {} deletes, {} in-commit duplicates, {} data"
            + " files, {} delete files",
        table.name(),
        commitNumber,
        actualNewKeys,
        actualUpdates,
        actualDeletes,
        actualDuplicates,
        dataFiles.size(),
        deleteFiles.size());
  }

  private void writeFiles(
      Schema schema,
      PartitionSpec partitionSpec,
      long commitNumber,
      List<PartitionBuffer> buffers,
      List<DataFile> dataFiles,
      List<DeleteFile> deleteFiles) {
    Schema keySchema = schema.select(CdcTableGenerator.ID);
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table)
            .dataSchema(schema)
            .equalityFieldIds(new int[] {schema.findField(CdcTableGenerator.ID).fieldId()})
            .equalityDeleteRowSchema(keySchema)
            .build();
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 1, commitNumber).defaultSpec(partitionSpec).build();

    for (PartitionBuffer buffer : buffers) {
      StructLike partition = partitionSpec.isUnpartitioned() ? null : buffer.partition;
      DataFile dataFile = null;
      if (!buffer.rows.isEmpty()) {
        DataWriter<Record> writer =
            writers.newDataWriter(
                newFile(files, partitionSpec, partition), partitionSpec, partition);
        try (writer) {
          for (Record row : buffer.rows) {
            writer.write(row);
          }
        } catch (IOException e) {
          throw new UncheckedIOException("Failed to write a data file of " + table.name(), e);
        }
        dataFile = writer.toDataFile();
        dataFiles.add(dataFile);
      }

      if (!buffer.equalityDeletes.isEmpty()) {
        EqualityDeleteWriter<Record> writer =
            writers.newEqualityDeleteWriter(
                newFile(files, partitionSpec, partition), partitionSpec, partition);
        GenericRecord key = GenericRecord.create(keySchema);
        try (writer) {
          for (long id : buffer.equalityDeletes) {
            key.setField(CdcTableGenerator.ID, id);
            writer.write(key);
          }
        } catch (IOException e) {
          throw new UncheckedIOException(
              "Failed to write an equality-delete file of " + table.name(), e);
        }
        deleteFiles.add(writer.toDeleteFile());
      }

      if (!buffer.positionDeletes.isEmpty() && dataFile != null) {
        Collections.sort(buffer.positionDeletes);
        PositionDeleteWriter<Record> writer =
            writers.newPositionDeleteWriter(
                newFile(files, partitionSpec, partition), partitionSpec, partition);
        PositionDelete<Record> delete = PositionDelete.create();
        try (writer) {
          for (long position : buffer.positionDeletes) {
            writer.write(delete.set(dataFile.location(), position));
          }
        } catch (IOException e) {
          throw new UncheckedIOException(
              "Failed to write a position-delete file of " + table.name(), e);
        }
        deleteFiles.add(writer.toDeleteFile());
      }
    }
  }

  private static EncryptedOutputFile newFile(
      OutputFileFactory files, PartitionSpec partitionSpec, StructLike partition) {
    return partition == null
        ? files.newOutputFile()
        : files.newOutputFile(partitionSpec, partition);
  }

  private void commitFiles(List<DataFile> dataFiles, List<DeleteFile> deleteFiles) {
    for (int attempt = 1; ; attempt++) {
      try {
        RowDelta delta = table.newRowDelta();
        for (DataFile file : dataFiles) {
          delta.addRows(file);
        }
        for (DeleteFile file : deleteFiles) {
          delta.addDeletes(file);
        }
        delta.commit();
        return;
      } catch (CommitFailedException e) {
        if (attempt >= MAX_COMMIT_ATTEMPTS) {
          throw e;
        }
        LOG.debug(
            "{}: commit attempt {} failed, refreshing: {}", table.name(), attempt, e.toString());
        table.refresh();
      }
    }
  }

  private Record newRow(Schema schema, long id, long commitNumber) {
    GenericRecord row = GenericRecord.create(schema);
    row.setField(CdcTableGenerator.ID, id);
    row.setField(CdcTableGenerator.REGION, REGIONS[random.nextInt(REGIONS.length)]);
    row.setField(CdcTableGenerator.AMOUNT, random.nextInt(10_000_000) / 100.0);
    row.setField(CdcTableGenerator.PAYLOAD, payload());
    row.setField(CdcTableGenerator.UPDATED_AT, commitNumber);
    if (schema.findField(CdcTableGenerator.NOTE) != null) {
      row.setField(
          CdcTableGenerator.NOTE, random.nextInt(4) == 0 ? null : "note-" + random.nextInt(1000));
    }
    return row;
  }

  private String payload() {
    char[] text = new char[MIN_PAYLOAD + random.nextInt(MAX_PAYLOAD - MIN_PAYLOAD + 1)];
    for (int i = 0; i < text.length; i++) {
      text[i] = PAYLOAD_CHARS[random.nextInt(PAYLOAD_CHARS.length)];
    }
    return new String(text);
  }

  /** One change in a commit; {@code order} is its arrival position in [0, 1). */
  private record Op(long key, boolean delete, double order) {}

  /** What one Flink task writer holds for one partition until the checkpoint. */
  private static final class PartitionBuffer {
    final StructLike partition;
    final List<Record> rows = new ArrayList<>();
    final Map<Long, Integer> positionByKey = new HashMap<>();
    final List<Long> equalityDeletes = new ArrayList<>();
    final List<Long> positionDeletes = new ArrayList<>();

    PartitionBuffer(StructLike partition) {
      this.partition = partition;
    }

    void upsert(long key, Record row) {
      deleteKey(key);
      positionByKey.put(key, rows.size());
      rows.add(row);
    }

    void delete(long key) {
      deleteKey(key);
    }

    /** As Iceberg's {@code BaseEqualityDeltaWriter.deleteKey}. */
    private void deleteKey(long key) {
      Integer previous = positionByKey.remove(key);
      if (previous == null) {
        equalityDeletes.add(key);
      } else {
        positionDeletes.add((long) previous);
      }
    }
  }
}
