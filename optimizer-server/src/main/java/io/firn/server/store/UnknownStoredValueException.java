/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.store;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A stored row holds a value this version of Firn does not know: a status written by a newer
 * version, or by hand. The row is not read; the message names the table, the row, the column and
 * the value.
 */
public class UnknownStoredValueException extends StateStoreException {
  private static final long serialVersionUID = 1L;

  public UnknownStoredValueException(
      String table, String row, String column, @Nullable String value, List<String> known) {
    super(
        "state store: the "
            + table
            + " row "
            + row
            + " has "
            + column
            + " = "
            + (value == null ? "NULL" : "'" + value + "'")
            + ", which this version of Firn does not know (it knows "
            + String.join(", ", known)
            + "); was the database written by a newer version of Firn, or edited?");
  }
}
