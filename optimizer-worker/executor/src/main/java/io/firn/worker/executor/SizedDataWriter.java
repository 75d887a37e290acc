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
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFileFactory;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * a merged file costs per row; small input files overstate it), corrected by what merged files of
 * the table cost ({@link LearnedBytesPerRow}). The file count is planned anew at each file's first
 * row and every {@value #REPLAN_ROWS} rows after it, from what is left to read at the share of live
 * rows seen so far, so the last file takes its even share and no small tail is left behind.
 *
 * <p>The first file is the only one sized on a guess. When its real size shows the guess was off by
 * so much that it lies outside the bounds, or leaves a rest that no count of files splits within
 * them (narrow rows merged from small files cost 13-18% fewer bytes than their inputs did), its
 * rows are read back and written again by the measured bytes per row, and the file is deleted: at
 * most one file's rows are written twice, and only when the guess would have left a file the next
 * plan rewrites.
 *
 * <p>Not thread-safe: one instance per task.
 */
final class SizedDataWriter implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(SizedDataWriter.class);
  private static final int REPLAN_ROWS = 1024;
  private final GenericFileWriterFactory writers;
  private final OutputFileFactory files;
  private final PartitionSpec spec;
  private final StructLike partition;
  private final long targetSize;
  private final long minTargetSize;
  private final FileIO io;
  private final Schema schema;
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
  // Rows of a re-split first file still to be written again; whether the first file was checked.
  private long rewritingRows;
  private boolean firstChecked;
  // The first file while its rows are written again: deleted by abort() too.
  private @Nullable DataFile resplitting;

  /**
   * @param inputRows the rows the task reads, deleted ones included
   * @param firstBytesPerRow the bytes per row to size the first file by, before any file of this
   *     task has been measured
   */
  SizedDataWriter(
      FileIO io,
      Schema schema,
      GenericFileWriterFactory writers,
      OutputFileFactory files,
      PartitionSpec spec,
      StructLike partition,
      long targetSize,
      long minTargetSize,
      long inputRows,
      double firstBytesPerRow) {
    this.io = io;
    this.schema = schema;
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
    rowsRead++;
    rowsWritten++;
    boolean closed = append(row);
    if (closed && !firstChecked) {
      firstChecked = true;
      resplitFirstFileIfMissized();
    }
  }

  /**
   * Writes one row into the open file, opening it first if needed; true when it closed it. The row
   * is already counted (as read and live, or as no longer waiting to be written again).
   */
  private boolean append(Record row) {
    DataWriter<Record> writer = current;
    String location = currentLocation;
    if (writer == null || location == null) {
      EncryptedOutputFile file = files.newOutputFile(spec, partition);
      location = file.encryptingOutputFile().location();
      writer = writers.newDataWriter(file, spec, partition);
      currentLocation = location;
      current = writer;
      rowsInFile = 0;
    }
    writer.write(row);
    rowsInFile++;
    // Planned at the file's first row and again every REPLAN_ROWS rows, on the share of live rows
    // and the bytes per row known by then: a file ends by what the task has shown so far.
    if (rowsInFile == 1 || rowsInFile % REPLAN_ROWS == 0) {
      rowsForFile = rowsForOpenFile();
    }
    if (rowsInFile >= rowsForFile) {
      try {
        closeCurrent(writer);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot close data file " + location, e);
      }
      return true;
    }
    return false;
  }

  /**
   * After the first file closed: keeps it when it lies within the bounds and the rest, at the bytes
   * per row it measured, splits into files within them; otherwise writes its rows again, sized by
   * that measurement, and deletes it.
   */
  private void resplitFirstFileIfMissized() {
    DataFile first = written.get(0);
    double bytesPerRow = (double) closedBytes / Math.max(1, closedRows);
    long restBytes = (long) Math.ceil(rowsToCome() * bytesPerRow);
    long restFiles = RewriteTask.outputFiles(restBytes, targetSize, minTargetSize);
    boolean firstFits =
        first.fileSizeInBytes() >= minTargetSize && first.fileSizeInBytes() <= targetSize;
    boolean restFits =
        restBytes == 0
            || (restBytes / restFiles >= minTargetSize
                && (restBytes + restFiles - 1) / restFiles <= targetSize);
    if (firstFits && restFits) {
      return;
    }
    LOG.info(
        "First output file {} of {} bytes ({} rows) was sized on a guess of {} bytes per row and"
            + " measures {}; {}: writing its rows again by the measured size",
        first.location(),
        first.fileSizeInBytes(),
        first.recordCount(),
        String.format("%.1f", inputBytesPerRow),
        String.format("%.1f", bytesPerRow),
        firstFits
            ? "the rest, about "
                + restBytes
                + " bytes, splits into no files within ["
                + minTargetSize
                + ", "
                + targetSize
                + "] bytes"
            : "it lies outside [" + minTargetSize + ", " + targetSize + "] bytes");
    written.remove(0);
    resplitting = first;
    rewritingRows = first.recordCount();
    try (CloseableIterable<Record> rows =
        Readers.open(io, first, schema, Readers.constants(spec, partition, schema))) {
      for (Record row : rows) {
        rewritingRows--;
        append(row);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read back data file " + first.location(), e);
    }
    rewritingRows = 0;
    RewriteExecutor.deleteQuietly(io, first.location());
    resplitting = null;
  }

  /**
   * The live rows still to come after those written: the first file's rows waiting to be written
   * again, and the input's rows not read yet at the share of live rows seen so far.
   */
  private double rowsToCome() {
    double liveShare = rowsRead > 0 ? (double) rowsWritten / rowsRead : 1;
    return rewritingRows + Math.max(0, inputRows - rowsRead) * liveShare;
  }

  /**
   * The rows the open file takes: its rows and those still to come, over the number of files their
   * bytes make.
   */
  private long rowsForOpenFile() {
    long rows = rowsInFile + (long) Math.ceil(rowsToCome());
    double bytesPerRow = closedRows == 0 ? inputBytesPerRow : (double) closedBytes / closedRows;
    long count =
        RewriteTask.outputFiles((long) Math.ceil(rows * bytesPerRow), targetSize, minTargetSize);
    // With one file left it takes every remaining row: estimates of what is left are least sure
    // at the end, and cutting there would leave a tail smaller than any file should be. (Stopping
    // a first file at one target by the guess, to check the guess, was tried: a task whose output
    // is a little above one target then wrote most of its rows twice, 75 % more task time on the
    // matrix's shape 3.)
    return count <= 1 ? Long.MAX_VALUE : (rows + count - 1) / count;
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
    DataFile first = resplitting;
    if (first != null) {
      RewriteExecutor.deleteQuietly(io, first.location());
      resplitting = null;
    }
  }

  /** The files closed so far: all of them after {@link #close()}. */
  List<DataFile> dataFiles() {
    return List.copyOf(written);
  }
}
