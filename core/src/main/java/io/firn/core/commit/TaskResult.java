/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.commit;

import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;

/**
 * What one task produced. Nothing is committed yet; the committer commits or deletes these files.
 *
 * @param taskId the task's id in its plan
 * @param dataFiles new data files (the rewritten files' live rows)
 * @param positionDeletes new file-scoped position-delete files, one per converted data file that
 *     still has deleted rows
 * @param rowsRead rows read from rewritten data files
 * @param rowsDeleted rows of rewritten data files dropped because a delete applied
 * @param rowsWritten rows in {@code dataFiles}
 * @param positionsWritten deleted positions written for converted data files
 * @param bytesRead data-file bytes read (rewritten files fully, converted files' key columns
 *     counted at full size)
 * @param bytesWritten bytes of new data and delete files
 * @param equalityDeleteRecordsRead equality-delete records read (each delete file once)
 * @param equalityDeleteKeysHeld distinct equality-delete keys held in memory
 * @param nanos wall time of the task
 */
public record TaskResult(
    int taskId,
    List<DataFile> dataFiles,
    List<DeleteFile> positionDeletes,
    long rowsRead,
    long rowsDeleted,
    long rowsWritten,
    long positionsWritten,
    long bytesRead,
    long bytesWritten,
    long equalityDeleteRecordsRead,
    long equalityDeleteKeysHeld,
    long nanos) {

  public TaskResult {
    dataFiles = List.copyOf(dataFiles);
    positionDeletes = List.copyOf(positionDeletes);
  }
}
