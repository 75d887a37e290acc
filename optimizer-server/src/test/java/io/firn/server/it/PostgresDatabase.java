/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.it;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.UUID;

/** A database of its own on the PostgreSQL server at 127.0.0.1:5432, dropped on close. */
public final class PostgresDatabase implements AutoCloseable {
  private static final String SERVER = "jdbc:postgresql://127.0.0.1:5432/";
  public static final String USER = System.getProperty("firn.test.pg.user", "postgres");

  final String name;

  public PostgresDatabase(String prefix) {
    this.name = prefix + "_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    execute("CREATE DATABASE " + name.toLowerCase(Locale.ROOT));
  }

  public String url() {
    return SERVER + name.toLowerCase(Locale.ROOT);
  }

  @Override
  public void close() {
    execute("DROP DATABASE IF EXISTS " + name.toLowerCase(Locale.ROOT) + " WITH (FORCE)");
  }

  private static void execute(String sql) {
    try (Connection c = DriverManager.getConnection(SERVER + "postgres?user=" + USER);
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(
          "PostgreSQL on 127.0.0.1:5432 (user " + USER + "): " + sql + " failed: " + e, e);
    }
  }
}
