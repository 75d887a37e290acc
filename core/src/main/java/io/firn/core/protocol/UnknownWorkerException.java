/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.protocol;

/** The server does not know this worker id (it expired or the server restarted): register again. */
public class UnknownWorkerException extends ProtocolException {
  private static final long serialVersionUID = 1L;

  public UnknownWorkerException(String workerId) {
    super("unknown worker '" + workerId + "': register again (expired or the server restarted)");
  }
}
