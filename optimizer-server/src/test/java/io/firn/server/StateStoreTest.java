package io.firn.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The state store on both databases it supports: an embedded H2 file and the real PostgreSQL on
 * 127.0.0.1:5432 (trust auth), in a database this test creates and drops.
 */
class StateStoreTest {
  private static final String POSTGRES = "jdbc:postgresql://127.0.0.1:5432/";
  private static final String USER = System.getProperty("firn.test.pg.user", "postgres");

  @TempDir Path dir;

  @Test
  void migratesAndKeepsTableRuntimesInAnH2File() {
    String url = "jdbc:h2:file:" + dir.resolve("state/firn");
    roundTrip(url, null);
  }

  @Test
  void migratesAndKeepsTableRuntimesInPostgres() throws Exception {
    String database = "firn_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    try (Connection c = DriverManager.getConnection(POSTGRES + "postgres?user=" + USER);
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + database);
    }
    try {
      roundTrip(POSTGRES + database, USER);
    } finally {
      try (Connection c = DriverManager.getConnection(POSTGRES + "postgres?user=" + USER);
          Statement s = c.createStatement()) {
        s.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
      }
    }
  }

  private static void roundTrip(String url, String user) {
    TableRuntime first =
        new TableRuntime(
            "lake",
            "db.nested",
            "events",
            42L,
            true,
            "2 of 4 partition(s) ...",
            Instant.ofEpochMilli(1_700_000_000_123L));
    TableRuntime updated =
        new TableRuntime(
            "lake",
            "db.nested",
            "events",
            43L,
            false,
            "clean",
            Instant.ofEpochMilli(1_700_000_060_000L));
    TableRuntime empty =
        new TableRuntime("lake", "db", "new", null, false, "no snapshot", Instant.EPOCH);

    try (StateStore store = StateStore.open(url, user, null)) {
      assertThat(store.schemaVersion()).isEqualTo(StateStore.MIGRATIONS.size());
      assertThat(store.loadAll()).isEmpty();
      store.save(first);
      store.save(empty);
      assertThat(store.loadAll()).containsExactly(empty, first);
      store.save(updated);
    }
    // Reopening applies no migration twice and finds the rows.
    try (StateStore store = StateStore.open(url, user, null)) {
      assertThat(store.schemaVersion()).isEqualTo(StateStore.MIGRATIONS.size());
      assertThat(store.loadAll()).containsExactly(empty, updated);
      store.delete("lake", "db", "new");
      assertThat(store.loadAll()).containsExactly(updated);
      assertThat(store.isReachable()).isTrue();
    }
  }
}
