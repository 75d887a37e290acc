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
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.RollingDataWriter;

/**
 * The cost floor of a rewrite: read every data file of the table with Iceberg's generic Parquet
 * reader and write the same rows with its generic writer at the target size, on the same threads
 * and FileIO as Firn, without deletes and without committing. Firn's rewrite throughput is reported
 * as a fraction of this. Output files are deleted afterwards.
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
    List<FileScanTask> tasks = new ArrayList<>();
    try (CloseableIterable<FileScanTask> planned = table.newScan().planFiles()) {
      planned.forEach(tasks::add);
    }
    long started = System.nanoTime();
    long rows = Slots.sum(threads, slot -> copy(table, spec, writers, tasks, slot, threads));
    double seconds = (System.nanoTime() - started) / 1e9;
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("engine", "plain-parquet-copy");
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
        try (CloseableIterable<Record> records =
            FormatModelRegistry.<Record, Object>readBuilder(
                    FileFormat.PARQUET,
                    Record.class,
                    io.newInputFile(tasks.get(i).file().location()))
                .project(table.schema())
                .reuseContainers()
                .build()) {
          for (Record record : records) {
            writer.write(record);
            rows++;
          }
        }
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
