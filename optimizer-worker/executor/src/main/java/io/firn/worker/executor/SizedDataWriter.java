/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.executor;

import io.firn.core.plan.RewriteTask;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFileFactory;
import org.jspecify.annotations.Nullable;

/**
 * Writes one task's rows into data files of one partition that land within [minTargetSize,
 * targetSize] on disk, splitting the task's output evenly ({@link RewriteTask#outputFiles}).
 *
 * <p>It rolls on row counts, not on the open file's {@code length()}: Iceberg's Parquet writer
 * reports the bytes flushed so far plus the open row group's buffered size, and that buffer holds
 * the current page of every column encoded but not yet compressed. A file smaller than the row
 * group and page sizes (the default 128 MiB row group, 1 MiB pages) is therefore measured almost
 * entirely uncompressed, and rolling at {@code length() >= target} cuts files at the codec's ratio
 * of the target: 0.4 to 0.5 × target for zstd on random strings. Instead, each file is given the
 * rows that fill its share of the remaining output at the bytes per row measured on the files this
 * task already closed (their real size), or, for the first file, at the bytes per row of the task's
 * largest input file (whose footer and dictionaries are spread over the most rows, closest to what
 * a merged file costs per row; small input files overstate it). The file count is planned anew at
 * each file's start from what is left to read, so the last file takes its even share and no small
 * tail is left behind.
 *
 * <p>Not thread-safe: one instance per task.
 */
final class SizedDataWriter implements Closeable {
  private final GenericFileWriterFactory writers;
  private final OutputFileFactory files;
  private final PartitionSpec spec;
  private final StructLike partition;
  private final long targetSize;
  private final long minTargetSize;
  private final long inputRows;
  private final double inputBytesPerRow;
  private final List<DataFile> written = new ArrayList<>();

  // The file being written and its location; null between files.
  private @Nullable DataWriter<Record> current;
  private @Nullable String currentLocation;
  private long rowsInFile;
  private long rowsForFile;
  private long rowsRead;
  private long rowsWritten;
  private long closedBytes;
  private long closedRows;

  /**
   * @param inputRows the rows the task reads, deleted ones included
   * @param firstBytesPerRow the bytes per row to size the first file by, before any file of this
   *     task has been measured
   */
  SizedDataWriter(
      GenericFileWriterFactory writers,
      OutputFileFactory files,
      PartitionSpec spec,
      StructLike partition,
      long targetSize,
      long minTargetSize,
      long inputRows,
      double firstBytesPerRow) {
    this.writers = writers;
    this.files = files;
    this.spec = spec;
    this.partition = partition;
    this.targetSize = targetSize;
    this.minTargetSize = minTargetSize;
    this.inputRows = Math.max(0, inputRows);
    this.inputBytesPerRow = firstBytesPerRow > 0 ? firstBytesPerRow : 1;
  }

  /** Counts a row read that a delete removes, so the share of live rows left is known. */
  void skip() {
    rowsRead++;
  }

  /**
   * @throws UncheckedIOException when a file cannot be written or closed
   */
  void write(Record row) {
    DataWriter<Record> writer = current;
    String location = currentLocation;
    if (writer == null || location == null) {
      EncryptedOutputFile file = files.newOutputFile(spec, partition);
      location = file.encryptingOutputFile().location();
      writer = writers.newDataWriter(file, spec, partition);
      currentLocation = location;
      current = writer;
      rowsInFile = 0;
      rowsForFile = rowsForNextFile();
    }
    writer.write(row);
    rowsRead++;
    rowsInFile++;
    rowsWritten++;
    if (rowsInFile >= rowsForFile) {
      try {
        closeCurrent(writer);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot close data file " + location, e);
      }
    }
  }

  /**
   * The rows of the file being opened: the live rows expected from here on (the row about to be
   * written included) over the number of files their bytes make. Counts exclude that row.
   */
  private long rowsForNextFile() {
    double liveShare = rowsRead > 0 ? (double) rowsWritten / rowsRead : 1;
    long remainingRows =
        Math.max(1, (long) Math.ceil(Math.max(0, inputRows - rowsRead) * liveShare));
    double bytesPerRow = closedRows > 0 ? (double) closedBytes / closedRows : inputBytesPerRow;
    long remainingBytes = (long) Math.ceil(remainingRows * bytesPerRow);
    long count = RewriteTask.outputFiles(remainingBytes, targetSize, minTargetSize);
    // With one file left it takes every remaining row: estimates of what is left are least sure
    // at the end, and cutting there would leave a tail smaller than any file should be.
    return count <= 1 ? Long.MAX_VALUE : (remainingRows + count - 1) / count;
  }

  private void closeCurrent(DataWriter<Record> closing) throws IOException {
    closing.close();
    current = null;
    currentLocation = null;
    DataFile file = closing.toDataFile();
    written.add(file);
    closedBytes += file.fileSizeInBytes();
    closedRows += file.recordCount();
  }

  @Override
  public void close() throws IOException {
    DataWriter<Record> open = current;
    if (open != null) {
      closeCurrent(open);
    }
  }

  /** After a failure: closes the open file and deletes every file this writer wrote. */
  void abort(FileIO io) {
    DataWriter<Record> open = current;
    String location = currentLocation;
    if (open != null) {
      try {
        open.close();
      } catch (IOException | RuntimeException ignored) {
        // Aborting after a failure; the original error is reported.
      }
      current = null;
    }
    if (location != null) {
      RewriteExecutor.deleteQuietly(io, location);
      currentLocation = null;
    }
    for (DataFile file : written) {
      RewriteExecutor.deleteQuietly(io, file.location());
    }
  }

  /** The files closed so far: all of them after {@link #close()}. */
  List<DataFile> dataFiles() {
    return List.copyOf(written);
  }
}
