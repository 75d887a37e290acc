/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.remote;

/** The optimizer server cannot be reached or failed; the worker retries with backoff. */
public class WorkerUnavailableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public WorkerUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }

  public WorkerUnavailableException(String message) {
    super(message);
  }
}
