/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

/** No watched table has this name. */
public class UnknownTableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public UnknownTableException(String qualified) {
    super(
        "no watched table named '"
            + qualified
            + "' (catalog.namespace.table; see GET /api/v1/tables)");
  }
}
