/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.bench;

import java.io.File;
import java.io.IOException;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Files;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptedFiles;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.types.Types;

/**
 * What a smaller Parquet dictionary cap ({@code write.parquet.dict-size-bytes}) costs in file size
 * (ADR 0040): one file of {@code --rows} rows, a string column of a given width and a long column,
 * both drawn at random from a vocabulary of a given number of distinct values, written once with
 * Iceberg's default cap and once with {@code --cap} bytes, for each codec, vocabulary and width.
 * Prints one line per case: the two sizes and their ratio. Sizes only; no time is measured.
 *
 * <p>{@code java -cp "$FIRN_CP" io.firn.bench.DictionaryCapSize --rows 100000 --cap 65536}
 */
public final class DictionaryCapSize {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "s", Types.StringType.get()),
          Types.NestedField.required(2, "n", Types.LongType.get()));

  private DictionaryCapSize() {}

  public static void main(String[] args) throws IOException {
    BenchArgs a = new BenchArgs(args);
    int rows = (int) a.getLong("rows", 100_000);
    long cap = a.getLong("cap", 65_536);
    for (String codec : new String[] {"zstd", "snappy"}) {
      for (int distinct : new int[] {1_000, 5_000, 20_000, 100_000}) {
        for (int width : new int[] {8, 16, 40}) {
          String[] vocabulary = vocabulary(distinct, width);
          long byDefault =
              size(
                  rows,
                  vocabulary,
                  codec,
                  Long.toString(TableProperties.PARQUET_DICT_SIZE_BYTES_DEFAULT));
          long capped = size(rows, vocabulary, codec, Long.toString(cap));
          System.out.printf(
              Locale.ROOT,
              "%s rows=%d distinct=%d width=%d default=%d B cap=%d B ratio=%.2f%n",
              codec,
              rows,
              distinct,
              width,
              byDefault,
              capped,
              (double) capped / byDefault);
        }
      }
    }
  }

  private static String[] vocabulary(int distinct, int width) {
    SplittableRandom random = new SplittableRandom(1);
    String[] values = new String[distinct];
    char[] chars = new char[width];
    for (int i = 0; i < distinct; i++) {
      for (int c = 0; c < width; c++) {
        chars[c] = (char) ('a' + random.nextInt(26));
      }
      values[i] = new String(chars);
    }
    return values;
  }

  private static long size(int rows, String[] vocabulary, String codec, String dictionaryBytes)
      throws IOException {
    File file = File.createTempFile("dictionary-cap", ".parquet");
    if (!file.delete()) {
      throw new IOException("cannot delete " + file);
    }
    try {
      SplittableRandom random = new SplittableRandom(2);
      GenericRecord row = GenericRecord.create(SCHEMA);
      GenericFileWriterFactory writers =
          new GenericFileWriterFactory.Builder()
              .dataSchema(SCHEMA)
              .dataFileFormat(FileFormat.PARQUET)
              .writerProperties(
                  Map.of(
                      TableProperties.PARQUET_COMPRESSION,
                      codec,
                      TableProperties.PARQUET_DICT_SIZE_BYTES,
                      dictionaryBytes))
              .build();
      try (DataWriter<Record> writer =
          writers.newDataWriter(
              EncryptedFiles.plainAsEncryptedOutput(Files.localOutput(file)),
              PartitionSpec.unpartitioned(),
              null)) {
        for (int i = 0; i < rows; i++) {
          row.setField("s", vocabulary[random.nextInt(vocabulary.length)]);
          row.setField("n", (long) random.nextInt(vocabulary.length));
          writer.write(row);
        }
      }
      return file.length();
    } finally {
      file.delete();
    }
  }
}
