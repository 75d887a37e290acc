/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.executor;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.avro.Avro;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.avro.DataWriter;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.hadoop.HadoopFileIO;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.ParquetProperties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ParquetLongColumn} reads exactly what Iceberg's generic reader reads, value for value and
 * null for null, on files of every layout Iceberg's Parquet writer makes from an integer column:
 * required and optional, int and long, dictionary pages, plain pages, dictionaries that overflow
 * into plain mid-column, v1 and v2 pages (v2 with delta encoding), many pages and row groups, every
 * codec; and answers -1, reading nothing, where it cannot read a column exactly.
 */
class ParquetLongColumnTest {
  private static final String[] CODECS = {"zstd", "snappy", "gzip", "uncompressed"};

  @TempDir Path dir;

  private final FileIO io = new HadoopFileIO(new org.apache.hadoop.conf.Configuration());

  @Test
  void randomFilesReadAsTheGenericReaderReadsThem() throws IOException {
    for (int seed = 0; seed < 60; seed++) {
      // Spread: the first draws of java.util.Random under neighbouring small seeds agree.
      Random random = new Random(new SplittableRandom(seed).nextLong());
      boolean optional = random.nextBoolean();
      boolean int32 = random.nextBoolean();
      Type type = int32 ? Types.IntegerType.get() : Types.LongType.get();
      Schema schema =
          new Schema(
              optional
                  ? Types.NestedField.optional(7, "key", type)
                  : Types.NestedField.required(7, "key", type),
              Types.NestedField.optional(8, "note", Types.StringType.get()));
      int rows = 1 + (random.nextInt(5) == 0 ? random.nextInt(3) : random.nextInt(40_000));
      // A narrow range keeps the dictionary; a wide one overflows it into plain (or delta) pages.
      long range =
          switch (random.nextInt(3)) {
            case 0 -> 50;
            case 1 -> 100_000;
            default -> int32 ? 1L << 32 : Long.MAX_VALUE;
          };
      double nulls = optional ? random.nextDouble() * 0.3 : 0;
      List<Record> written = new ArrayList<>();
      for (int i = 0; i < rows; i++) {
        Record row = GenericRecord.create(schema);
        if (random.nextDouble() >= nulls) {
          long value =
              range == Long.MAX_VALUE
                  ? random.nextLong()
                  : (long) (random.nextDouble() * range) - range / 2;
          Object boxed =
              int32 ? (Object) Integer.valueOf((int) value) : (Object) Long.valueOf(value);
          row.setField("key", boxed);
        }
        row.setField("note", random.nextInt(4) == 0 ? null : "n" + random.nextInt(1000));
        written.add(row);
      }
      Map<String, String> properties =
          Map.of(
              "write.parquet.compression-codec", CODECS[random.nextInt(CODECS.length)],
              "write.parquet.row-group-size-bytes", String.valueOf(8192 << random.nextInt(8)),
              "write.parquet.page-size-bytes", String.valueOf(1024 << random.nextInt(8)),
              "write.parquet.page-row-limit", String.valueOf(100 << random.nextInt(8)),
              "write.parquet.dict-size-bytes", String.valueOf(512 << random.nextInt(10)));
      ParquetProperties.WriterVersion version =
          random.nextBoolean()
              ? ParquetProperties.WriterVersion.PARQUET_1_0
              : ParquetProperties.WriterVersion.PARQUET_2_0;
      DataFile file = writeParquet(schema, written, properties, version, "seed-" + seed);

      List<String> fast = new ArrayList<>();
      long read = ParquetLongColumn.read(io, file, 7, visitor(fast));
      String context = "seed " + seed + ": " + properties + " " + version + " " + schema.asStruct();
      assertThat(read).as(context).isEqualTo(rows);
      assertThat(fast).as(context).isEqualTo(generic(file, schema.select("key")));
    }
  }

