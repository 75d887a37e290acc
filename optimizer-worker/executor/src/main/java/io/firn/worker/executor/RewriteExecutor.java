/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.executor;

import io.firn.core.commit.TaskResult;
import io.firn.core.io.DataFileIO;
import io.firn.core.plan.RewriteTask;
import io.firn.core.table.DataFileEntry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.apache.avro.util.Utf8;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.TypeUtil;

/**
 * Runs one {@link RewriteTask}: rewrites its data files with every applicable delete applied into
 * target-size files, and turns the deletes of its converted files into one file-scoped
 * position-delete file per data file. Writes through Iceberg's {@link GenericFileWriterFactory};
 * never commits. Thread-safe: one instance may run many tasks concurrently.
 */
public final class RewriteExecutor {
  private final long equalityDeleteBloomThreshold;

  /**
   * @param equalityDeleteBloomThreshold above this many equality-delete records in a task, delete
   *     keys are pre-filtered by a Bloom filter over the task's own keys
   */
  public RewriteExecutor(long equalityDeleteBloomThreshold) {
    this.equalityDeleteBloomThreshold = equalityDeleteBloomThreshold;
  }

  /**
   * @param operationId names the output files of one process ({@code <partition>-<task>-<id>})
   * @throws TaskFailedException naming the task, partition and file when anything fails; the task's
   *     partial output is deleted
   */
  public TaskResult execute(Table table, RewriteTask task, String operationId) {
    long started = System.nanoTime();
    FileIO io = DataFileIO.of(table.io());
    Schema schema = table.schema();
    List<DataFileEntry> all = new ArrayList<>(task.rewrite());
    all.addAll(task.convert());
    List<ContentFile<?>> written = new ArrayList<>();
    try {
      TaskDeletes deletes =
          TaskDeletes.load(io, schema, table.specs(), all, equalityDeleteBloomThreshold);
      Output output = new Output();
      if (!task.rewrite().isEmpty()) {
        rewrite(table, task, operationId, deletes, output, written);
      }
      if (!task.convert().isEmpty()) {
        convert(table, task, operationId, deletes, output, written);
      }
      long bytesRead = all.stream().mapToLong(DataFileEntry::sizeInBytes).sum();
      long bytesWritten =
          output.dataFiles.stream().mapToLong(DataFile::fileSizeInBytes).sum()
              + output.positionDeletes.stream().mapToLong(DeleteFile::fileSizeInBytes).sum();
      return new TaskResult(
          task.id(),
          output.dataFiles,
          output.positionDeletes,
          output.rowsRead,
          output.rowsDeleted,
          output.dataFiles.stream().mapToLong(DataFile::recordCount).sum(),
          output.positionsWritten,
          bytesRead,
          bytesWritten,
          deletes.equalityRecordsRead(),
          deletes.equalityKeysHeld(),
          System.nanoTime() - started);
    } catch (RuntimeException e) {
      for (ContentFile<?> file : written) {
        deleteQuietly(io, file.location());
      }
      if (e instanceof TaskFailedException) {
        throw new TaskFailedException(
            "task "
                + task.id()
                + " in partition "
                + task.partition()
                + " failed: "
                + e.getMessage(),
            e.getCause() == null ? e : e.getCause());
      }
      throw new TaskFailedException(
          "task " + task.id() + " in partition " + task.partition() + " failed: " + e, e);
    }
  }

  private static final class Output {
    final List<DataFile> dataFiles = new ArrayList<>();
    final List<DeleteFile> positionDeletes = new ArrayList<>();
    long rowsRead;
    long rowsDeleted;
    long positionsWritten;
  }

