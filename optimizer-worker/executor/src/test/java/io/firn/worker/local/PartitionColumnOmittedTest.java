/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.core.commit.CommitOutcome;
import io.firn.core.plan.BinPackPlanner;
import io.firn.core.plan.OptimizingType;
import io.firn.core.policy.OptimizingPolicy;
import io.firn.testkit.RowSets;
import io.firn.testkit.TestCatalogs;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Data files that omit their identity partition column (as files imported from Hive tables do) take
 * that column's value from the partition, as Iceberg's readers do, in every read of a task: also
 * when the task's delete keys go through the Bloom filter over its data files' keys, and when the
 * key is one integer column read straight from Parquet pages (ADR 0041). Otherwise the filter would
 * hold the rows' keys with a null in place of the partition value, drop the delete keys that match
 * them, and the rewrite would bring deleted rows back.
 */
class PartitionColumnOmittedTest {
  @TempDir Path warehouse;

  /**
   * @param composite the key is (id, region) as Flink's upsert writers require of a table
   *     partitioned by region; otherwise the key is region alone, one integer column
   * @param required region is a required column and the key the table's identifier fields; an
   *     optional one can only be an equality key of the writer's choosing (without the partition
   *     value such a read saw null and resurrected rows; a required one failed every task)
   */
  @ParameterizedTest(name = "composite key {0}, required region {1}")
  @CsvSource({"true,true", "true,false", "false,true", "false,false"})
  void deletedRowsStayDeletedWithTheBloomFilterOn(boolean composite, boolean required)
      throws IOException {
    Types.NestedField region =
        required
            ? Types.NestedField.required(2, "region", Types.LongType.get())
            : Types.NestedField.optional(2, "region", Types.LongType.get());
    Schema schema =
        new Schema(
            List.of(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                region,
                Types.NestedField.optional(3, "v", Types.StringType.get())),
            !required
                ? java.util.Set.of()
                : composite ? java.util.Set.of(1, 2) : java.util.Set.of(2));
    PartitionSpec spec = PartitionSpec.builderFor(schema).identity("region").build();
    Table table =
        TestCatalogs.hadoop(warehouse)
            .createTable(
                TableIdentifier.of("db", (composite ? "composite" : "single") + required),
                schema,
                spec,
                Map.of("format-version", "2"));

    // An imported file: rows of region 7 without the region column.
    Schema fileSchema = schema.select("id", "v");
    List<Record> rows = new ArrayList<>();
    for (long id = 0; id < 200; id++) {
      Record row = GenericRecord.create(fileSchema);
      row.setField("id", id);
      row.setField("v", "v" + id);
      rows.add(row);
    }
    PartitionKey region7 = new PartitionKey(spec, schema);
    Record partitionRow = GenericRecord.create(schema);
    partitionRow.setField("region", 7L);
    region7.partition(partitionRow);
    OutputFile out = table.io().newOutputFile(table.location() + "/data/region=7/imported.parquet");
    FileAppender<Record> appender =
        Parquet.write(out)
            .schema(fileSchema)
            .createWriterFunc(GenericParquetWriter::create)
            .build();
    try (appender) {
      appender.addAll(rows);
    }
    DataFile imported =
        DataFiles.builder(spec)
            .withPath(out.location())
            .withFormat(FileFormat.PARQUET)
            .withPartition(region7)
            .withFileSizeInBytes(appender.length())
            .withMetrics(appender.metrics())
            .build();
    table.newAppend().appendFile(imported).commit();

    // Later, equality deletes of the key: (5, 7) and (6, 7), or the whole region 7.
    Schema keySchema = composite ? schema.select("id", "region") : schema.select("region");
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table)
            .deleteFileFormat(FileFormat.PARQUET)
            .equalityFieldIds(composite ? new int[] {1, 2} : new int[] {2})
            .equalityDeleteRowSchema(keySchema)
            .build();
    OutputFileFactory files = OutputFileFactory.builderFor(table, 1, 1).build();
    EqualityDeleteWriter<Record> deletes =
        writers.newEqualityDeleteWriter(files.newOutputFile(spec, region7), spec, region7);
    try (deletes) {
      for (long id : composite ? new long[] {5, 6} : new long[] {0}) {
        Record key = GenericRecord.create(keySchema);
        if (composite) {
          key.setField("id", id);
        }
        key.setField("region", 7L);
        deletes.write(key);
      }
    }
    DeleteFile deleteFile = deletes.toDeleteFile();
    table.newRowDelta().addDeletes(deleteFile).commit();

    Map<String, Long> before = RowSets.read(table);
    assertThat(before.values().stream().mapToLong(Long::longValue).sum())
        .as("Iceberg's reader, with the region from the partition, applies the deletes")
        .isEqualTo(composite ? 198 : 0);

    OptimizeReport report =
        new LocalOptimizer(
                OptimizingPolicy.DEFAULTS.withOverrides(
                    Map.of("equality-delete.bloom-threshold", "0")),
                new BinPackPlanner(),
                1,
                line -> {})
            .optimize(table, OptimizingType.FULL, Instant.now());
    assertThat(report.outcomes()).isNotEmpty().allMatch(CommitOutcome::committed);
    table.refresh();
    assertThat(RowSets.read(table)).isEqualTo(before);
  }
}
