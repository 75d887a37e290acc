/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.history;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.DeleteFilter;
import org.apache.iceberg.data.DeleteLoader;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.relocated.com.google.common.util.concurrent.MoreExecutors;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PartitionUtil;

/**
 * Reads tables and files with Iceberg's own code only (generic reader, manifest readers, Parquet
 * generic readers), never with Firn's: these reads are the test's ground truth.
 */
final class TableReads {
  private TableReads() {}

  /** id → every live row with that id, read with {@code IcebergGenerics.read(table).build()}. */
  static Map<Long, List<Record>> rowsByKeyGenerics(Table table) {
    Map<Long, List<Record>> rows = new TreeMap<>();
    if (table.currentSnapshot() == null) {
      return rows;
    }
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record record : records) {
        rows.computeIfAbsent((Long) record.getField("id"), k -> new ArrayList<>(1))
            .add(record.copy());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }

  /** id → every live row with that id, from {@link #locate}. */
  static Map<Long, List<Record>> rowsByKey(List<LiveRow> live) {
    Map<Long, List<Record>> rows = new TreeMap<>();
    for (LiveRow row : live) {
      rows.computeIfAbsent(row.key(), k -> new ArrayList<>(1)).add(row.row());
    }
    return rows;
  }

  /**
   * A live row with where it lives: the data file (with its sequence number, spec and partition)
   * and the position in it.
   */
  record LiveRow(long key, Record row, DataFile file, long pos) {
    String path() {
      return file.location();
    }
  }

