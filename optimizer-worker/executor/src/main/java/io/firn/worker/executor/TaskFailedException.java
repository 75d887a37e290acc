/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.executor;

import org.apache.iceberg.ContentFile;
import org.jspecify.annotations.Nullable;

/**
 * A task could not run: a file is missing or unreadable, or a check failed. The message names the
 * task, the partition and the file; nothing of the task was committed and its partial output was
 * deleted. Fix the cause (or the file), then run again.
 */
public class TaskFailedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public TaskFailedException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }

  public TaskFailedException(String message) {
    super(message);
  }

  /**
   * Fails the task when a file read to its end held another number of rows than the table's
   * metadata records for it (a truncated, replaced or miscounted file).
   */
  public static void checkRowCount(ContentFile<?> file, long rows) {
    if (rows != file.recordCount()) {
      throw new TaskFailedException(
          "file "
              + file.location()
              + " has "
              + rows
              + " rows but the table's metadata says "
              + file.recordCount()
              + "; the file does not match the table metadata");
    }
  }
}
