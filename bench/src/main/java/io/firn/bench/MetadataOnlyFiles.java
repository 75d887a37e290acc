/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.bench;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionData;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Data and delete files that exist only in Iceberg metadata: fake paths, realistic sizes, record
 * counts and column metrics (sizes, value/null counts, lower/upper bounds of every column). Tables
 * made of them cost what real tables cost to watch and to plan, without writing any Parquet.
 */
final class MetadataOnlyFiles {
  static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.required(2, "event_time", Types.TimestampType.withZone()),
          Types.NestedField.required(3, "day", Types.DateType.get()),
          Types.NestedField.optional(4, "kind", Types.StringType.get()),
          Types.NestedField.optional(5, "payload", Types.StringType.get()),
          Types.NestedField.optional(6, "amount", Types.DoubleType.get()));

  /** Streaming tables: every commit writes one file into each of 16 buckets of the key. */
  static PartitionSpec bucketSpec() {
    return PartitionSpec.builderFor(SCHEMA).bucket("id", 16).build();
  }

  /** A long-lived table: one partition per day. */
  static PartitionSpec daySpec() {
    return PartitionSpec.builderFor(SCHEMA).identity("day").build();
  }

  private static final long MICROS_PER_DAY = 86_400_000_000L;
  private static final int FIRST_DAY = 19_000; // 2022-01-08

  private MetadataOnlyFiles() {}

  static StructLike partition(PartitionSpec spec, int value) {
    PartitionData data = new PartitionData(spec.partitionType());
    data.set(0, value);
    return data;
  }

  /** Day partitions hold days from {@link #FIRST_DAY}. */
  static int day(int index) {
    return FIRST_DAY + index;
  }

  /**
   * A data file of {@code partition}: mostly fragments of 1–16 MiB as streaming writers leave them,
   * every tenth one a segment of ~130 MiB.
   */
  static DataFile dataFile(
      PartitionSpec spec, String location, int partitionValue, SplittableRandom random) {
    long size =
        random.nextInt(10) == 0
            ? 120L * 1024 * 1024 + random.nextLong(20L * 1024 * 1024)
            : 1024L * 1024 + random.nextLong(15L * 1024 * 1024);
    long records = Math.max(1, size / 100);
    int day = spec.fields().get(0).name().equals("day") ? partitionValue : day(random.nextInt(30));
    return DataFiles.builder(spec)
        .withPath(location)
        .withFormat(FileFormat.PARQUET)
        .withPartition(partition(spec, partitionValue))
        .withFileSizeInBytes(size)
        .withRecordCount(records)
        .withSplitOffsets(List.of(4L))
        .withMetrics(metrics(records, size, day, random))
        .build();
  }

  /** An equality-delete file on {@code id}, as Flink's upserts write them. */
  static DeleteFile equalityDeletes(
      PartitionSpec spec, String location, int partitionValue, SplittableRandom random) {
    long records = 1 + random.nextInt(5_000);
    long size = 1024 + records * 12;
    Map<Integer, Long> sizes = Map.of(1, records * 9);
    Map<Integer, Long> counts = Map.of(1, records);
    Map<Integer, Long> nulls = Map.of(1, 0L);
    // Upserted keys spread over the whole key range, so the bounds overlap every data file's.
    Map<Integer, ByteBuffer> lower = Map.of(1, bytes(Types.LongType.get(), lowKey(random)));
    Map<Integer, ByteBuffer> upper = Map.of(1, bytes(Types.LongType.get(), highKey(random)));
    return FileMetadata.deleteFileBuilder(spec)
        .ofEqualityDeletes(1)
        .withPath(location)
        .withFormat(FileFormat.PARQUET)
        .withPartition(partition(spec, partitionValue))
        .withFileSizeInBytes(size)
        .withRecordCount(records)
        .withMetrics(new Metrics(records, sizes, counts, nulls, Map.of(), lower, upper))
        .build();
  }

  /** A file-scoped position-delete file: bounds of {@code file_path} are the data file's path. */
  static DeleteFile positionDeletes(
      PartitionSpec spec,
      String location,
      int partitionValue,
      String dataFile,
      SplittableRandom random) {
    long records = 1 + random.nextInt(2_000);
    int pathId = MetadataColumns.DELETE_FILE_PATH.fieldId();
    int posId = MetadataColumns.DELETE_FILE_POS.fieldId();
    ByteBuffer path = bytes(Types.StringType.get(), dataFile);
    return FileMetadata.deleteFileBuilder(spec)
        .ofPositionDeletes()
        .withPath(location)
        .withFormat(FileFormat.PARQUET)
        .withPartition(partition(spec, partitionValue))
        .withFileSizeInBytes(1024 + records * 8)
        .withRecordCount(records)
        .withReferencedDataFile(dataFile)
        .withMetrics(
            new Metrics(
                records,
                Map.of(pathId, 200L, posId, records * 4),
                Map.of(pathId, records, posId, records),
                Map.of(pathId, 0L, posId, 0L),
                Map.of(),
                Map.of(pathId, path, posId, bytes(Types.LongType.get(), 0L)),
                Map.of(pathId, path, posId, bytes(Types.LongType.get(), records * 3))))
        .build();
  }

  private static Metrics metrics(long records, long size, int day, SplittableRandom random) {
    Map<Integer, Long> sizes = new HashMap<>();
    Map<Integer, Long> counts = new HashMap<>();
    Map<Integer, Long> nulls = new HashMap<>();
    Map<Integer, Long> nans = new HashMap<>();
    Map<Integer, ByteBuffer> lower = new HashMap<>();
    Map<Integer, ByteBuffer> upper = new HashMap<>();
    long[] share = {10, 10, 2, 5, 65, 8};
    for (int column = 1; column <= 6; column++) {
      sizes.put(column, size * share[column - 1] / 100);
      counts.put(column, records);
      nulls.put(column, column <= 3 ? 0L : records / 50);
    }
    nans.put(6, 0L);
    long dayStart = day * MICROS_PER_DAY;
    put(lower, upper, 1, Types.LongType.get(), lowKey(random), highKey(random));
    long t = dayStart + random.nextLong(MICROS_PER_DAY / 2);
    put(lower, upper, 2, Types.TimestampType.withZone(), t, t + random.nextLong(3_600_000_000L));
    put(lower, upper, 3, Types.DateType.get(), day, day);
    put(lower, upper, 4, Types.StringType.get(), "delete", "upsert");
    // Parquet truncates string bounds to 16 characters.
    put(lower, upper, 5, Types.StringType.get(), "{\"a\":0,\"b\":\"aaa", "{\"z\":9,\"b\":\"zzz");
    put(lower, upper, 6, Types.DoubleType.get(), -1e6 * random.nextDouble(), 1e6);
    return new Metrics(records, sizes, counts, nulls, nans, lower, upper);
  }

  /** Streaming files hold keys from all over the key space [0, 2^40). */
  private static long lowKey(SplittableRandom random) {
    return random.nextLong(1L << 20);
  }

  private static long highKey(SplittableRandom random) {
    return (1L << 40) - random.nextLong(1L << 20);
  }

  private static void put(
      Map<Integer, ByteBuffer> lower,
      Map<Integer, ByteBuffer> upper,
      int id,
      Type type,
      Object low,
      Object high) {
    lower.put(id, bytes(type, low));
    upper.put(id, bytes(type, high));
  }

  private static ByteBuffer bytes(Type type, Object value) {
    return Conversions.toByteBuffer(type, value);
  }
}
