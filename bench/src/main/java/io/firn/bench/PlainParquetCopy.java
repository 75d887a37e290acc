/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.firn.core.io.DataFileIO;
import java.io.File;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.RollingDataWriter;
import org.apache.iceberg.util.StructLikeWrapper;

/**
 * The cost floor of a rewrite: read every data file of the table with Iceberg's generic Parquet
 * reader and write the same rows with its generic writer at the target size, on the same threads
 * and FileIO as Firn, without deletes and without committing. Firn's rewrite throughput is reported
 * as a fraction of this. Output files are deleted afterwards.
 *
 * <p>{@code --layout single} (the default) writes each thread's rows into one rolling file,
 * ignoring partitions; {@code --layout partitions} writes each partition's rows into files of their
 * own, as any rewrite of a partitioned table must, a partition per thread at a time.
 */
public final class PlainParquetCopy {
  private PlainParquetCopy() {}

  public static void main(String[] args) throws Exception {
    BenchArgs a = new BenchArgs(args);
    Table table = a.loadTable();
    PartitionSpec spec = PartitionSpec.unpartitioned();
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table)
            .dataFileFormat(FileFormat.PARQUET)
            .dataSchema(table.schema())
            .build();
    int threads = (int) a.getLong("threads", Runtime.getRuntime().availableProcessors());
    String layout = a.get("layout", "single");
    if (!layout.equals("single") && !layout.equals("partitions")) {
      throw new IllegalArgumentException("--layout " + layout + ": must be single or partitions");
    }
    List<FileScanTask> tasks = new ArrayList<>();
    try (CloseableIterable<FileScanTask> planned = table.newScan().planFiles()) {
      planned.forEach(tasks::add);
    }
    List<List<FileScanTask>> partitions = byPartition(table, tasks);
    AtomicInteger next = new AtomicInteger();
    long started = System.nanoTime();
    long rows =
        layout.equals("single")
            ? Slots.sum(threads, slot -> copy(table, spec, writers, tasks, slot, threads))
            : Slots.sum(threads, slot -> copyPartitions(table, writers, partitions, next));
    double seconds = (System.nanoTime() - started) / 1e9;
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("engine", "plain-parquet-copy");
    json.put("layout", layout);
    json.put("partitions", partitions.size());
    json.put("threads", threads);
    json.put("rows", rows);
    json.put("seconds", seconds);
    json.put("microsPerRow", seconds * 1e6 / Math.max(1, rows));
    new ObjectMapper()
        .enable(SerializationFeature.INDENT_OUTPUT)
        .writeValue(new File(a.get("out")), json);
    System.err.printf(Locale.ROOT, "[plain] copied %,d rows in %.1f s%n", rows, seconds);
    System.exit(0);
  }

  /** The data files of each partition, in the scan's order. */
  private static List<List<FileScanTask>> byPartition(Table table, List<FileScanTask> tasks) {
    Map<Integer, Map<StructLikeWrapper, List<FileScanTask>>> bySpec = new TreeMap<>();
    for (FileScanTask task : tasks) {
      PartitionSpec spec = table.specs().get(task.file().specId());
      bySpec
          .computeIfAbsent(spec.specId(), id -> new LinkedHashMap<>())
          .computeIfAbsent(
              StructLikeWrapper.forType(spec.partitionType()).set(task.file().partition()),
              key -> new ArrayList<>())
          .add(task);
    }
    List<List<FileScanTask>> partitions = new ArrayList<>();
    bySpec.values().forEach(m -> partitions.addAll(m.values()));
    return partitions;
  }

  /**
   * Takes the next partition not yet taken and copies it into files of its own, until none is left.
   */
  private static long copyPartitions(
      Table table,
      GenericFileWriterFactory writers,
      List<List<FileScanTask>> partitions,
      AtomicInteger next)
      throws Exception {
    FileIO io = DataFileIO.of(table.io());
    long rows = 0;
    for (int p = next.getAndIncrement(); p < partitions.size(); p = next.getAndIncrement()) {
      List<FileScanTask> files = partitions.get(p);
      PartitionSpec spec = table.specs().get(files.get(0).file().specId());
      StructLike partition = files.get(0).file().partition();
      OutputFileFactory outputs =
          OutputFileFactory.builderFor(table, p, 0)
              .format(FileFormat.PARQUET)
              .operationId("plain-copy-" + UUID.randomUUID())
              .ioSupplier(() -> io)
              .build();
      RollingDataWriter<Record> writer =
          new RollingDataWriter<>(writers, outputs, io, 128L * 1024 * 1024, spec, partition);
      try {
        for (FileScanTask file : files) {
          rows += copyFile(table, io, file, writer);
        }
      } finally {
        writer.close();
      }
      for (DataFile file : writer.result().dataFiles()) {
        io.deleteFile(file.location());
      }
    }
    return rows;
  }

  private static long copyFile(
      Table table, FileIO io, FileScanTask task, RollingDataWriter<Record> writer)
      throws Exception {
    long rows = 0;
    try (CloseableIterable<Record> records =
        FormatModelRegistry.<Record, Object>readBuilder(
                FileFormat.PARQUET, Record.class, io.newInputFile(task.file().location()))
            .project(table.schema())
            .reuseContainers()
            .build()) {
      for (Record record : records) {
        writer.write(record);
        rows++;
      }
    }
    return rows;
  }

  /** Copies every {@code threads}-th file starting at {@code slot}; deletes its output after. */
  private static long copy(
      Table table,
      PartitionSpec spec,
      GenericFileWriterFactory writers,
      List<FileScanTask> tasks,
      int slot,
      int threads)
      throws Exception {
    // The same local FileIO Firn's executor uses, so the floor is the best plain path.
    FileIO io = DataFileIO.of(table.io());
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, slot, 0)
            .format(FileFormat.PARQUET)
            .operationId("plain-copy-" + UUID.randomUUID())
            .defaultSpec(spec)
            .ioSupplier(() -> io)
            .build();
    long rows = 0;
    RollingDataWriter<Record> writer =
        new RollingDataWriter<>(writers, files, io, 128L * 1024 * 1024, spec, null);
    try {
      for (int i = slot; i < tasks.size(); i += threads) {
        rows += copyFile(table, io, tasks.get(i), writer);
      }
    } finally {
      writer.close();
    }
    for (DataFile file : writer.result().dataFiles()) {
      io.deleteFile(file.location());
    }
    return rows;
  }
}
