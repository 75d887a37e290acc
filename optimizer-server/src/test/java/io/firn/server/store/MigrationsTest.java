/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.firn.server.store.Migrations.Migration;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

/**
 * The migration files: a database migrated one version at a time (as it was by each release) ends
 * with the schema and versions of a fresh one, a database at the latest version migrates to
 * nothing, and the files are found in a jar as in a directory. On H2 and on the machine's
 * PostgreSQL.
 */
class MigrationsTest {
  @TempDir Path dir;

  @Test
  void theFourVersionsOfBeforeTheSplitAndTheLaterOnesWithTheirDescriptions() {
    assertThat(Migrations.all())
        .extracting(Migration::version, Migration::description)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(1, "table runtime"),
            org.assertj.core.groups.Tuple.tuple(
                2, "optimizing state, processes, tasks and workers"),
            org.assertj.core.groups.Tuple.tuple(3, "table health and file counts"),
            org.assertj.core.groups.Tuple.tuple(4, "leader lease of several replicas"),
            org.assertj.core.groups.Tuple.tuple(5, "table size, records, snapshots and manifests"),
            org.assertj.core.groups.Tuple.tuple(
                6, "process types of up to 32 characters (rewrite-manifests)"));
    assertThat(Migrations.all().get(1).statements())
        .hasSize(12)
        .first()
        .isEqualTo(
            "ALTER TABLE table_runtime ADD COLUMN state VARCHAR(32) DEFAULT 'idle' NOT NULL");
  }

  @ParameterizedTest
  @FieldSource("io.firn.server.store.TestDatabase#KINDS")
  void aDatabaseMigratedVersionByVersionHasTheSchemaOfAFreshOne(String kind) throws Exception {
    List<String> fresh;
    try (TestDatabase database = TestDatabase.create(kind, dir)) {
      fresh = SchemaTest.migrated(database.url, database.user);
    }
    for (int version = 0; version <= Migrations.latest(); version++) {
      try (TestDatabase database = TestDatabase.create(kind, dir)) {
        // What an older release left: every version up to this one, one at a time.
        try (Connection c = database.connect()) {
          for (int step = 1; step <= version; step++) {
            Migrations.migrate(c, step);
            assertThat(Migrations.version(c)).isEqualTo(step);
          }
        }
        try (StateStore store = database.open()) {
          assertThat(store.schemaVersion()).isEqualTo(Migrations.latest());
        }
        assertThat(SchemaTest.snapshot(database.url, database.user))
            .as("a database at version %d, then migrated by the store", version)
            .isEqualTo(fresh);
      }
    }
  }

  @ParameterizedTest
  @FieldSource("io.firn.server.store.TestDatabase#KINDS")
  void aDatabaseAtTheLatestVersionMigratesToNothing(String kind) throws Exception {
    try (TestDatabase database = TestDatabase.create(kind, dir)) {
      database.open().close();
      Map<Integer, Long> applied = applied(database);
      assertThat(applied).hasSize(Migrations.latest());
      database.open().close();
      assertThat(applied(database)).isEqualTo(applied);
    }
  }

  private static Map<Integer, Long> applied(TestDatabase database) throws SQLException {
    Map<Integer, Long> applied = new LinkedHashMap<>();
    try (Connection c = database.connect();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("SELECT version, applied_at_ms FROM schema_version ORDER BY version")) {
      while (rs.next()) {
        applied.put(rs.getInt(1), rs.getLong(2));
      }
    }
    return applied;
  }

  @Test
  void theFilesAreFoundInAJarAsInADirectory() throws Exception {
    Map<String, String> files = new LinkedHashMap<>();
    Path directory =
        Path.of(Migrations.class.getClassLoader().getResource(Migrations.DIRECTORY).toURI());
    try (var list = Files.list(directory)) {
      for (Path file : list.sorted().toList()) {
        files.put(file.getFileName().toString(), Files.readString(file));
      }
    }
    assertThat(files).hasSize(Migrations.latest());
    try (URLClassLoader jar = jar(files)) {
      assertThat(Migrations.load(jar)).isEqualTo(Migrations.all());
    }
  }

  @Test
  void aMissingVersionIsRefused() throws Exception {
    Map<String, String> files = new LinkedHashMap<>();
    files.put("V1__one.sql", "-- one\nCREATE TABLE one (id INTEGER);\n");
    files.put("V3__three.sql", "-- three\nCREATE TABLE three (id INTEGER);\n");
    try (URLClassLoader jar = jar(files)) {
      assertThatThrownBy(() -> Migrations.load(jar))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("version 2 is missing");
    }
  }

  @Test
  void aFileIsParsedIntoItsStatementsOrRefusedWithItsName() {
    Migration two =
        Migrations.parse(
            2,
            "V2__x.sql",
            "-- two tables\n-- a comment\nCREATE TABLE a (\n  id INTEGER);\n\n"
                + "CREATE TABLE b (id INTEGER);  \n");
    assertThat(two)
        .isEqualTo(
            new Migration(
                2,
                "two tables",
                List.of("CREATE TABLE a (\n  id INTEGER)", "CREATE TABLE b (id INTEGER)")));
    assertThatThrownBy(() -> Migrations.parse(1, "V1__x.sql", "CREATE TABLE a (id INTEGER);"))
        .hasMessageContaining("V1__x.sql: the first line must be '-- <description>'");
    assertThatThrownBy(() -> Migrations.parse(1, "V1__x.sql", "-- x\nCREATE TABLE a (id INTEGER)"))
        .hasMessageContaining("V1__x.sql: every statement must end with ';'");
  }

  /** A class loader that sees only a jar of {@code files} under {@code db/migration/}. */
  private URLClassLoader jar(Map<String, String> files) throws IOException {
    Path jar = dir.resolve("migrations-" + files.size() + "-" + System.nanoTime() + ".jar");
    try (OutputStream out = Files.newOutputStream(jar);
        JarOutputStream entries = new JarOutputStream(out)) {
      entries.putNextEntry(new JarEntry(Migrations.DIRECTORY + "/"));
      entries.closeEntry();
      List<String> names = new ArrayList<>(files.keySet());
      for (String name : names) {
        entries.putNextEntry(new JarEntry(Migrations.DIRECTORY + "/" + name));
        entries.write(files.get(name).getBytes(StandardCharsets.UTF_8));
        entries.closeEntry();
      }
    }
    return new URLClassLoader(new URL[] {jar.toUri().toURL()}, null);
  }
}
