/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.protocol;

/**
 * The server refuses the worker's token (HTTP 401 or 403): retrying cannot help, the worker stops
 * and says which setting to fix.
 */
public final class WorkerNotAuthorizedException extends ProtocolException {
  private static final long serialVersionUID = 1L;

  public WorkerNotAuthorizedException(String message) {
    super(message);
  }
}
