/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.core.commit.CommitOutcome;
import io.firn.core.plan.BinPackPlanner;
import io.firn.core.plan.OptimizingType;
import io.firn.core.policy.OptimizingPolicy;
import io.firn.worker.local.LocalOptimizer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.source.IcebergSource;
import org.apache.iceberg.flink.source.StreamingStartingStrategy;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A downstream streaming reader of a table Firn keeps optimizing: Flink's {@code IcebergSource} in
 * streaming mode reads every append exactly once while Firn rewrites the files those appends added.
 * Firn's snapshots are {@code replace} operations, which the incremental scan skips, so no row is
 * read twice and none is missed.
 */
class StreamingReadIT {
  private static final Schema SCHEMA =
      new Schema(
          org.apache.iceberg.types.Types.NestedField.required(
              1, "id", org.apache.iceberg.types.Types.LongType.get()),
          org.apache.iceberg.types.Types.NestedField.optional(
              2, "v", org.apache.iceberg.types.Types.StringType.get()));
  private static final int COMMITS = 30;
  private static final int ROWS_PER_COMMIT = 20;
  private static final long SENTINEL = -1;

  @RegisterExtension
  static final MiniClusterExtension CLUSTER =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(2)
              .build());

  @TempDir Path warehouse;

  @Test
  @Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aStreamingReaderSeesEveryAppendedRowOnceWhileFirnRewritesTheFiles() throws Exception {
    HadoopCatalog catalog = new HadoopCatalog();
    catalog.setConf(new org.apache.hadoop.conf.Configuration());
    catalog.initialize("lake", Map.of("warehouse", warehouse.toUri().toString()));
    Table table =
        catalog.createTable(
            TableIdentifier.of("db", "clicks"),
            SCHEMA,
            PartitionSpec.builderFor(SCHEMA).bucket("id", 2).build(),
            Map.of("format-version", "2"));

    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(1);
    IcebergSource<RowData> source =
        IcebergSource.forRowData()
            .tableLoader(TableLoader.fromHadoopTable(table.location()))
            .streaming(true)
            .streamingStartingStrategy(StreamingStartingStrategy.INCREMENTAL_FROM_EARLIEST_SNAPSHOT)
            .monitorInterval(Duration.ofMillis(100))
            .build();
    Map<Long, Integer> seen = new HashMap<>();
    int replaced = 0;
    try (CloseableIterator<Long> ids =
        env.fromSource(
                source,
                WatermarkStrategy.noWatermarks(),
                "iceberg",
                InternalTypeInfo.of(FlinkSchemaUtil.convert(SCHEMA)))
            .map(row -> row.getLong(0), Types.LONG)
            .executeAndCollect("streaming-read")) {
      // Appends and Firn's rewrites interleave on another thread while the job reads.
      CompletableFuture<Integer> writes =
          CompletableFuture.supplyAsync(
              () -> {
                LocalOptimizer optimizer =
                    new LocalOptimizer(
                        OptimizingPolicy.DEFAULTS, new BinPackPlanner(), 1, line -> {});
                int rewrites = 0;
                try {
                  for (int commit = 0; commit < COMMITS; commit++) {
                    append(table, commit * ROWS_PER_COMMIT, ROWS_PER_COMMIT);
                    if (commit % 3 == 2) {
                      OptimizingType type = commit % 2 == 0 ? OptimizingType.FULL : null;
                      for (CommitOutcome outcome :
                          optimizer.optimize(table, type, Instant.now()).outcomes()) {
                        assertThat(outcome.result())
                            .as(outcome.message())
                            .isNotEqualTo(CommitOutcome.Result.INTEGRITY_FAILED);
                        rewrites += outcome.committed() ? 1 : 0;
                      }
                    }
                  }
                } finally {
                  // The last append: once the reader emits it, every earlier snapshot was read.
                  appendRows(table, List.of(SENTINEL));
                }
                return rewrites;
              });
      // The sentinel is appended last, but it need not be read last: appends discovered in one
      // monitor cycle are planned as one incremental scan, whose files come in manifest order
      // (newest first). So the read ends when the sentinel and every appended row have been seen;
      // a row never emitted leaves the read waiting, and the timeout fails the test.
      boolean sentinel = false;
      while (!sentinel || seen.size() < COMMITS * ROWS_PER_COMMIT) {
        assertThat(ids.hasNext()).isTrue();
        long id = ids.next();
        if (id == SENTINEL) {
          sentinel = true;
        } else {
          seen.merge(id, 1, Integer::sum);
        }
      }
      replaced = writes.get(60, TimeUnit.SECONDS);
    }

    assertThat(replaced).as("Firn committed rewrites while the job read").isPositive();
    assertThat(seen).hasSize(COMMITS * ROWS_PER_COMMIT);
    assertThat(seen.values()).as("every row read exactly once").containsOnly(1);
  }

  private static void append(Table table, long first, int count) {
    List<Long> ids = new java.util.ArrayList<>();
    for (long id = first; id < first + count; id++) {
      ids.add(id);
    }
    appendRows(table, ids);
  }

  /** One append commit with one small data file per bucket. */
  private static void appendRows(Table table, List<Long> ids) {
    table.refresh();
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table).dataFileFormat(FileFormat.PARQUET).build();
    OutputFileFactory files = OutputFileFactory.builderFor(table, 1, System.nanoTime()).build();
    PartitionKey key = new PartitionKey(table.spec(), table.schema());
    Map<PartitionKey, DataWriter<Record>> open = new HashMap<>();
    try {
      for (long id : ids) {
        Record row = GenericRecord.create(table.schema());
        row.setField("id", id);
        row.setField("v", "v" + id);
        key.partition(row);
        DataWriter<Record> writer = open.get(key);
        if (writer == null) {
          PartitionKey copy = key.copy();
          writer =
              writers.newDataWriter(files.newOutputFile(table.spec(), copy), table.spec(), copy);
          open.put(copy, writer);
        }
        writer.write(row);
      }
      var append = table.newAppend();
      for (DataWriter<Record> writer : open.values()) {
        writer.close();
        DataFile file = writer.toDataFile();
        append.appendFile(file);
      }
      append.commit();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
