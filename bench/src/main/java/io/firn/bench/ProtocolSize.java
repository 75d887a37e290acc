/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.bench;

import io.firn.core.protocol.FileCodec;
import io.firn.core.protocol.WireFile;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.BaseFileScanTask;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionData;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.ScanTaskParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.ResidualEvaluator;
import org.apache.iceberg.types.Types;

/**
 * What the worker protocol's file encoding costs, version 2 against version 3 (ADR 0009): {@code
 * --files} data files of a table of {@code --columns} string columns with full column metrics,
 * identity-partitioned on the first. Version 2 wrote each file as a one-file scan task carrying the
 * schema and spec ({@link ScanTaskParser}); version 3 writes each file alone ({@link FileCodec})
 * and the schema and spec once. Prints bytes and encode/decode milliseconds per round; the first
 * rounds include JIT warm-up.
 */
public final class ProtocolSize {
  private ProtocolSize() {}

  public static void main(String[] args) {
    BenchArgs a = new BenchArgs(args);
    int columns = (int) a.getLong("columns", 100);
    int count = (int) a.getLong("files", 2000);
    int rounds = (int) a.getLong("rounds", 5);
    List<Types.NestedField> fields = new ArrayList<>();
    for (int i = 1; i <= columns; i++) {
      fields.add(Types.NestedField.optional(i, "c" + i, Types.StringType.get()));
    }
    Schema schema = new Schema(fields);
    PartitionSpec spec = PartitionSpec.builderFor(schema).identity("c1").build();
    List<DataFile> files = files(spec, columns, count);
    for (int round = 1; round <= rounds; round++) {
      long t0 = System.nanoTime();
      long v2Bytes = 0;
      List<String> v2 = new ArrayList<>(count);
      for (DataFile file : files) {
        String json =
            ScanTaskParser.toJson(
                new BaseFileScanTask(
                    file,
                    new DeleteFile[0],
                    SchemaParser.toJson(schema),
                    PartitionSpecParser.toJson(spec),
                    ResidualEvaluator.unpartitioned(Expressions.alwaysTrue())));
        v2.add(json);
        v2Bytes += json.length();
      }
      long t1 = System.nanoTime();
      for (String json : v2) {
        ScanTaskParser.fromJson(json, true);
      }
      long t2 = System.nanoTime();
      String schemaJson = FileCodec.schemaJson(schema);
      List<String> specJsons = FileCodec.specJsons(List.of(spec));
      long v3Bytes = schemaJson.length() + specJsons.get(0).length();
      List<WireFile> v3 = new ArrayList<>(count);
      for (DataFile file : files) {
        WireFile wire = FileCodec.encode(file, spec);
        v3.add(wire);
        v3Bytes += wire.json().length();
      }
      long t3 = System.nanoTime();
      FileCodec.Decoder decoder = FileCodec.decoder(schemaJson, specJsons);
      for (WireFile wire : v3) {
        decoder.dataFile(wire);
      }
      long t4 = System.nanoTime();
      System.out.printf(
          Locale.ROOT,
          "protocol-size columns %d files %d round %d: v2 %d bytes, encode %.0f ms, decode %.0f ms"
              + " | v3 %d bytes, encode %.0f ms, decode %.0f ms%n",
          columns,
          count,
          round,
          v2Bytes,
          (t1 - t0) / 1e6,
          (t2 - t1) / 1e6,
          v3Bytes,
          (t3 - t2) / 1e6,
          (t4 - t3) / 1e6);
    }
  }

  private static List<DataFile> files(PartitionSpec spec, int columns, int count) {
    List<DataFile> files = new ArrayList<>(count);
    for (int f = 0; f < count; f++) {
      Map<Integer, Long> sizes = new HashMap<>();
      Map<Integer, Long> values = new HashMap<>();
      Map<Integer, Long> nulls = new HashMap<>();
      Map<Integer, ByteBuffer> lower = new HashMap<>();
      Map<Integer, ByteBuffer> upper = new HashMap<>();
      for (int i = 1; i <= columns; i++) {
        sizes.put(i, 1000L + i);
        values.put(i, 500L);
        nulls.put(i, 0L);
        lower.put(
            i, ByteBuffer.wrap(("aaaa" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        upper.put(
            i, ByteBuffer.wrap(("zzzz" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
      }
      PartitionData partition = new PartitionData(spec.partitionType());
      partition.set(0, "part-" + (f % 8));
      files.add(
          DataFiles.builder(spec)
              .withPath(
                  "s3://bucket/warehouse/db/t/data/c1=part-"
                      + (f % 8)
                      + "/"
                      + f
                      + "-0-a1b2.parquet")
              .withFormat("parquet")
              .withPartition(partition)
              .withFileSizeInBytes(123_456)
              .withRecordCount(500)
              .withMetrics(new Metrics(500L, sizes, values, nulls, null, lower, upper))
              .build());
    }
    return files;
  }
}
