/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import io.firn.core.protocol.ProtocolException;

/**
 * A message names a registered worker but does not carry its secret: forged by a holder of the
 * worker token, or sent by a worker that lost its registration. Answered like an unknown worker
 * (410: register again), and logged with the worker's name.
 */
public final class WorkerRefusedException extends ProtocolException {
  private static final long serialVersionUID = 1L;

  public WorkerRefusedException(String message) {
    super(message);
  }
}
