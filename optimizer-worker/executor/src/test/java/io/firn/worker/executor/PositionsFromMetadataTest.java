/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.executor;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.core.table.DataFileEntry;
import io.firn.core.table.DeleteFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A position-delete file of one or two records for one data file is applied from its statistics,
 * without being opened ({@link DeleteFiles#positionsFromMetadata}), and to the same positions as
 * reading it would give; every other position-delete file is read. The files are written by
 * Iceberg's own position-delete writer, so the test also holds Iceberg to the statistics the
 * shortcut relies on (full {@code file_path} and {@code pos} bounds).
 */
class PositionsFromMetadataTest {
  private static final Schema SCHEMA =
      new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));

  @TempDir Path dir;

  @Test
  void pinnedFilesAreNotOpenedAndGiveTheirPositions() throws IOException {
    Table table =
        new HadoopTables(new org.apache.hadoop.conf.Configuration())
            .create(
                SCHEMA,
                PartitionSpec.unpartitioned(),
                Map.of(TableProperties.FORMAT_VERSION, "2"),
                dir.resolve("t").toString());
    DataFile first = dataFile(table, 20);
    DataFile second = dataFile(table, 20);
    String a = first.location();
    String b = second.location();

    DeleteFile one = positionDeletes(table, List.of(a), 3);
    DeleteFile two = positionDeletes(table, List.of(a, a), 5, 9);
    DeleteFile twice = positionDeletes(table, List.of(a, a), 7, 7);
    DeleteFile three = positionDeletes(table, List.of(a, a, a), 1, 2, 4);
    DeleteFile shared = positionDeletes(table, List.of(a, b), 11, 0);
    DeleteFile notAttached = positionDeletes(table, List.of(a), 12);

    assertThat(DeleteFiles.positionsFromMetadata(one)).containsExactly(3);
    assertThat(DeleteFiles.positionsFromMetadata(two)).containsExactly(5, 9);
    assertThat(DeleteFiles.positionsFromMetadata(twice)).containsExactly(7);
    assertThat(DeleteFiles.positionsFromMetadata(three)).isNull();
    assertThat(DeleteFiles.positionsFromMetadata(shared)).isNull();
    assertThat(DeleteFiles.positionsFromMetadata(notAttached)).containsExactly(12);

    // The pinned files are gone: reading any of them would fail the load.
    for (DeleteFile pinned : List.of(one, two, twice, notAttached)) {
      Files.delete(Path.of(pinned.location().replaceFirst("^file:", "")));
    }
    List<DataFileEntry> entries =
        List.of(
            new DataFileEntry(first, List.of(one, two, twice, three, shared)),
            // Attached to the second file only, so it deletes nothing of the first.
            new DataFileEntry(second, List.of(shared, notAttached)));
    TaskDeletes deletes = TaskDeletes.load(table.io(), SCHEMA, table.specs(), entries, 1_000_000);

    assertThat(deletes.positions(a)).containsExactly(1, 2, 3, 4, 5, 7, 9, 11);
    assertThat(deletes.positions(b)).containsExactly(0);
    assertThat(deletes.positionRecordsRead()).isEqualTo(1 + 2 + 2 + 3 + 2 + 1);
  }

  @Test
  void metadataThatDoesNotPinThePositionsIsNotUsed() {
    String path = "file:/t/data/a.parquet";
    int pathId = MetadataColumns.DELETE_FILE_PATH.fieldId();
    int posId = MetadataColumns.DELETE_FILE_POS.fieldId();
    ByteBuffer file = Conversions.toByteBuffer(Types.StringType.get(), path);
    ByteBuffer other = Conversions.toByteBuffer(Types.StringType.get(), path + "x");

    // One record, yet two different positions in its bounds: contradictory, so the file is read.
    assertThat(
            DeleteFiles.positionsFromMetadata(
                positionMetadata(
                    1, Map.of(pathId, file, posId, pos(3)), Map.of(pathId, file, posId, pos(4)))))
        .isNull();
    // No pos bounds.
    assertThat(
            DeleteFiles.positionsFromMetadata(
                positionMetadata(1, Map.of(pathId, file), Map.of(pathId, file))))
        .isNull();
    // Two data files.
    assertThat(
            DeleteFiles.positionsFromMetadata(
                positionMetadata(
                    2, Map.of(pathId, file, posId, pos(3)), Map.of(pathId, other, posId, pos(4)))))
        .isNull();
    // A negative position, or bounds of the wrong width.
    assertThat(
            DeleteFiles.positionsFromMetadata(
                positionMetadata(
                    1, Map.of(pathId, file, posId, pos(-1)), Map.of(pathId, file, posId, pos(-1)))))
        .isNull();
    ByteBuffer narrow = Conversions.toByteBuffer(Types.IntegerType.get(), 3);
    assertThat(
            DeleteFiles.positionsFromMetadata(
                positionMetadata(
                    1, Map.of(pathId, file, posId, narrow), Map.of(pathId, file, posId, narrow))))
        .isNull();
    // The same metadata, consistent, pins the position.
    assertThat(
            DeleteFiles.positionsFromMetadata(
                positionMetadata(
                    1, Map.of(pathId, file, posId, pos(3)), Map.of(pathId, file, posId, pos(3)))))
        .containsExactly(3);
  }

  private static ByteBuffer pos(long position) {
    return Conversions.toByteBuffer(Types.LongType.get(), position);
  }

  private static DeleteFile positionMetadata(
      long records, Map<Integer, ByteBuffer> lower, Map<Integer, ByteBuffer> upper) {
    return FileMetadata.deleteFileBuilder(PartitionSpec.unpartitioned())
        .ofPositionDeletes()
        .withPath("file:/t/data/deletes-" + records + ".parquet")
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(100)
        .withMetrics(new Metrics(records, null, null, null, null, lower, upper))
        .build();
  }

  private static DataFile dataFile(Table table, int rows) throws IOException {
    DataWriter<Record> writer =
        writers(table).newDataWriter(files(table).newOutputFile(), table.spec(), null);
    try (writer) {
      for (long i = 0; i < rows; i++) {
        Record row = GenericRecord.create(SCHEMA);
        row.setField("id", i);
        writer.write(row);
      }
    }
    return writer.toDataFile();
  }

  /**
   * A position-delete file written by Iceberg's writer: {@code paths[i]} at {@code positions[i]}.
   */
  private static DeleteFile positionDeletes(Table table, List<String> paths, long... positions)
      throws IOException {
    PositionDeleteWriter<Record> writer =
        writers(table).newPositionDeleteWriter(files(table).newOutputFile(), table.spec(), null);
    try (writer) {
      PositionDelete<Record> delete = PositionDelete.create();
      for (int i = 0; i < positions.length; i++) {
        writer.write(delete.set(paths.get(i), positions[i]));
      }
    }
    return writer.toDeleteFile();
  }

  private static GenericFileWriterFactory writers(Table table) {
    return new GenericFileWriterFactory.Builder(table)
        .dataSchema(SCHEMA)
        .dataFileFormat(FileFormat.PARQUET)
        .deleteFileFormat(FileFormat.PARQUET)
        .build();
  }

  private static OutputFileFactory files(Table table) {
    return OutputFileFactory.builderFor(table, 1, System.nanoTime())
        .format(FileFormat.PARQUET)
        .build();
  }
}
