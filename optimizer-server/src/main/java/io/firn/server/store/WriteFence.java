/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.store;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * What every state-store write checks in its own transaction, before its rows, when several
 * replicas share the store: that this server still leads (ADR 0021).
 */
public interface WriteFence {
  /**
   * Whether the write may go on; may lock rows of {@code c}'s transaction, which is committed with
   * the write.
   */
  boolean holds(Connection c) throws SQLException;

  /** A write was refused; {@code what} names its rows. */
  void refused(String what);
}