  @Test
  void answersMinusOneAndReadsNothingWhereItCannotReadExactly() throws IOException {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "name", Types.StringType.get()),
            Types.NestedField.optional(
                3,
                "nested",
                Types.StructType.of(Types.NestedField.optional(4, "inner", Types.LongType.get()))),
            Types.NestedField.optional(
                5, "list", Types.ListType.ofOptional(6, Types.LongType.get())),
            Types.NestedField.optional(9, "ts", Types.TimestampType.withZone()));
    List<Record> rows = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      Record row = GenericRecord.create(schema);
      row.setField("id", (long) i);
      row.setField("name", "n" + i);
      rows.add(row);
    }
    DataFile parquet =
        writeParquet(schema, rows, Map.of(), ParquetProperties.WriterVersion.PARQUET_1_0, "shapes");
    List<String> seen = new ArrayList<>();

    assertThat(ParquetLongColumn.read(io, parquet, 1, visitor(seen))).isEqualTo(10);
    seen.clear();
    // not in the file, a string, a nested field, a list element, a timestamp
    for (int id : new int[] {99, 2, 4, 6, 9}) {
      assertThat(ParquetLongColumn.read(io, parquet, id, visitor(seen)))
          .as("field %d", id)
          .isEqualTo(-1);
    }
    assertThat(seen).isEmpty();

    OutputFile out = io.newOutputFile(dir.resolve("rows.avro").toString());
    try (FileAppender<Record> appender =
        Avro.write(out).schema(schema).createWriterFunc(DataWriter::create).build()) {
      appender.addAll(rows);
    }
    DataFile avro =
        DataFiles.builder(PartitionSpec.unpartitioned())
            .withPath(out.location())
            .withFormat(FileFormat.AVRO)
            .withFileSizeInBytes(io.newInputFile(out.location()).getLength())
            .withRecordCount(rows.size())
            .build();
    assertThat(ParquetLongColumn.read(io, avro, 1, visitor(seen))).isEqualTo(-1);
    assertThat(seen).isEmpty();
  }

  @Test
  void damagedOrMismatchingFilesFailNamingTheFile() throws IOException {
    Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
    SplittableRandom random = new SplittableRandom(17);
    List<Record> rows = new ArrayList<>();
    for (int i = 0; i < 5_000; i++) {
      Record row = GenericRecord.create(schema);
      row.setField("id", random.nextLong());
      rows.add(row);
    }
    // Uncompressed, the dictionary soon full: the key pages are plain values a damaged byte would
    // silently change.
    Map<String, String> plain =
        Map.of(
            "write.parquet.compression-codec", "uncompressed",
            "write.parquet.dict-size-bytes", "512");
    DataFile good =
        writeParquet(schema, rows, plain, ParquetProperties.WriterVersion.PARQUET_1_0, "good");
    assertThat(ParquetLongColumn.read(io, good, 1, visitor(new ArrayList<>()))).isEqualTo(5_000);

    // Metadata that counts other rows than the file holds.
    DataFile miscounted =
        DataFiles.builder(PartitionSpec.unpartitioned()).copy(good).withRecordCount(4_999).build();
    assertFailsNaming(miscounted, "metadata says 4999");

    // A flipped byte in the last value of the key column's last page.
    Path path = Path.of(good.location());
    byte[] bytes = java.nio.file.Files.readAllBytes(path);
    long chunkEnd;
    try (org.apache.parquet.hadoop.ParquetFileReader footer =
        org.apache.parquet.hadoop.ParquetFileReader.open(
            org.apache.parquet.hadoop.util.HadoopInputFile.fromPath(
                new org.apache.hadoop.fs.Path(good.location()),
                new org.apache.hadoop.conf.Configuration()))) {
      var blocks = footer.getFooter().getBlocks();
      var last = blocks.get(blocks.size() - 1).getColumns().get(0);
      chunkEnd = last.getStartingPos() + last.getTotalSize();
    }
    byte[] flipped = bytes.clone();
    flipped[(int) chunkEnd - 1] ^= 0x40;
    assertFailsNaming(copy("flipped", flipped, good, flipped.length), "checksum");

    // Cut in half: metadata still giving the old length, and metadata giving the new one.
    byte[] half = java.util.Arrays.copyOf(bytes, bytes.length / 2);
    assertFailsNaming(copy("half-old-length", half, good, bytes.length), "");
    assertFailsNaming(copy("half", half, good, half.length), "");

    // A footer length pointing before the start of the file.
    byte[] footerLength = bytes.clone();
    footerLength[bytes.length - 5] = 0x7f;
    assertFailsNaming(copy("footer-length", footerLength, good, footerLength.length), "");
  }

  /**
   * The lean path ({@link ParquetKeyPages}) reads the required key of every codec and page version
   * itself, large files through their tail and chunks, and leaves an optional key to Parquet's
   * reader: so a change that quietly sent every file back to Parquet's reader fails here.
   */
  @Test
  void requiredKeysAreReadWithoutParquetsReader() throws IOException {
    for (boolean optional : new boolean[] {false, true}) {
      Schema schema =
          new Schema(
              optional
                  ? Types.NestedField.optional(3, "key", Types.LongType.get())
                  : Types.NestedField.required(3, "key", Types.LongType.get()),
              Types.NestedField.optional(4, "note", Types.StringType.get()));
      for (String codec : CODECS) {
        for (ParquetProperties.WriterVersion version : ParquetProperties.WriterVersion.values()) {
          for (int rows : new int[] {3, 300_000}) {
            SplittableRandom random = new SplittableRandom(rows);
            List<Record> written = new ArrayList<>();
            for (int i = 0; i < rows; i++) {
              Record row = GenericRecord.create(schema);
              row.setField("key", random.nextLong(1L << 40));
              row.setField("note", "n" + random.nextInt(1_000_000));
              written.add(row);
            }
            String name = codec + "-" + version + "-" + rows + (optional ? "-optional" : "");
            DataFile file =
                writeParquet(
                    schema,
                    written,
                    Map.of(
                        "write.parquet.compression-codec",
                        codec,
                        "write.parquet.row-group-size-bytes",
                        String.valueOf(1 << 20)),
                    version,
                    name);
            List<String> lean = new ArrayList<>();
            long read =
                ParquetKeyPages.read(
                    io.newInputFile(file.location(), file.fileSizeInBytes()),
                    file,
                    3,
                    visitor(lean));
            if (optional) {
              assertThat(read).as(name).isEqualTo(ParquetKeyPages.NOT_HANDLED);
              assertThat(lean).as(name).isEmpty();
            } else {
              assertThat(read).as(name).isEqualTo(rows);
              assertThat(lean).as(name).isEqualTo(generic(file, schema.select("key")));
            }
          }
        }
      }
    }
  }

  /**
   * Footers with random bytes changed: the key is read exactly as written, or the file is left to
   * the generic reader (-1), or the read fails; never other values, never a hang.
   */
  @Test
  void damagedFootersNeverGiveOtherKeys() throws IOException {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get()));
    List<Record> rows = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      Record row = GenericRecord.create(schema);
      row.setField("id", i * 7L);
      row.setField("name", "n" + i);
      rows.add(row);
    }
    DataFile good =
        writeParquet(
            schema,
            rows,
            Map.of("write.parquet.compression-codec", "snappy"),
            ParquetProperties.WriterVersion.PARQUET_1_0,
            "fuzz");
    List<String> expected = generic(good, schema.select("id"));
    byte[] bytes = java.nio.file.Files.readAllBytes(Path.of(good.location()));
    int footerLength =
        java.nio.ByteBuffer.wrap(bytes, bytes.length - 8, 4)
            .order(java.nio.ByteOrder.LITTLE_ENDIAN)
            .getInt();
    int footerStart = bytes.length - 8 - footerLength;
    SplittableRandom random = new SplittableRandom(29);
    int exact = 0;
    int failed = 0;
    for (int round = 0; round < 400; round++) {
      byte[] damaged = bytes.clone();
      for (int flips = 1 + random.nextInt(3); flips > 0; flips--) {
        damaged[footerStart + random.nextInt(footerLength)] = (byte) random.nextInt(256);
      }
      DataFile file = copy("fuzz-" + round, damaged, good, damaged.length);
      List<String> seen = new ArrayList<>();
      long read;
      try {
        read = ParquetLongColumn.read(io, file, 1, visitor(seen));
      } catch (RuntimeException e) {
        failed++;
        continue;
      }
      if (read == -1) {
        assertThat(seen).as("round %d", round).isEmpty();
      } else {
        assertThat(seen).as("round %d", round).isEqualTo(expected);
        exact++;
      }
    }
    assertThat(exact).as("reads that succeeded").isGreaterThan(0);
    assertThat(failed).as("reads that failed").isGreaterThan(0);
  }

  private DataFile copy(String name, byte[] content, DataFile like, long length)
      throws IOException {
    Path path = dir.resolve(name + ".parquet");
    java.nio.file.Files.write(path, content);
    return DataFiles.builder(PartitionSpec.unpartitioned())
        .copy(like)
        .withPath(path.toString())
        .withFileSizeInBytes(length)
        .build();
  }

  private void assertFailsNaming(DataFile file, String cause) {
    List<String> seen = new ArrayList<>();
    Throwable thrown =
        org.assertj.core.api.Assertions.catchThrowable(
            () -> ParquetLongColumn.read(io, file, 1, visitor(seen)));
    assertThat(thrown).as(file.location()).isInstanceOf(RuntimeException.class);
    assertThat(thrown.getMessage()).as(file.location()).contains(file.location());
    StringBuilder causes = new StringBuilder();
    for (Throwable t = thrown; t != null; t = t.getCause()) {
      causes.append(t).append('\n');
    }
    assertThat(causes.toString()).as(file.location()).contains(cause);
  }

  private DataFile writeParquet(
      Schema schema,
      List<Record> rows,
      Map<String, String> properties,
      ParquetProperties.WriterVersion version,
      String name)
      throws IOException {
    OutputFile out = io.newOutputFile(dir.resolve(name + ".parquet").toString());
    FileAppender<Record> appender =
        Parquet.write(out)
            .schema(schema)
            .setAll(properties)
            .writerVersion(version)
            .createWriterFunc(GenericParquetWriter::create)
            .overwrite()
            .build();
    try (appender) {
      appender.addAll(rows);
    }
    return DataFiles.builder(PartitionSpec.unpartitioned())
        .withPath(out.location())
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(appender.length())
        .withMetrics(appender.metrics())
        .withSplitOffsets(appender.splitOffsets())
        .build();
  }

  private List<String> generic(DataFile file, Schema projection) throws IOException {
    List<String> values = new ArrayList<>();
    long position = 0;
    try (CloseableIterable<Record> rows = Readers.open(io, file, projection, Map.of())) {
      for (Record row : rows) {
        Object value = row.get(0);
        values.add(position++ + "=" + (value == null ? "null" : ((Number) value).longValue()));
      }
    }
    return values;
  }

  private static ParquetLongColumn.Visitor visitor(List<String> values) {
    return new ParquetLongColumn.Visitor() {
      @Override
      public void value(long position, long value) {
        values.add(position + "=" + value);
      }

      @Override
      public void nullValue(long position) {
        values.add(position + "=null");
      }
    };
  }
}
