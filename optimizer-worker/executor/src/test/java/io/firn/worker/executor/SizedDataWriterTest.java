/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.executor;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.testkit.TestCatalogs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The sized writer's files land within [minTargetSize, targetSize] whatever its first guess of the
 * bytes a row costs: a first file sized on a wrong guess is written again by what it measured.
 */
class SizedDataWriterTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.required(2, "qty", Types.IntegerType.get()),
          Types.NestedField.required(3, "note", Types.StringType.get()));
  private static final long TARGET = 256 * 1024;
  private static final long MIN = TARGET * 3 / 4;
  private static final int ROWS = 150_000;

  @TempDir Path warehouse;

  /** The first guess as a multiple of the true bytes per row (1 = right). */
  @ParameterizedTest(name = "first guess {0} x the true bytes per row")
  @ValueSource(doubles = {0.5, 0.8, 1.0, 1.25, 2.0, 4.0})
  void everyFileLandsWithinTheBoundsAndEveryRowOnce(double guess) throws IOException {
    Table table =
        TestCatalogs.hadoop(warehouse)
            .createTable(
                TableIdentifier.of("db", "t"),
                SCHEMA,
                PartitionSpec.unpartitioned(),
                Map.of(TableProperties.FORMAT_VERSION, "2"));
    double trueBytesPerRow = measureBytesPerRow(table);
    // A fifth of the rows are deleted: the writer learns the live share as it reads.
    SizedDataWriter writer = newWriter(table, 0, guess * trueBytesPerRow);
    Set<Long> expected = new TreeSet<>();
    for (Record row : rows(ROWS)) {
      long id = (Long) row.getField("id");
      if (id % 5 == 0) {
        writer.skip();
      } else {
        writer.write(row);
        expected.add(id);
      }
    }
    writer.close();

    List<DataFile> files = writer.dataFiles();
    long total = files.stream().mapToLong(DataFile::fileSizeInBytes).sum();
    assertThat(total).as("the output spans several targets").isGreaterThan(3 * TARGET);
    assertThat(files)
        .as("file sizes %s", files.stream().map(DataFile::fileSizeInBytes).toList())
        .allSatisfy(f -> assertThat(f.fileSizeInBytes()).isBetween(MIN, TARGET));
    Set<Long> read = new TreeSet<>();
    List<Long> all = new ArrayList<>();
    for (DataFile file : files) {
      try (CloseableIterable<Record> rows = Readers.open(table.io(), file, SCHEMA, Map.of())) {
        rows.forEach(r -> all.add((Long) r.getField("id")));
      }
    }
    read.addAll(all);
    assertThat(all).as("no row written twice").hasSameSizeAs(read);
    assertThat(read).isEqualTo(expected);
    // A first file written again is deleted: the data directory holds the listed files only.
    Set<String> listed =
        files.stream()
            .map(f -> Path.of(f.location().replace("file:", "")).getFileName().toString())
            .collect(Collectors.toSet());
    try (Stream<Path> onDisk = Files.walk(warehouse.resolve("db/t/data"))) {
      assertThat(
              onDisk
                  .filter(Files::isRegularFile)
                  .map(p -> p.getFileName().toString())
                  .filter(n -> n.endsWith(".parquet")))
          .containsExactlyInAnyOrderElementsOf(listed);
    }
  }

  /** The bytes per row of a merged file: one file of the whole input at the end of a writer. */
  private double measureBytesPerRow(Table table) throws IOException {
    SizedDataWriter probe = newWriter(table, 1_000, 1);
    for (Record row : rows(ROWS)) {
      probe.write(row);
    }
    probe.close();
    DataFile file = probe.dataFiles().get(0);
    table.io().deleteFile(file.location());
    return (double) file.fileSizeInBytes() / file.recordCount();
  }

  /** {@code taskId} 1000 writes in one file: the target is so large that nothing is cut. */
  private static SizedDataWriter newWriter(Table table, int taskId, double firstBytesPerRow) {
    boolean probe = taskId == 1_000;
    return new SizedDataWriter(
        table.io(),
        SCHEMA,
        new GenericFileWriterFactory.Builder(table).dataSchema(SCHEMA).build(),
        OutputFileFactory.builderFor(table, taskId, 0).build(),
        table.spec(),
        null,
        probe ? Long.MAX_VALUE / 2 : TARGET,
        probe ? 1 : MIN,
        ROWS,
        firstBytesPerRow);
  }

  private static List<Record> rows(int count) {
    Random random = new Random(7);
    List<Record> rows = new ArrayList<>(count);
    for (long i = 0; i < count; i++) {
      GenericRecord row = GenericRecord.create(SCHEMA);
      row.setField("id", i);
      row.setField("qty", random.nextInt(1_000));
      StringBuilder note = new StringBuilder();
      for (int c = 0; c < 12; c++) {
        note.append((char) ('a' + random.nextInt(26)));
      }
      row.setField("note", note.toString());
      rows.add(row);
    }
    return rows;
  }
}
