/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.core.plan.OptimizingPlan;
import io.firn.core.plan.PartitionPlan;
import io.firn.core.policy.OptimizingPolicy;
import io.firn.testkit.RowSets;
import io.firn.worker.commit.CommitOutcome;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionData;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Delete files that can no longer apply to any live data file are found and removed. */
class DanglingDeleteTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.required(2, "part", Types.StringType.get()));
  private static final PartitionSpec SPEC =
      PartitionSpec.builderFor(SCHEMA).identity("part").build();

  @TempDir Path warehouse;

  @Test
  void anEqualityDeleteOlderThanEveryLiveDataFileIsPlannedAndRemoved() throws Exception {
    HadoopCatalog catalog = Tables.hadoopCatalog(warehouse);
    Table table =
        catalog.createTable(
            TableIdentifier.of("db", "dangling"), SCHEMA, SPEC, Map.of("format-version", "2"));
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table)
            .dataFileFormat(FileFormat.PARQUET)
            .deleteFileFormat(FileFormat.PARQUET)
            .equalityFieldIds(new int[] {1})
            .equalityDeleteRowSchema(SCHEMA.select("id"))
            .build();
    OutputFileFactory files = OutputFileFactory.builderFor(table, 1, 1).build();

    // Partition a keeps a file of the first sequence number, so Iceberg does not drop the
    // delete by itself (it drops deletes older than every live data file of the table).
    DataFile other = writeData(writers, files, "a", 10);
    DataFile first = writeData(writers, files, "b", 1, 2, 3);
    table.newAppend().appendFile(other).appendFile(first).commit();
    DeleteFile deleteTwo = writeEqualityDelete(writers, files, "b", 2);
    table.newRowDelta().addDeletes(deleteTwo).commit();
    // Another tool rewrites partition b without dropping the delete: the new file has a higher
    // sequence number, so the delete applies to nothing any more.
    DataFile rewritten = writeData(writers, files, "b", 1, 3);
    table.newOverwrite().deleteFile(first).addFile(rewritten).commit();
    Map<String, Long> rows = RowSets.read(table);
    assertThat(rows).hasSize(3);
    assertThat(Tables.totalDeleteFiles(table)).isEqualTo(1);

    LocalOptimizer optimizer = new LocalOptimizer(OptimizingPolicy.DEFAULTS, 1, line -> {});
    OptimizingPlan plan = optimizer.plan(table, null, Instant.now());
    PartitionPlan partition =
        plan.partitions().stream()
            .filter(p -> p.key().path().equals("part=b"))
            .findFirst()
            .orElseThrow();
    assertThat(partition.statistics().danglingDeleteFiles()).isEqualTo(1);
    assertThat(partition.deletesToRemove())
        .extracting(DeleteFile::location)
        .containsExactly(deleteTwo.location());
    assertThat(partition.reason()).isEqualTo("1 dangling delete file(s) to remove");

    OptimizeReport report = optimizer.optimize(table, null, Instant.now());
    assertThat(report.outcomes()).isNotEmpty().allMatch(CommitOutcome::committed);
    table.refresh();
    assertThat(Tables.liveDeleteFiles(table, FileContent.EQUALITY_DELETES)).isEmpty();
    assertThat(Tables.totalDeleteFiles(table)).isZero();
    assertThat(RowSets.read(table)).isEqualTo(rows);
  }

  private static DataFile writeData(
      GenericFileWriterFactory writers, OutputFileFactory files, String part, long... ids)
      throws Exception {
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

  private static DeleteFile writeEqualityDelete(
      GenericFileWriterFactory writers, OutputFileFactory files, String part, long id)
      throws Exception {
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

  private static PartitionData partition(String part) {
    PartitionData data = new PartitionData(SPEC.partitionType());
    data.set(0, part);
    return data;
  }
}
