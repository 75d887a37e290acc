/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.ha;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The row {@code firn_leader} of the state store: who leads, under which epoch, until when (ADR
 * 0021). Every change runs in one transaction that locks the row and reads the database's clock,
 * never a replica's, so replicas whose clocks disagree still agree on who leads.
 */
public final class LeaderLease {
  /** The row as read; {@code now} is the database's clock at the read. */
  public record Row(
      @Nullable String holder,
      long epoch,
      Instant renewedAt,
      Instant expiresAt,
      @Nullable String url,
      Instant now) {
    /** Whether someone holds an unexpired lease. */
    public boolean live() {
      return holder != null && expiresAt.isAfter(now);
    }

    /** Whether {@code me} holds an unexpired lease. */
    public boolean heldBy(String me) {
      return live() && me.equals(holder);
    }
  }

  private final DataSource dataSource;

  public LeaderLease(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /**
   * Takes the lease when nobody holds it (or its holder let it expire), with the next epoch, or
   * renews it when {@code me} holds it (same epoch). Returns the row afterwards: {@link
   * Row#heldBy(String) heldBy(me)} says whether {@code me} leads.
   */
  public Row acquire(String me, String url, Duration ttl) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        Row row = lockedRow(c);
        Row after = row;
        long now = row.now().toEpochMilli();
        long expires = now + ttl.toMillis();
        if (me.equals(row.holder())) {
          // Renewal, also after an expiry nobody used: nobody else led in between.
          update(c, me, row.epoch(), now, expires, url);
          after =
              new Row(me, row.epoch(), row.now(), Instant.ofEpochMilli(expires), url, row.now());
        } else if (!row.live()) {
          update(c, me, row.epoch() + 1, now, expires, url);
          after =
              new Row(
                  me, row.epoch() + 1, row.now(), Instant.ofEpochMilli(expires), url, row.now());
        }
        c.commit();
        return after;
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      } finally {
        c.setAutoCommit(true);
      }
    }
  }

  /** Gives the lease up at once (a replica stopping), so that another takes over without delay. */
  public void release(String me, long epoch) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "UPDATE firn_leader SET expires_at_ms = 0 WHERE id = 1 AND holder = ? AND epoch"
                    + " = ?")) {
      s.setString(1, me);
      s.setLong(2, epoch);
      s.executeUpdate();
    }
  }

  /** The row as it is now. */
  public Row read() throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      return row(c, false);
    }
  }

  /**
   * Whether {@code me} holds the lease under {@code epoch}, in {@code c}'s transaction; locks the
   * row until that transaction ends, so no other replica can take the lease in between.
   */
  public static boolean holds(Connection c, String me, long epoch) throws SQLException {
    Row row = row(c, true);
    return row.heldBy(me) && row.epoch() == epoch;
  }

  private static Row lockedRow(Connection c) throws SQLException {
    return row(c, true);
  }

  private static Row row(Connection c, boolean lock) throws SQLException {
    Instant now = databaseNow(c);
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT holder, epoch, renewed_at_ms, expires_at_ms, advertised_url FROM"
                    + " firn_leader WHERE id = 1"
                    + (lock ? " FOR UPDATE" : ""))) {
      if (!rs.next()) {
        throw new SQLException("the state store has no firn_leader row (schema migration 4)");
      }
      return new Row(
          rs.getString(1),
          rs.getLong(2),
          Instant.ofEpochMilli(rs.getLong(3)),
          Instant.ofEpochMilli(rs.getLong(4)),
          rs.getString(5),
          now);
    }
  }

  private static Instant databaseNow(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT CURRENT_TIMESTAMP")) {
      rs.next();
      return rs.getTimestamp(1).toInstant();
    }
  }

  private static void update(
      Connection c, String holder, long epoch, long now, long expires, String url)
      throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "UPDATE firn_leader SET holder = ?, epoch = ?, renewed_at_ms = ?, expires_at_ms = ?,"
                + " advertised_url = ? WHERE id = 1")) {
      s.setString(1, holder);
      s.setLong(2, epoch);
      s.setLong(3, now);
      s.setLong(4, expires);
      s.setString(5, url);
      s.executeUpdate();
    }
  }
}
