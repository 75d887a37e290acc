/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.store;

import io.firn.server.it.PostgresDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * An empty database of one kind the store supports, for one test: an H2 file in the test's
 * directory, or a database of its own on the machine's PostgreSQL (127.0.0.1:5432, trust auth),
 * dropped on close.
 */
final class TestDatabase implements AutoCloseable {
  /** The kinds, for parameterized tests. */
  static final List<String> KINDS = List.of("h2", "postgresql");

  final String url;
  final @Nullable String user;
  private final @Nullable PostgresDatabase postgres;

  private TestDatabase(String url, @Nullable String user, @Nullable PostgresDatabase postgres) {
    this.url = url;
    this.user = user;
    this.postgres = postgres;
  }

  static TestDatabase create(String kind, Path dir) {
    return switch (kind) {
      case "h2" ->
          new TestDatabase("jdbc:h2:file:" + dir.resolve(UUID.randomUUID() + "/state"), null, null);
      case "postgresql" -> {
        PostgresDatabase database = new PostgresDatabase("firn_store");
        yield new TestDatabase(database.url(), PostgresDatabase.USER, database);
      }
      default -> throw new IllegalArgumentException(kind);
    };
  }

  StateStore open() {
    return StateStore.open(url, user, null);
  }

  /** A connection of the test's own, outside the store's pool. */
  Connection connect() throws SQLException {
    return DriverManager.getConnection(url, user, "");
  }

  /** Runs statements on a connection of the test's own. */
  void execute(String... sql) throws SQLException {
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      for (String statement : sql) {
        s.execute(statement);
      }
    }
  }

  @Override
  public void close() {
    if (postgres != null) {
      postgres.close();
    }
  }
}
