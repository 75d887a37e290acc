/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.testkit;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * A database of one test's own on the PostgreSQL server at 127.0.0.1:5432 (user {@code
 * -Dfirn.test.pg.user}, default {@code postgres}): created with a random name, dropped with its
 * sessions on {@link #close()}. For a server of the test's own, see {@link PostgresInstance}.
 */
public final class ScratchDatabase implements AutoCloseable {
  private static final String SERVER = "jdbc:postgresql://127.0.0.1:5432/";
  private static final String USER = System.getProperty("firn.test.pg.user", "postgres");

  private final String name;

  private ScratchDatabase(String name) {
    this.name = name;
  }

  /** Creates {@code <prefix><12 random hex digits>}. */
  public static ScratchDatabase create(String prefix) {
    String name = prefix + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    execute("CREATE DATABASE " + name);
    return new ScratchDatabase(name);
  }

  /** The JDBC URI of this database (without user). */
  public String uri() {
    return SERVER + name;
  }

  /** The user to connect as. */
  public String user() {
    return USER;
  }

  @Override
  public void close() {
    execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
  }

  private static void execute(String sql) {
    try (Connection c = DriverManager.getConnection(SERVER + "postgres?user=" + USER);
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql + " on " + SERVER + " failed: " + e.getMessage(), e);
    }
  }
}
