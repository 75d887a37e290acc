/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.Arrays;
import java.util.Locale;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** How every table of the store writes and reads its values, and closes its transactions. */
final class Jdbc {
  private static final Logger LOG = LoggerFactory.getLogger(Jdbc.class);

  /** The length of the store's longest text columns (reasons, messages, partition paths). */
  static final int MAX_TEXT = 4000;

  private Jdbc() {}

  static String truncate(String text) {
    return text.length() > MAX_TEXT ? text.substring(0, MAX_TEXT) : text;
  }

  static void setLong(PreparedStatement statement, int index, @Nullable Long value)
      throws SQLException {
    if (value == null) {
      statement.setNull(index, Types.BIGINT);
    } else {
      statement.setLong(index, value);
    }
  }

  /** An instant as epoch milliseconds, or NULL. */
  static void setInstant(PreparedStatement statement, int index, @Nullable Instant value)
      throws SQLException {
    setLong(statement, index, value == null ? null : value.toEpochMilli());
  }

  static @Nullable Instant instant(ResultSet rs, int column) throws SQLException {
    long millis = rs.getLong(column);
    return rs.wasNull() ? null : Instant.ofEpochMilli(millis);
  }

  static @Nullable Long longOrNull(ResultSet rs, int column) throws SQLException {
    long value = rs.getLong(column);
    return rs.wasNull() ? null : value;
  }

  /**
   * How a status is stored: its lower-case name, the label the API and the metrics show too ({@code
   * running}, {@code committed}, {@code parked}).
   */
  static String label(Enum<?> status) {
    return status.name().toLowerCase(Locale.ROOT);
  }

  /**
   * The status stored in a column.
   *
   * @param table with {@code row} and {@code column}: where the value was read, for the error
   * @throws UnknownStoredValueException when no status of {@code type} is stored as {@code stored}
   */
  static <E extends Enum<E>> E status(
      Class<E> type, @Nullable String stored, String table, String row, String column) {
    E[] known = type.getEnumConstants();
    for (E status : known) {
      if (label(status).equals(stored)) {
        return status;
      }
    }
    throw new UnknownStoredValueException(
        table, row, column, stored, Arrays.stream(known).map(Jdbc::label).toList());
  }

  static void rollbackQuietly(Connection c) {
    try {
      c.rollback();
    } catch (SQLException e) {
      LOG.debug("state store: rollback failed", e);
    }
  }

  static void autoCommitQuietly(Connection c) {
    try {
      c.setAutoCommit(true);
    } catch (SQLException e) {
      LOG.debug("state store: resetting auto-commit failed", e);
    }
  }
}
