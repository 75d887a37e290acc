/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

/**
 * The schema the migrations make, on H2 and on the machine's PostgreSQL (127.0.0.1:5432, trust
 * auth, a database of the test's own): it equals the text pinned in {@code
 * src/test/resources/store/schema-*.txt}, which was first written by the state store of before the
 * split into one class per table (its migrations in Java strings), so a database that store made
 * and a fresh one have the same schema. An applied migration must never change: a new one is
 * appended and the pinned text updated with it (run this test with {@code
 * -Dfirn.test.pinSchema=true} to write the files into the source tree, then read the diff).
 */
class SchemaTest {
  private static final String PIN = System.getProperty("firn.test.pinSchema");

  @TempDir Path dir;

  @ParameterizedTest
  @FieldSource("io.firn.server.store.TestDatabase#KINDS")
  void aFreshDatabaseHasThePinnedSchema(String kind) throws Exception {
    try (TestDatabase database = TestDatabase.create(kind, dir)) {
      assertPinned(migrated(database.url, database.user), "schema-" + kind + ".txt");
    }
  }

  /** The schema after the store opened the database (and closed it again). */
  static List<String> migrated(String url, @Nullable String user) throws SQLException {
    try (StateStore store = StateStore.open(url, user, null)) {
      assertThat(store.schemaVersion()).isPositive();
    }
    return snapshot(url, user);
  }

  static List<String> snapshot(String url, @Nullable String user) throws SQLException {
    try (Connection c = DriverManager.getConnection(url, user, "")) {
      return SchemaSnapshot.of(c);
    }
  }

  /**
   * Asserts that {@code actual} is the text of the pinned file {@code name}; writes the file first
   * when {@code firn.test.pinSchema} is set.
   */
  private static void assertPinned(List<String> actual, String name) throws IOException {
    Path file = Path.of("src/test/resources/store", name);
    if (PIN != null) {
      Files.write(file, actual);
    }
    assertThat(actual).isEqualTo(Files.readAllLines(file));
  }
}