  private void rewrite(
      Table table,
      RewriteTask task,
      String operationId,
      TaskDeletes deletes,
      Output output,
      List<ContentFile<?>> written) {
    FileIO io = DataFileIO.of(table.io());
    Schema schema = table.schema();
    DataFileEntry first = task.rewrite().get(0);
    PartitionSpec spec = spec(table, first.file().specId());
    StructLike partition = first.file().partition();
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table)
            .dataFileFormat(dataFormat(table))
            .dataSchema(schema)
            .build();
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, task.id(), 0)
            .format(dataFormat(table))
            .operationId(operationId)
            .ioSupplier(() -> io)
            .build();
    List<Keys> keys = new ArrayList<>();
    for (TaskDeletes.EqualitySet set : deletes.equality()) {
      keys.add(Keys.of(schema, set.fieldIds));
    }
    // The largest input's bytes per row, corrected by what merged files of this table cost.
    String tableKey = LearnedBytesPerRow.key(table);
    double largest = bytesPerRowOfLargest(task.rewrite());
    double guess = largest * LearnedBytesPerRow.share(tableKey);
    SizedDataWriter writer =
        new SizedDataWriter(
            io,
            schema,
            writers,
            files,
            spec,
            partition,
            task.targetSize(),
            task.minTargetSize(),
            task.inputRecords(),
            guess);
    boolean closed = false;
    try {
      for (DataFileEntry entry : task.rewrite()) {
        scanFile(
            io,
            schema,
            spec,
            entry,
            deletes,
            keys,
            (row, position, deleted) -> {
              if (deleted) {
                output.rowsDeleted++;
                writer.skip();
              } else {
                writer.write(row);
              }
            });
        output.rowsRead += entry.recordCount();
      }
      writer.close();
      closed = true;
      learn(tableKey, writer.dataFiles(), largest, task.minTargetSize());
      output.dataFiles.addAll(writer.dataFiles());
      written.addAll(writer.dataFiles());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write a data file of task " + task.id(), e);
    } finally {
      if (!closed) {
        writer.abort(io);
      }
    }
  }

  /**
   * Learns what this task's merged files cost per row against the largest input's bytes per row;
   * outputs smaller in all than one file at the lower bound say little (a footer's share).
   */
  private static void learn(
      String tableKey, List<DataFile> files, double largestBytesPerRow, long minTargetSize) {
    long bytes = files.stream().mapToLong(DataFile::fileSizeInBytes).sum();
    long rows = files.stream().mapToLong(DataFile::recordCount).sum();
    if (rows > 0 && largestBytesPerRow > 0 && bytes >= minTargetSize) {
      LearnedBytesPerRow.record(tableKey, (double) bytes / rows, largestBytesPerRow);
    }
  }

  /** Bytes per row of the file with the most rows; 0 when no file has rows. */
  static double bytesPerRowOfLargest(List<DataFileEntry> files) {
    DataFileEntry largest = null;
    for (DataFileEntry entry : files) {
      if (largest == null || entry.recordCount() > largest.recordCount()) {
        largest = entry;
      }
    }
    return largest == null || largest.recordCount() <= 0
        ? 0
        : (double) largest.sizeInBytes() / largest.recordCount();
  }

  private void convert(
      Table table,
      RewriteTask task,
      String operationId,
      TaskDeletes deletes,
      Output output,
      List<ContentFile<?>> written) {
    FileIO io = DataFileIO.of(table.io());
    Schema schema = table.schema();
    Set<Integer> keyIds = new HashSet<>();
    deletes.equality().forEach(s -> keyIds.addAll(s.fieldIds));
    Schema keySchema = TypeUtil.select(schema, keyIds);
    List<Keys> keys = new ArrayList<>();
    for (TaskDeletes.EqualitySet set : deletes.equality()) {
      keys.add(Keys.of(keySchema, set.fieldIds));
    }
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table)
            .dataSchema(schema)
            .deleteFileFormat(dataFormat(table))
            .build();
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, task.id(), 1)
            .format(dataFormat(table))
            .operationId(operationId)
            .suffix("pos-deletes")
            .ioSupplier(() -> io)
            .build();
    for (DataFileEntry entry : task.convert()) {
      long[] sorted = deletedPositions(io, table, entry, deletes, keySchema, keys);
      if (sorted.length == 0) {
        continue;
      }
      PartitionSpec spec = table.specs().get(entry.file().specId());
      PositionDeleteWriter<Record> writer =
          writers.newPositionDeleteWriter(
              files.newOutputFile(spec, entry.file().partition()), spec, entry.file().partition());
      boolean closed = false;
      try {
        PositionDelete<Record> delete = PositionDelete.create();
        // The path as UTF-8 once: Iceberg's Parquet writer encodes any other CharSequence anew
        // for every row.
        Utf8 path = new Utf8(entry.path());
        for (long p : sorted) {
          writer.write(delete.set(path, p));
        }
        writer.close();
        closed = true;
        DeleteFile file = writer.toDeleteFile();
        output.positionDeletes.add(file);
        written.add(file);
        output.positionsWritten += sorted.length;
      } catch (IOException e) {
        throw new UncheckedIOException("cannot write position deletes for " + entry.path(), e);
      } finally {
        if (!closed) {
          try {
            writer.close();
          } catch (IOException | RuntimeException ignored) {
            // The write already failed; its error is the one that matters.
          }
        }
      }
    }
  }

  /**
   * The positions of a data file that its task's deletes remove, sorted and distinct: what a
   * conversion writes as position deletes.
   */
  static long[] deletedPositions(
      FileIO io,
      Table table,
      DataFileEntry entry,
      TaskDeletes deletes,
      Schema keySchema,
      List<Keys> keys) {
    TaskDeletes.LongList positions = new TaskDeletes.LongList();
    boolean hasEquality = entry.equalityDeleteFileCount() > 0 && deletes.hasEqualityDeletes();
    if (hasEquality && deletedByLongKey(io, table, entry, deletes, positions)) {
      return positions.sortedDistinct();
    }
    if (hasEquality) {
      scanFile(
          io,
          keySchema,
          spec(table, entry.file().specId()),
          entry,
          deletes,
          keys,
          (row, position, deleted) -> {
            if (deleted) {
              positions.add(position);
            }
          });
    } else {
      for (long p : deletes.positions(entry.path())) {
        positions.add(p);
      }
    }
    return positions.sortedDistinct();
  }

  /**
   * {@link #deletedPositions} for the usual key, one integral column: the key column is read
   * straight from the Parquet file ({@link ParquetLongColumn}) instead of as records.
   *
   * @return false, with nothing added, when the file must be read with the generic reader: another
   *     key, another format, or a key column that is an identity partition source (its value then
   *     comes from the partition, as Iceberg's readers take it)
   */
  private static boolean deletedByLongKey(
      FileIO io,
      Table table,
      DataFileEntry entry,
      TaskDeletes deletes,
      TaskDeletes.LongList positions) {
    if (deletes.equality().size() != 1 || !deletes.equality().get(0).integral()) {
      return false;
    }
    TaskDeletes.EqualitySet set = deletes.equality().get(0);
    int keyId = set.fieldIds.get(0);
    // The same rule as the Bloom filter's (TaskDeletes): the key read from the file only when no
    // identity partition value stands in for it.
    if (!Readers.constants(
            spec(table, entry.file().specId()), entry.file().partition(), set.keySchema)
        .isEmpty()) {
      return false;
    }
    long seq = entry.dataSequenceNumber();
    long nullDeleted = set.nullSequence();
    long rows;
    try {
      rows =
          ParquetLongColumn.read(
              io,
              entry.file(),
              keyId,
              new ParquetLongColumn.Visitor() {
                @Override
                public void value(long position, long value) {
                  if (set.sequence(value) > seq) {
                    positions.add(position);
                  }
                }

                @Override
                public void nullValue(long position) {
                  if (nullDeleted > seq) {
                    positions.add(position);
                  }
                }
              });
    } catch (UncheckedIOException e) {
      throw new UncheckedIOException("cannot read data file " + entry.path(), e.getCause());
    } catch (TaskFailedException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new TaskFailedException("cannot read data file " + entry.path() + ": " + e, e);
    }
    if (rows < 0) {
      return false;
    }
    for (long p : deletes.positions(entry.path())) {
      if (p < rows) {
        positions.add(p);
      }
    }
    return true;
  }

  /** Receives every row of a data file in file order. */
  interface RowVisitor {
    void visit(Record row, long position, boolean deleted);
  }

  /**
   * Reads a data file in file order and tells for every row whether an applicable position or
   * equality delete removes it: a position listed for this file, or an equality-delete key whose
   * highest sequence number is above the file's.
   *
   * @throws TaskFailedException when the file cannot be read or has another row count than its
   *     metadata
   */
  static void scanFile(
      FileIO io,
      Schema projection,
      PartitionSpec spec,
      DataFileEntry entry,
      TaskDeletes deletes,
      List<Keys> keys,
      RowVisitor visitor) {
    long seq = entry.dataSequenceNumber();
    long[] deleted = deletes.positions(entry.path());
    int nextDeleted = 0;
    long position = 0;
    try (CloseableIterable<Record> rows =
        Readers.open(
            io,
            entry.file(),
            projection,
            Readers.constants(spec, entry.file().partition(), projection))) {
      for (Record row : rows) {
        while (nextDeleted < deleted.length && deleted[nextDeleted] < position) {
          nextDeleted++;
        }
        boolean drop = nextDeleted < deleted.length && deleted[nextDeleted] == position;
        for (int i = 0; i < keys.size() && !drop; i++) {
          drop = deletes.equality().get(i).sequence(keys.get(i), row) > seq;
        }
        visitor.visit(row, position, drop);
        position++;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read data file " + entry.path(), e);
    } catch (TaskFailedException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new TaskFailedException("cannot read data file " + entry.path() + ": " + e, e);
    }
    TaskFailedException.checkRowCount(entry.file(), position);
  }

  static FileFormat dataFormat(Table table) {
    return FileFormat.fromString(
        table
            .properties()
            .getOrDefault(
                TableProperties.DEFAULT_FILE_FORMAT, TableProperties.DEFAULT_FILE_FORMAT_DEFAULT));
  }

  /**
   * The table's spec a task's file names; a spec the table's metadata lacks is a corrupt table (or
   * a task of another table), reported as such rather than as a NullPointerException further on.
   */
  public static PartitionSpec spec(Table table, int specId) {
    PartitionSpec spec = table.specs().get(specId);
    if (spec == null) {
      throw new IllegalStateException(
          "table "
              + table.name()
              + " has no partition spec "
              + specId
              + " (it has "
              + table.specs().keySet()
              + "), yet a file of the task names it");
    }
    return spec;
  }

  static void deleteQuietly(FileIO io, String location) {
    try {
      io.deleteFile(location);
    } catch (RuntimeException ignored) {
      // Best effort: an orphan file is harmless and orphan cleanup removes it.
    }
  }

  /** A fresh operation id for the files of one process. */
  public static String newOperationId() {
    return "firn-" + UUID.randomUUID();
  }
}
