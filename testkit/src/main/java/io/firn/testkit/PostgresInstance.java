/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A PostgreSQL server of a test's own: its own data directory under the temporary directory, its
 * own port on 127.0.0.1 and its own socket directory, so a test can stop, kill and restart it
 * without touching the machine's PostgreSQL. Trust authentication, user {@code postgres}.
 *
 * <p>The binaries ({@code initdb}, {@code pg_ctl}) are taken from {@code -Dfirn.test.pg.bin}, else
 * from the newest {@code /usr/lib/postgresql/<version>/bin}. PostgreSQL refuses to run as root:
 * when the test runs as root (as here and in CI) every command runs through {@code runuser -u
 * postgres --} and the directory is handed to that user. The JDBC driver must be on the caller's
 * class path.
 */
public final class PostgresInstance implements AutoCloseable {
  private static final String OS_USER = "postgres";

  private final Path bin;
  private final Path dir;
  private final Path data;
  private final int port;
  private final boolean asRoot;
  private final Thread shutdownHook;

  private PostgresInstance(Path bin, Path dir, int port, boolean asRoot) {
    this.bin = bin;
    this.dir = dir;
    this.data = dir.resolve("data");
    this.port = port;
    this.asRoot = asRoot;
    this.shutdownHook = new Thread(this::stopQuietly, "postgres-instance-stop");
  }

