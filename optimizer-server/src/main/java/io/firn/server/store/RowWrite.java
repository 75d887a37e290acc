/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.store;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * The latest state of one row (or its removal), written inside a transaction. Each table's class
 * has the one kind of write for its rows; while the database does not answer, the latest write of
 * each row is kept by its {@link #key()} (ADR 0016).
 */
interface RowWrite {
  /** The row's identity: one kept write per key. */
  String key();

  void write(Connection c) throws SQLException;

  /** This write combined with the older kept write of the same key. */
  default RowWrite after(RowWrite older) {
    return this;
  }

  static String key(String kind, String... parts) {
    return kind + ":" + String.join("\u0000", parts);
  }
}
