/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.store;

/** The state store cannot be reached or used; check the {@code stateStore} settings. */
public class StateStoreException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public StateStoreException(String message, Throwable cause) {
    super(message, cause);
  }

  public StateStoreException(String message) {
    super(message);
  }
}
