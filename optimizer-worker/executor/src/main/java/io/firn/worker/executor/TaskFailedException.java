/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.executor;

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
}
