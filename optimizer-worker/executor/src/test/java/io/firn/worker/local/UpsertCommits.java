/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.local;

import io.firn.testkit.TestCatalogs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.SnapshotUtil;
import org.apache.iceberg.util.StructLikeMap;

/**
 * Commits the way a Flink upsert writer does, for tables of {@code id long, v string} in any spec:
 * one {@code RowDelta} without validation per commit, and per partition of the current spec one
 * data file with the upserted rows and one equality-delete file on {@code id} with every key
 * upserted or deleted. Keys are distinct within a commit, so no position deletes are needed. Keeps
 * the expected rows ({@code id -> v}).
 */
final class UpsertCommits {
  /** The schema these commits write. */
  static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "v", Types.StringType.get()));

  private static final String COMMIT_NUMBER = "test.writer-commit";

  private final Table table;
  private final Map<Long, String> expected = new LinkedHashMap<>();
  private int commits;

  UpsertCommits(Table table) {
    this.table = table;
  }

  /** A new format-version 2 table of {@link #SCHEMA} in a Hadoop catalog under the warehouse. */
  static Table createTable(java.nio.file.Path warehouse, String name, PartitionSpec spec) {
    return TestCatalogs.hadoop(warehouse)
        .createTable(
            org.apache.iceberg.catalog.TableIdentifier.of("db", name),
            SCHEMA,
            spec,
            Map.of("format-version", "2"));
  }

  /** Upserts every id in {@code [from, to]} with value {@code prefix + id}. */
  void upsert(long from, long to, String prefix) {
    Map<Long, String> rows = new LinkedHashMap<>();
    for (long id = from; id <= to; id++) {
      rows.put(id, prefix + id);
    }
    commit(rows, List.of());
  }

  /** Deletes the given ids with equality deletes only (a delete-only checkpoint). */
  void delete(List<Long> ids) {
    commit(Map.of(), ids);
  }

  Map<Long, String> expected() {
    return Map.copyOf(expected);
  }

  /**
   * Upserts and deletes in one commit (keys distinct); retries a lost metadata swap with the same
   * files.
   *
   * @return the id of the committed snapshot
   */
  long commit(Map<Long, String> upserts, List<Long> deletes) {
    table.refresh();
    Schema schema = table.schema();
    PartitionSpec spec = table.spec();
    commits++;
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table)
            .dataFileFormat(FileFormat.PARQUET)
            .deleteFileFormat(FileFormat.PARQUET)
            .equalityFieldIds(new int[] {schema.findField("id").fieldId()})
            .equalityDeleteRowSchema(schema.select("id"))
            .build();
    OutputFileFactory files = OutputFileFactory.builderFor(table, 1, commits).build();
    PartitionKey key = new PartitionKey(spec, schema);
    StructLikeMap<Buffer> buffers = StructLikeMap.create(spec.partitionType());
    for (Map.Entry<Long, String> entry : upserts.entrySet()) {
      Record row = GenericRecord.create(schema);
      row.setField("id", entry.getKey());
      row.setField("v", entry.getValue());
      key.partition(row);
      Buffer buffer = buffers.computeIfAbsent(key.copy(), p -> new Buffer());
      buffer.rows.add(row);
      buffer.deleteKeys.add(entry.getKey());
    }
    for (long id : deletes) {
      Record row = GenericRecord.create(schema);
      row.setField("id", id);
      key.partition(row);
      buffers.computeIfAbsent(key.copy(), p -> new Buffer()).deleteKeys.add(id);
    }
    List<DataFile> dataFiles = new java.util.ArrayList<>();
    List<DeleteFile> deleteFiles = new java.util.ArrayList<>();
    try {
      for (Map.Entry<StructLike, Buffer> entry : buffers.entrySet()) {
        StructLike partition = spec.isUnpartitioned() ? null : entry.getKey();
        Buffer buffer = entry.getValue();
        if (!buffer.rows.isEmpty()) {
          DataWriter<Record> writer =
              writers.newDataWriter(files.newOutputFile(spec, partition), spec, partition);
          try (writer) {
            buffer.rows.forEach(writer::write);
          }
          dataFiles.add(writer.toDataFile());
        }
        EqualityDeleteWriter<Record> writer =
            writers.newEqualityDeleteWriter(files.newOutputFile(spec, partition), spec, partition);
        try (writer) {
          for (long id : buffer.deleteKeys) {
            Record row = GenericRecord.create(schema.select("id"));
            row.setField("id", id);
            writer.write(row);
          }
        }
        deleteFiles.add(writer.toDeleteFile());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    for (int attempt = 1; ; attempt++) {
      try {
        RowDelta delta = table.newRowDelta();
        dataFiles.forEach(delta::addRows);
        deleteFiles.forEach(delta::addDeletes);
        delta.set(COMMIT_NUMBER, Integer.toString(commits));
        delta.commit();
        break;
      } catch (CommitFailedException e) {
        if (attempt >= 20) {
          throw e;
        }
        table.refresh();
      }
    }
    expected.putAll(upserts);
    deletes.forEach(expected::remove);
    // Iceberg refreshes after committing: the current snapshot may already be someone else's.
    table.refresh();
    for (Snapshot snapshot : SnapshotUtil.currentAncestors(table)) {
      if (Integer.toString(commits).equals(snapshot.summary().get(COMMIT_NUMBER))) {
        return snapshot.snapshotId();
      }
    }
    throw new IllegalStateException("commit " + commits + " is not in the table's history");
  }

  private static final class Buffer {
    final List<Record> rows = new java.util.ArrayList<>();
    final List<Long> deleteKeys = new java.util.ArrayList<>();
  }
}
