/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.maintenance;

/**
 * Orphan file cleanup refused because two tables of a catalog share a location: the files of one
 * would look orphaned to the other. Give each table its own location, then run the cleanup again.
 */
public class SharedTableLocationException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  public SharedTableLocationException(String message) {
    super(message);
  }
}
