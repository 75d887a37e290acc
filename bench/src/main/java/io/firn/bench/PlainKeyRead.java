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
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.types.TypeUtil;

/**
 * The cost floor of converting equality deletes into position deletes: read the key columns of
 * every data file of the table and of every equality-delete file that applies to one, with
 * Iceberg's generic Parquet reader on the same threads and FileIO as Firn, and nothing else (no key
 * set, no matching, no writing). Minor optimizing's convert-only work is reported as a multiple of
 * this ({@code bench/run-minor.sh}).
 */
public final class PlainKeyRead {
  private PlainKeyRead() {}

  public static void main(String[] args) throws Exception {
    BenchArgs a = new BenchArgs(args);
    Table table = a.loadTable();
    int threads = (int) a.getLong("threads", Runtime.getRuntime().availableProcessors());
    List<ContentFile<?>> files = new ArrayList<>();
    Map<String, DeleteFile> equalityDeletes = new LinkedHashMap<>();
    try (CloseableIterable<FileScanTask> planned = table.newScan().planFiles()) {
      for (FileScanTask task : planned) {
        files.add(task.file());
        for (DeleteFile delete : task.deletes()) {
          if (delete.content() == FileContent.EQUALITY_DELETES) {
            equalityDeletes.putIfAbsent(delete.location(), delete);
          }
        }
      }
    }
    long dataFiles = files.size();
    files.addAll(equalityDeletes.values());

    // --repeat N: read N times in this JVM (warm JIT and caches, as FirnOptimize --repeat);
    // "seconds" is the first round's, "rounds" every round's.
    int repeat = (int) a.getLong("repeat", 1);
    if (repeat < 1) {
      throw new IllegalArgumentException("--repeat: " + repeat + " is not a positive count");
    }
    List<Double> rounds = new ArrayList<>();
    long rows = 0;
    for (int round = 0; round < repeat; round++) {
      long started = System.nanoTime();
      rows = Slots.sum(threads, slot -> read(table, files, slot, threads));
      rounds.add((System.nanoTime() - started) / 1e9);
    }
    double seconds = rounds.get(0);
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("engine", "plain-key-read");
    json.put("threads", threads);
    json.put("dataFiles", dataFiles);
    json.put("equalityDeleteFiles", equalityDeletes.size());
    json.put("rows", rows);
    json.put("seconds", seconds);
    if (repeat > 1) {
      json.put("rounds", rounds);
    }
    new ObjectMapper()
        .enable(SerializationFeature.INDENT_OUTPUT)
        .writeValue(new File(a.get("out")), json);
    System.err.printf(
        Locale.ROOT,
        "[plain-keys] read the keys of %,d data and %,d equality-delete files (%,d rows) in %.2f s%n",
        dataFiles,
        equalityDeletes.size(),
        rows,
        seconds);
    System.exit(0);
  }

  /** Reads the key columns of every {@code threads}-th file starting at {@code slot}. */
  private static long read(Table table, List<ContentFile<?>> files, int slot, int threads)
      throws Exception {
    FileIO io = DataFileIO.of(table.io());
    Schema schema = table.schema();
    Schema dataKeys = TypeUtil.select(schema, schema.identifierFieldIds());
    long rows = 0;
    for (int i = slot; i < files.size(); i += threads) {
      ContentFile<?> file = files.get(i);
      Schema keys =
          file.content() == FileContent.EQUALITY_DELETES
              ? TypeUtil.select(schema, new java.util.HashSet<>(file.equalityFieldIds()))
              : dataKeys;
      try (CloseableIterable<Record> records =
          FormatModelRegistry.<Record, Object>readBuilder(
                  file.format(),
                  Record.class,
                  io.newInputFile(file.location(), file.fileSizeInBytes()))
              .project(keys)
              .reuseContainers()
              .build()) {
        for (Record ignored : records) {
          rows++;
        }
      }
    }
    return rows;
  }
}
