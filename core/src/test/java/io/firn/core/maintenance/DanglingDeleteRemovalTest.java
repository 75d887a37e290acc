/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.testkit.RowSets;
import io.firn.testkit.TestCatalogs;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionData;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Delete files no live data file needs are removed in a validated, tagged commit. */
class DanglingDeleteRemovalTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.required(2, "part", Types.StringType.get()));
  private static final PartitionSpec SPEC =
      PartitionSpec.builderFor(SCHEMA).identity("part").build();

  @TempDir Path warehouse;

  private Table table;
  private GenericFileWriterFactory writers;
  private OutputFileFactory files;
  private DeleteFile liveEquality;
  private Set<String> dangling;

  /**
   * Partition a: a data file of the first sequence number and an equality delete that still applies
   * to it. Partition b: an equality delete whose data file was then rewritten (newer sequence
   * number). Partition c: a position delete whose data file was replaced. Partition d: an equality
   * delete and no data at all.
   */
  @BeforeEach
  void createTable() throws Exception {
    HadoopCatalog catalog = TestCatalogs.hadoop(warehouse);
    table =
        catalog.createTable(
            TableIdentifier.of("db", "dangling"), SCHEMA, SPEC, Map.of("format-version", "2"));
    writers =
        new GenericFileWriterFactory.Builder(table)
            .dataFileFormat(FileFormat.PARQUET)
            .deleteFileFormat(FileFormat.PARQUET)
            .equalityFieldIds(new int[] {1})
            .equalityDeleteRowSchema(SCHEMA.select("id"))
            .build();
    files = OutputFileFactory.builderFor(table, 1, 1).build();

    DataFile a = writeData("a", 10, 11);
    DataFile b = writeData("b", 1, 2, 3);
    DataFile c = writeData("c", 5, 6);
    table.newAppend().appendFile(a).appendFile(b).appendFile(c).commit();
    liveEquality = writeEqualityDelete("a", 11);
    DeleteFile danglingEquality = writeEqualityDelete("b", 2);
    DeleteFile danglingPosition = writePositionDelete("c", c.location(), 0);
    DeleteFile emptyPartition = writeEqualityDelete("d", 99);
    table
        .newRowDelta()
        .addDeletes(liveEquality)
        .addDeletes(danglingEquality)
        .addDeletes(danglingPosition)
        .addDeletes(emptyPartition)
        .commit();
    table.newOverwrite().deleteFile(b).addFile(writeData("b", 1, 3)).commit();
    table.newOverwrite().deleteFile(c).addFile(writeData("c", 6)).commit();
    dangling =
        Set.of(danglingEquality.location(), danglingPosition.location(), emptyPartition.location());
  }

  @Test
  void removesExactlyTheDanglingDeletesInATaggedCommitAndRowsStayTheSame() {
    Map<String, Long> rows = RowSets.read(table);
    assertThat(rows).hasSize(4); // 10, 1, 3, 6
    long before = table.currentSnapshot().snapshotId();
    List<String> progress = new ArrayList<>();

    DanglingDeleteReport report =
        new DanglingDeleteRemoval(progress::add)
            .remove(table, DanglingDeleteSettings.DEFAULTS, "process-42");

    assertThat(report.result()).isEqualTo(DanglingDeleteReport.Result.COMMITTED);
    assertThat(report.removedFiles()).containsExactlyInAnyOrderElementsOf(dangling);
    assertThat(report.equalityDeletesRemoved()).isEqualTo(2);
    assertThat(report.positionDeletesRemoved()).isEqualTo(1);
    assertThat(report.planningSnapshotId()).isEqualTo(before);
    table.refresh();
    assertThat(report.committedSnapshotId()).isEqualTo(table.currentSnapshot().snapshotId());
    assertThat(table.currentSnapshot().parentId()).isEqualTo(before);
    assertThat(table.currentSnapshot().summary())
        .containsEntry("firn.process-id", "process-42")
        .containsEntry("firn.optimizing-type", "dangling-deletes")
        .containsEntry("firn.planning-snapshot-id", Long.toString(before));
    assertThat(liveDeleteFiles()).containsExactly(liveEquality.location());
    assertThat(RowSets.read(table)).isEqualTo(rows);
    assertThat(progress).anyMatch(l -> l.contains("removed 3 dangling delete files"));

    DanglingDeleteReport again =
        new DanglingDeleteRemoval(line -> {})
            .remove(table, DanglingDeleteSettings.DEFAULTS, "process-43");
    assertThat(again.result()).isEqualTo(DanglingDeleteReport.Result.NOTHING_TO_REMOVE);
    assertThat(again.removedCount()).isZero();
  }

  @Test
  void aDryRunReportsTheDanglingDeletesAndCommitsNothing() {
    long before = table.currentSnapshot().snapshotId();

    DanglingDeleteReport report =
        new DanglingDeleteRemoval(line -> {})
            .remove(table, new DanglingDeleteSettings(true), "process-1");

    assertThat(report.result()).isEqualTo(DanglingDeleteReport.Result.DRY_RUN);
    assertThat(report.removedFiles()).containsExactlyInAnyOrderElementsOf(dangling);
    assertThat(report.committedSnapshotId()).isEqualTo(-1);
    table.refresh();
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(before);
    Set<String> all = new HashSet<>(dangling);
    all.add(liveEquality.location());
    assertThat(liveDeleteFiles()).isEqualTo(all);
  }

  private Set<String> liveDeleteFiles() {
    table.refresh();
    Set<String> live = new HashSet<>();
    for (ManifestFile manifest : table.currentSnapshot().deleteManifests(table.io())) {
      try (ManifestReader<DeleteFile> reader =
          ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
        reader.forEach(d -> live.add(d.location()));
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }
    return live;
  }

  private DataFile writeData(String part, long... ids) throws Exception {
    DataWriter<Record> writer =
        writers.newDataWriter(files.newOutputFile(SPEC, partition(part)), SPEC, partition(part));
    try (writer) {
      for (long id : ids) {
        Record row = GenericRecord.create(SCHEMA);
        row.setField("id", id);
        row.setField("part", part);
        writer.write(row);
      }
    }
    return writer.toDataFile();
  }

  private DeleteFile writeEqualityDelete(String part, long id) throws Exception {
    EqualityDeleteWriter<Record> writer =
        writers.newEqualityDeleteWriter(
            files.newOutputFile(SPEC, partition(part)), SPEC, partition(part));
    try (writer) {
      Record key = GenericRecord.create(SCHEMA.select("id"));
      key.setField("id", id);
      writer.write(key);
    }
    return writer.toDeleteFile();
  }

  private DeleteFile writePositionDelete(String part, String path, long position) throws Exception {
    PositionDeleteWriter<Record> writer =
        writers.newPositionDeleteWriter(
            files.newOutputFile(SPEC, partition(part)), SPEC, partition(part));
    try (writer) {
      PositionDelete<Record> delete = PositionDelete.create();
      writer.write(delete.set(path, position));
    }
    return writer.toDeleteFile();
  }

  private static PartitionData partition(String part) {
    PartitionData data = new PartitionData(SPEC.partitionType());
    data.set(0, part);
    return data;
  }
}