  /** Creates a cluster in a new temporary directory and starts it on a free port. */
  public static PostgresInstance start() {
    Path bin = binaries();
    boolean asRoot = "root".equals(System.getProperty("user.name"));
    Path dir;
    try {
      dir = Files.createTempDirectory(tempRoot(asRoot), "firn-pg-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    PostgresInstance pg = new PostgresInstance(bin, dir, freePort(), asRoot);
    try {
      if (asRoot) {
        run(List.of("chown", OS_USER + ":", dir.toString()), 30);
      }
      pg.pg(
          60,
          "initdb",
          "-D",
          pg.data.toString(),
          "-U",
          "postgres",
          "--auth=trust",
          "--encoding=UTF8",
          "--no-locale",
          "--no-sync");
      Runtime.getRuntime().addShutdownHook(pg.shutdownHook);
      pg.startServer();
    } catch (RuntimeException e) {
      pg.close();
      throw e;
    }
    return pg;
  }

  /**
   * Where the cluster's directory goes: the JVM's temporary directory, unless the commands run as
   * {@code postgres} and that user cannot reach it (a checkout under a {@code 0700} directory,
   * say); then {@code /tmp}.
   */
  private static Path tempRoot(boolean asRoot) {
    Path root = Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath();
    if (!asRoot) {
      return root;
    }
    for (Path p = root; p != null; p = p.getParent()) {
      try {
        if (!Files.getPosixFilePermissions(p)
            .contains(java.nio.file.attribute.PosixFilePermission.OTHERS_EXECUTE)) {
          return Path.of("/tmp");
        }
      } catch (IOException | UnsupportedOperationException e) {
        return Path.of("/tmp");
      }
    }
    return root;
  }

  /** The port the server listens on (127.0.0.1). */
  public int port() {
    return port;
  }

  /** The superuser to connect as (trust: no password). */
  public String user() {
    return "postgres";
  }

  /** A JDBC URL for {@code database}. */
  public String url(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
  }

  /** Creates an empty database and returns its JDBC URL. */
  public String createDatabase(String database) {
    execute("CREATE DATABASE " + database);
    return url(database);
  }

  /** Runs one statement in the {@code postgres} database. */
  public void execute(String sql) {
    try (Connection c = DriverManager.getConnection(url("postgres"), user(), "");
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException("PostgreSQL on port " + port + ": " + sql + ": " + e, e);
    }
  }

  /**
   * Terminates every session connected to {@code database} ({@code pg_terminate_backend}), as an
   * operator or a failover would.
   *
   * @return the sessions terminated
   */
  public int terminateSessions(String database) {
    try (Connection c = DriverManager.getConnection(url("postgres"), user(), "");
        PreparedStatement s =
            c.prepareStatement(
                "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity"
                    + " WHERE datname = ? AND pid <> pg_backend_pid()")) {
      s.setString(1, database);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("PostgreSQL on port " + port + ": " + e, e);
    }
  }

  /** The number of sessions connected to {@code database}. */
  public int sessions(String database) {
    try (Connection c = DriverManager.getConnection(url("postgres"), user(), "");
        PreparedStatement s =
            c.prepareStatement(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = ? AND pid <> pg_backend_pid()")) {
      s.setString(1, database);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("PostgreSQL on port " + port + ": " + e, e);
    }
  }

  /**
   * Stops the server the hard way ({@code pg_ctl stop -m immediate}: every session is cut, no
   * checkpoint; the next start recovers from the WAL, like after a crash).
   */
  public void kill() {
    pg(60, "pg_ctl", "stop", "-D", data.toString(), "-m", "immediate", "-w");
  }

  /**
   * Makes the server hang without refusing anything: {@code SIGSTOP} to the postmaster and every
   * backend, so that connections are accepted by the kernel and nothing answers them; {@link
   * #resume} ends it. Does nothing while the server is stopped.
   */
  public void pause() {
    signal("-STOP");
  }

  /** Ends {@link #pause}: {@code SIGCONT} to the backends and the postmaster. */
  public void resume() {
    signal("-CONT");
  }

  private void signal(String signal) {
    if (!Files.exists(data.resolve("postmaster.pid"))) {
      return; // Not running: nothing to pause or resume.
    }
    long postmaster;
    try {
      postmaster = Long.parseLong(Files.readAllLines(data.resolve("postmaster.pid")).get(0).trim());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<String> command = new ArrayList<>(List.of("kill", signal));
    ProcessHandle.of(postmaster)
        .ifPresent(p -> p.descendants().forEach(d -> command.add(Long.toString(d.pid()))));
    command.add(Long.toString(postmaster));
    try {
      run(command, 30);
    } catch (IllegalStateException e) {
      // A backend that exited since it was listed: kill signals the others all the same.
    }
  }

  /** Starts the server again on the same port and data directory. */
  public void startServer() {
    pg(
        90,
        "pg_ctl",
        "start",
        "-D",
        data.toString(),
        "-w",
        "-t",
        "60",
        "-l",
        dir.resolve("postgres.log").toString(),
        "-o",
        "-p "
            + port
            + " -c listen_addresses=127.0.0.1 -c unix_socket_directories="
            + dir
            + " -c fsync=off -c max_connections=50");
  }

  /** Whether the server accepts connections. */
  public boolean isRunning() {
    try (Connection c = DriverManager.getConnection(url("postgres"), user(), "")) {
      return c.isValid(2);
    } catch (SQLException e) {
      return false;
    }
  }

  /** The server's log so far (for a failing test's message). */
  public String log() {
    try {
      Path log = dir.resolve("postgres.log");
      return Files.exists(log) ? Files.readString(log) : "";
    } catch (IOException e) {
      return "cannot read the log: " + e;
    }
  }

  /** Stops the server and removes its directory. */
  @Override
  public void close() {
    stopQuietly();
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException | IllegalArgumentException e) {
      // Shutting down already, or never added.
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      // Left in the temporary directory.
    }
  }

  private void stopQuietly() {
    if (Files.exists(data.resolve("postmaster.pid"))) {
      try {
        kill();
      } catch (RuntimeException e) {
        // Already stopped.
      }
    }
  }

  private void pg(int timeoutSeconds, String tool, String... args) {
    List<String> command = new ArrayList<>();
    if (asRoot) {
      command.addAll(List.of("runuser", "-u", OS_USER, "--"));
    }
    command.add(bin.resolve(tool).toString());
    command.addAll(List.of(args));
    run(command, timeoutSeconds);
  }

  private static String run(List<String> command, int timeoutSeconds) {
    try {
      Process process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
              .start();
      byte[] output = process.getInputStream().readAllBytes();
      if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException("timed out after " + timeoutSeconds + " s: " + command);
      }
      String text = new String(output, StandardCharsets.UTF_8);
      if (process.exitValue() != 0) {
        throw new IllegalStateException(
            String.join(" ", command) + " exited with " + process.exitValue() + ":\n" + text);
      }
      return text;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + command, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static Path binaries() {
    String configured = System.getProperty("firn.test.pg.bin");
    if (configured != null && !configured.isBlank()) {
      return Path.of(configured);
    }
    Path root = Path.of("/usr/lib/postgresql");
    if (Files.isDirectory(root)) {
      try (Stream<Path> versions = Files.list(root)) {
        Path newest =
            versions
                .map(v -> v.resolve("bin"))
                .filter(b -> Files.isExecutable(b.resolve("initdb")))
                .max(Comparator.comparing(PostgresInstance::version))
                .orElse(null);
        if (newest != null) {
          return newest;
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    throw new IllegalStateException(
        "no PostgreSQL binaries: install the postgresql package (initdb and pg_ctl under"
            + " /usr/lib/postgresql/<version>/bin) or set -Dfirn.test.pg.bin");
  }

  private static int version(Path bin) {
    try {
      return Integer.parseInt(bin.getParent().getFileName().toString());
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
