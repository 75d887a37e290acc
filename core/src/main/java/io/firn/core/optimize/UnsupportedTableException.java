/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.optimize;

/** The table cannot be optimized by Firn as it is; the message says why and what to do. */
public class UnsupportedTableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public UnsupportedTableException(String message) {
    super(message);
  }
}