  /**
   * Every live row with its file and position, at the current snapshot: Iceberg's scan planning
   * attaches the deletes, Iceberg's {@link DeleteFilter} applies them, Iceberg's generic Parquet
   * reader reads the rows with the {@code _file} and {@code _pos} metadata columns — what {@code
   * IcebergGenerics.read(table)} does (its {@code GenericReader}), with two differences in how, not
   * what, delete files are loaded: on the calling thread (Iceberg's loader hands them to its worker
   * pool and polls for completion in 10 ms sleeps, twice per data file), and each once per read
   * through the loader's own cache hook (as Spark's executor cache does; the generic reader
   * re-reads every global equality delete for every data file). Both made one read of a table with
   * a hundred files take seconds. {@link #rowsByKeyGenerics} is the literal reader; the history
   * also compares with it regularly.
   */
  static List<LiveRow> locate(Table table) {
    List<LiveRow> rows = new ArrayList<>();
    Snapshot snapshot = table.currentSnapshot();
    if (snapshot == null) {
      return rows;
    }
    Map<String, DataFile> files = liveDataFiles(table);
    Schema projection =
        TypeUtil.join(
            table.schema(), new Schema(MetadataColumns.FILE_PATH, MetadataColumns.ROW_POSITION));
    Map<String, Object> cache = new HashMap<>();
    try (CloseableIterable<FileScanTask> tasks =
        table
            .newScan()
            .useSnapshot(snapshot.snapshotId())
            .planWith(MoreExecutors.newDirectExecutorService())
            .planFiles()) {
      for (FileScanTask task : tasks) {
        DataFile file = files.get(task.file().location());
        if (file == null) {
          throw new IllegalStateException(
              "scan planning returned "
                  + task.file().location()
                  + ", which no data manifest lists as live");
        }
        try (CloseableIterable<Record> records = open(table, task, projection, cache)) {
          for (Record record : records) {
            Record row = GenericRecord.create(table.schema());
            for (Types.NestedField field : table.schema().columns()) {
              row.setField(field.name(), record.getField(field.name()));
            }
            rows.add(
                new LiveRow(
                    (Long) record.getField("id"),
                    row,
                    file,
                    (Long) record.getField(MetadataColumns.ROW_POSITION.name())));
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }

  /** {@code GenericReader.open(FileScanTask)} with deletes loaded on this thread. */
  private static CloseableIterable<Record> open(
      Table table, FileScanTask task, Schema projection, Map<String, Object> cache) {
    if (task.file().format() != FileFormat.PARQUET) {
      throw new IllegalStateException("only Parquet is written here: " + task.file().location());
    }
    DeleteFilter<Record> deletes =
        new GenericDeleteFilter(table.io(), task, table.schema(), projection) {
          @Override
          protected DeleteLoader newDeleteLoader() {
            return new BaseDeleteLoader(this::loadInputFile, null) {
              @Override
              protected boolean canCache(long size) {
                return true;
              }

              @Override
              @SuppressWarnings("unchecked")
              protected <V> V getOrLoad(String key, Supplier<V> load, long size) {
                return (V) cache.computeIfAbsent(key, k -> load.get());
              }
            };
          }
        };
    Schema required = deletes.requiredSchema();
    Map<Integer, ?> constants =
        PartitionUtil.constantsMap(task, IdentityPartitionConverters::convertConstant);
    CloseableIterable<Record> records =
        Parquet.read(table.io().newInputFile(task.file()))
            .project(required)
            .split(task.start(), task.length())
            .createReaderFunc(
                fileSchema -> GenericParquetReaders.buildReader(required, fileSchema, constants))
            .build();
    return deletes.filter(records);
  }

  /** The live data files of the current snapshot by location, with their sequence numbers. */
  static Map<String, DataFile> liveDataFiles(Table table) {
    Map<String, DataFile> files = new LinkedHashMap<>();
    Snapshot snapshot = table.currentSnapshot();
    if (snapshot == null) {
      return files;
    }
    for (ManifestFile manifest : snapshot.dataManifests(table.io())) {
      try (ManifestReader<DataFile> reader =
          ManifestFiles.read(manifest, table.io(), table.specs())) {
        for (DataFile file : reader) {
          files.put(file.location(), file.copy());
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return files;
  }

  /** The live delete files of the current snapshot by location, with their sequence numbers. */
  static Map<String, DeleteFile> liveDeleteFiles(Table table) {
    Map<String, DeleteFile> files = new LinkedHashMap<>();
    Snapshot snapshot = table.currentSnapshot();
    if (snapshot == null) {
      return files;
    }
    for (ManifestFile manifest : snapshot.deleteManifests(table.io())) {
      try (ManifestReader<DeleteFile> reader =
          ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
        for (DeleteFile file : reader) {
          files.put(file.location(), file.copy());
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return files;
  }

  /** The keys of an equality-delete file on {@code id}. */
  static Set<Long> equalityKeys(Table table, DeleteFile file) {
    Schema projection = new Schema(Rows.INITIAL_SCHEMA.findField("id"));
    Set<Long> keys = new HashSet<>();
    for (Record record : rawRecords(table, file, projection)) {
      keys.add((Long) record.getField("id"));
    }
    return keys;
  }

  /** A position in a data file, as a position-delete file names it. */
  record Position(String path, long pos) {}

  static List<Position> positions(Table table, DeleteFile file) {
    Schema projection =
        new Schema(MetadataColumns.DELETE_FILE_PATH, MetadataColumns.DELETE_FILE_POS);
    List<Position> positions = new ArrayList<>();
    for (Record record : rawRecords(table, file, projection)) {
      positions.add(
          new Position(
              record.getField(MetadataColumns.DELETE_FILE_PATH.name()).toString(),
              (Long) record.getField(MetadataColumns.DELETE_FILE_POS.name())));
    }
    return positions;
  }

  /**
   * The records stored in a file, as written: no deletes applied and no partition values filled in
   * from metadata (the generic reader takes identity partition columns from the partition tuple,
   * which would hide a row stored in the wrong partition).
   */
  static List<Record> rawRecords(Table table, ContentFile<?> file, Schema projection) {
    List<Record> records = new ArrayList<>();
    try (CloseableIterable<Record> rows =
        Parquet.read(table.io().newInputFile(file.location()))
            .project(projection)
            .createReaderFunc(
                fileSchema -> GenericParquetReaders.buildReader(projection, fileSchema))
            .build()) {
      for (Record record : rows) {
        records.add(record.copy());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return records;
  }

  /** {@code spec-id/partition-path}: two files are in the same partition when these are equal. */
  static String partitionOf(Table table, ContentFile<?> file) {
    PartitionSpec spec = table.specs().get(file.specId());
    return file.specId() + "/" + spec.partitionToPath(file.partition());
  }

  /** Counts of the current snapshot's live files, for the schedule's growth bound. */
  static Map<String, Long> counts(Table table) {
    Map<String, Long> counts = new HashMap<>();
    Snapshot snapshot = table.currentSnapshot();
    Map<String, String> summary = snapshot == null ? Map.of() : snapshot.summary();
    counts.put("data", Long.parseLong(summary.getOrDefault("total-data-files", "0")));
    counts.put("deletes", Long.parseLong(summary.getOrDefault("total-delete-files", "0")));
    return counts;
  }
}
