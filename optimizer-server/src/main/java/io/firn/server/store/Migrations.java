/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * The schema's versions: the SQL files {@code db/migration/V<n>__<name>.sql} on the class path
 * ({@code src/main/resources}), applied in order and recorded in {@code schema_version}.
 *
 * <p>A file's first line is {@code -- <description>}, the text recorded with its version; other
 * lines starting with {@code --} are comments; every statement ends with a semicolon at the end of
 * a line. Versions run from 1 without a gap. Each version is applied in one transaction where the
 * database allows (PostgreSQL; H2 commits each DDL statement by itself). An applied file is never
 * edited: a change is a new file with the next version ({@code SchemaTest} pins the schema they
 * make).
 *
 * <p>H2 and PostgreSQL run the same files: the SQL stays in the subset both share (no upsert, no
 * database-specific types, timestamps as epoch milliseconds). Should a later version need SQL of
 * one database, it would get a file per database and this class would choose by the connection's
 * product name; none does today.
 */
final class Migrations {
  static final String DIRECTORY = "db/migration";

  private static final Pattern FILE = Pattern.compile("V([1-9][0-9]*)__([a-z0-9_]+)\\.sql");

  /** One version of the schema: its statements, in order. */
  record Migration(int version, String description, List<String> statements) {}

  private Migrations() {}

  private static @Nullable List<Migration> loaded;

  /** The migrations of this build, read once. */
  static synchronized List<Migration> all() {
    if (loaded == null) {
      loaded = load(Migrations.class.getClassLoader());
    }
    return loaded;
  }

  /** The latest version this build knows. */
  static int latest() {
    return all().size();
  }

  /**
   * The migration files under {@link #DIRECTORY} of {@code loader}, from a directory or a jar.
   *
   * @throws IllegalStateException when there are none, a version is missing, or a file is not as
   *     described above (a broken build, not a database problem)
   */
  static List<Migration> load(ClassLoader loader) {
    URL directory = loader.getResource(DIRECTORY);
    if (directory == null) {
      throw new IllegalStateException("no " + DIRECTORY + " on the class path");
    }
    List<Migration> all = new ArrayList<>();
    for (String name : fileNames(directory)) {
      Matcher matcher = FILE.matcher(name);
      if (!matcher.matches()) {
        continue;
      }
      try (InputStream in = loader.getResourceAsStream(DIRECTORY + "/" + name)) {
        if (in == null) {
          throw new IllegalStateException(DIRECTORY + "/" + name + " cannot be read");
        }
        String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        all.add(parse(Integer.parseInt(matcher.group(1)), name, text));
      } catch (IOException e) {
        throw new UncheckedIOException(DIRECTORY + "/" + name + ": " + e.getMessage(), e);
      }
    }
    if (all.isEmpty()) {
      throw new IllegalStateException("no migration file in " + directory);
    }
    all.sort(Comparator.comparingInt(Migration::version));
    for (int i = 0; i < all.size(); i++) {
      if (all.get(i).version() != i + 1) {
        throw new IllegalStateException(
            DIRECTORY + ": version " + (i + 1) + " is missing or twice (found " + all + ")");
      }
    }
    return List.copyOf(all);
  }

  private static List<String> fileNames(URL directory) {
    try {
      switch (directory.getProtocol()) {
        case "file":
          try (Stream<Path> files = Files.list(Path.of(directory.toURI()))) {
            return files.map(f -> f.getFileName().toString()).toList();
          }
        case "jar":
          JarURLConnection connection = (JarURLConnection) directory.openConnection();
          connection.setUseCaches(false);
          List<String> names = new ArrayList<>();
          try (JarFile jar = connection.getJarFile()) {
            Enumeration<JarEntry> entries = jar.entries();
            while (entries.hasMoreElements()) {
              String entry = entries.nextElement().getName();
              if (entry.startsWith(DIRECTORY + "/")
                  && entry.indexOf('/', DIRECTORY.length() + 1) < 0) {
                names.add(entry.substring(DIRECTORY.length() + 1));
              }
            }
          }
          return names;
        default:
          throw new IllegalStateException("cannot list the migration files in " + directory);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list the migration files in " + directory, e);
    } catch (URISyntaxException e) {
      throw new IllegalStateException("cannot list the migration files in " + directory, e);
    }
  }

  static Migration parse(int version, String name, String text) {
    List<String> lines = text.lines().toList();
    if (lines.isEmpty() || !lines.get(0).startsWith("-- ") || lines.get(0).length() <= 3) {
      throw new IllegalStateException(name + ": the first line must be '-- <description>'");
    }
    List<String> statements = new ArrayList<>();
    StringBuilder statement = new StringBuilder();
    for (String line : lines.subList(1, lines.size())) {
      String trimmed = line.strip();
      if (trimmed.isEmpty() || trimmed.startsWith("--")) {
        continue;
      }
      if (statement.length() > 0) {
        statement.append('\n');
      }
      if (trimmed.endsWith(";")) {
        statement.append(line, 0, line.lastIndexOf(';'));
        statements.add(statement.toString());
        statement.setLength(0);
      } else {
        statement.append(line);
      }
    }
    if (statement.length() > 0 || statements.isEmpty()) {
      throw new IllegalStateException(
          name + ": every statement must end with ';' at the end of a line");
    }
    return new Migration(version, lines.get(0).substring(3).strip(), List.copyOf(statements));
  }

  /** The highest applied version (0 for an empty database). */
  static int version(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT MAX(version) FROM schema_version")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  /**
   * Applies every version after the database's up to {@code target}, each in one transaction with
   * its row in {@code schema_version}; a database at {@code target} or later is left as it is.
   *
   * @throws SQLException naming the version that failed; the versions before it stay applied
   */
  static void migrate(Connection c, int target) throws SQLException {
    c.setAutoCommit(true);
    try (Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE IF NOT EXISTS schema_version ("
              + " version INTEGER NOT NULL PRIMARY KEY,"
              + " description VARCHAR(255) NOT NULL,"
              + " applied_at_ms BIGINT NOT NULL)");
    }
    List<Migration> migrations = all();
    if (target > migrations.size()) {
      throw new IllegalArgumentException(
          "version " + target + " is not known; the latest is " + migrations.size());
    }
    for (int version = version(c) + 1; version <= target; version++) {
      Migration migration = migrations.get(version - 1);
      c.setAutoCommit(false);
      try (Statement s = c.createStatement();
          PreparedStatement record =
              c.prepareStatement(
                  "INSERT INTO schema_version (version, description, applied_at_ms)"
                      + " VALUES (?, ?, ?)")) {
        for (String statement : migration.statements()) {
          s.execute(statement);
        }
        record.setInt(1, version);
        record.setString(2, migration.description());
        record.setLong(3, System.currentTimeMillis());
        record.executeUpdate();
        c.commit();
      } catch (SQLException e) {
        Jdbc.rollbackQuietly(c);
        throw new SQLException(
            "migration " + version + " (" + migration.description() + ") failed: " + e.getMessage(),
            e.getSQLState(),
            e);
      } finally {
        c.setAutoCommit(true);
      }
    }
  }
}
