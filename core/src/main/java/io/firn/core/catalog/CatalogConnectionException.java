/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.catalog;

/** A catalog cannot be reached or is misconfigured; the message names the catalog and the cause. */
public class CatalogConnectionException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public CatalogConnectionException(String message) {
    super(message);
  }

  public CatalogConnectionException(String message, Throwable cause) {
    super(message, cause);
  }
}
