package io.firn.worker.flink;

import static org.awaitility.Awaitility.await;

import io.firn.testkit.CdcTableGenerator;
import io.firn.testkit.CdcTableSpec;
import io.firn.testkit.GeneratedTable;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;

/**
 * The optimizer server in a child JVM (its Dropwizard/Jetty/Jersey stack stays off the engine's
 * classpath), started from {@code optimizer-server/target} as {@code bin/firn server} does, on a
 * SQLite JDBC catalog and an H2 state store in a temporary directory. The test JVM opens the same
 * catalog to generate and read tables.
 */
final class ServerProcess implements AutoCloseable {
  static final String WORKER_TOKEN = "worker-secret";

  final Path dir;
  final JdbcCatalog catalog;
  private final int port;
  private final int adminPort;
  private Process process;

  ServerProcess() throws IOException {
    this.dir = Files.createTempDirectory("firn-worker-it");
    this.port = freePort();
    this.adminPort = freePort();
    this.catalog =
        (JdbcCatalog)
            CatalogUtil.buildIcebergCatalog(
                "lake",
                Map.of(
                    "type",
                    "jdbc",
                    "uri",
                    "jdbc:sqlite:" + dir.resolve("catalog.db"),
                    "warehouse",
                    dir.resolve("warehouse").toString()),
                new Configuration());
  }

  GeneratedTable generate(String namespace, String name, CdcTableSpec spec) {
    return CdcTableGenerator.generate(catalog, TableIdentifier.of(namespace, name), spec);
  }

  /** The server's base URL, e.g. {@code http://127.0.0.1:1234}. */
  String url() {
    return "http://127.0.0.1:" + port;
  }

  String api() {
    return url() + "/api/v1";
  }

  /**
   * Starts the server and waits until its API answers.
   *
   * @param optimizing the body of the {@code optimizing:} section, indented by two spaces
   */
  void start(String optimizing) throws IOException {
    String yaml =
        """
        catalogs:
          - name: lake
            type: jdbc
            uri: "jdbc:sqlite:%s"
            warehouse: "%s"
        policies:
          path: "%s"
        stateStore:
          url: "jdbc:h2:file:%s"
        watch:
          interval: 200ms
        optimizing:
        %s
        auth:
          workerToken: %s
          adminToken: admin-secret
        server:
          applicationConnectors:
            - type: http
              bindHost: 127.0.0.1
              port: %d
          adminConnectors:
            - type: http
              bindHost: 127.0.0.1
              port: %d
          requestLog:
            appenders: []
        logging:
          level: WARN
          loggers:
            io.firn: INFO
        """
            .formatted(
                dir.resolve("catalog.db"),
                dir.resolve("warehouse"),
                policy(),
                dir.resolve("state").resolve("firn"),
                optimizing.stripTrailing(),
                WORKER_TOKEN,
                port,
                adminPort);
    Path config = dir.resolve("firn-server.yaml");
    Files.writeString(config, yaml);
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx1g");
    command.add("-XX:+UseParallelGC");
    command.add("-cp");
    command.add(serverClasspath());
    command.add("io.firn.server.FirnServerApplication");
    command.add("server");
    command.add(config.toString());
    process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("server.log").toFile())
            .start();
    await()
        .atMost(2, TimeUnit.MINUTES)
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              if (!process.isAlive()) {
                throw new IllegalStateException(
                    "the server exited with "
                        + process.exitValue()
                        + "; its log:\n"
                        + Files.readString(dir.resolve("server.log")));
              }
              return Http.status(api() + "/tables") == 200;
            });
  }

  /**
   * The built-in policy's default group runs one task at a time; the workers here have several
   * slots, so the group gets room for them.
   */
  private Path policy() throws IOException {
    Path policy = dir.resolve("policy.yaml");
    Files.writeString(
        policy,
        """
        version: 1
        groups:
          default: {capacity: 8}
        defaults:
          group: default
        """);
    return policy;
  }

  /**
   * The jar and runtime classpath {@code mvn package} leaves in {@code optimizer-server/target}.
   */
  private static String serverClasspath() {
    Path home = Path.of(System.getProperty("firn.server.home", "../../optimizer-server/target"));
    String version = System.getProperty("firn.version", "0.1.0-SNAPSHOT");
    Path jar = home.resolve("firn-optimizer-server-" + version + ".jar");
    Path lib = home.resolve("lib");
    if (!Files.isRegularFile(jar) || !Files.isDirectory(lib)) {
      throw new IllegalStateException(
          "no server build in "
              + home.toAbsolutePath().normalize()
              + ": run 'mvn -pl optimizer-server -am package -DskipTests' first (the ITs start the"
              + " server from its jar and target/lib)");
    }
    // Not lib/*: target/lib holds slf4j-simple (from the executor) next to Logback, and Dropwizard
    // fails unless Logback is the SLF4J provider; a wildcard's order is the directory's.
    List<String> entries = new ArrayList<>();
    entries.add(jar.toString());
    try (Stream<Path> jars = Files.list(lib)) {
      jars.filter(p -> !p.getFileName().toString().startsWith("slf4j-simple-"))
          .sorted()
          .forEach(p -> entries.add(p.toString()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return String.join(File.pathSeparator, entries);
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  @Override
  public void close() throws IOException {
    try {
      if (process != null) {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
          process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      catalog.close();
    }
  }

  /** The server's log, for failure messages. */
  String log() {
    try {
      return Files.readString(dir.resolve("server.log"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
