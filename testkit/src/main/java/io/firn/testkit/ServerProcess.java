/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.testkit;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The optimizer server in a child JVM (its Dropwizard/Jetty/Jersey stack stays off an engine's
 * classpath), started from {@code optimizer-server/target} as {@code bin/firn server} does, on a
 * SQLite JDBC catalog and an H2 state store in a directory. The warehouse is local ({@code
 * dir/warehouse}) or on an S3-compatible store ({@link #onS3}). The test JVM opens the same catalog
 * with Iceberg's own code ({@code CatalogUtil}, not Firn's) to generate and read tables.
 *
 * <p>The server's jar and {@code lib/} are found under the system property {@code firn.server.home}
 * ({@code optimizer-server/target}), its version under {@code firn.version}.
 */
public final class ServerProcess implements AutoCloseable {
  public static final String WORKER_TOKEN = ServerConfig.WORKER_TOKEN;

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  /**
   * A policy that optimizes a partition from 4 files on (8 MiB target size), expires snapshots
   * every 2 s and cleans orphans hourly (that is, once, soon after the start); with {@link
   * #QUICK_MAINTENANCE}.
   */
  public static final String MAINTAINING_POLICY =
      """
      version: 1
      groups:
        default: {capacity: 4}
      defaults:
        group: default
        thresholds:
          target-size: 8MiB
          minor.trigger.file-count: 4
        minor: {enabled: true}
        major: {enabled: true}
        full: {enabled: false}
        expire-snapshots: {enabled: true, interval: 2s}
        orphan-files: {enabled: true, interval: 1h}
      rules: []
      """;

  /**
   * The server's {@code maintenance:} section for {@link #MAINTAINING_POLICY}: snapshots older than
   * 1 s expire down to one; files not referenced and older than 1 h (the least allowed) are
   * orphans.
   */
  public static final String QUICK_MAINTENANCE =
      """
      maintenance:
        expire-snapshots.max-age: 1s
        expire-snapshots.retain-last: 1
        orphan-files.min-age: 1h
      """;

  public final Path dir;
  public final Catalog catalog;
  private final String warehouse;
  private final Map<String, String> storage;
  private final int port;
  private final int adminPort;
  private String policy =
      """
      version: 1
      groups:
        default: {capacity: 8}
      defaults:
        group: default
      """;
  private String sections = "";
  private Process process;

  /** On a local warehouse in a new temporary directory. */
  public ServerProcess() throws IOException {
    this(Files.createTempDirectory("firn-worker-it"));
  }

  /** On a catalog, a local warehouse and state in {@code dir} (created when missing). */
  public ServerProcess(Path dir) throws IOException {
    this(dir, dir.resolve("warehouse").toString(), Map.of());
  }

  private ServerProcess(Path dir, String warehouse, Map<String, String> storage)
      throws IOException {
    this.dir = Files.createDirectories(dir);
    this.warehouse = warehouse;
    this.storage = new TreeMap<>(storage);
    this.port = ChildProcesses.freePort();
    this.adminPort = ChildProcesses.freePort();
    Map<String, String> properties = new HashMap<>(storage);
    properties.put("type", "jdbc");
    properties.put("uri", "jdbc:sqlite:" + dir.resolve("catalog.db"));
    properties.put("warehouse", warehouse);
    if (!storage.isEmpty()) {
      properties.put("io-impl", "org.apache.iceberg.aws.s3.S3FileIO");
      properties.put("http-client.type", "urlconnection");
    }
    this.catalog = CatalogUtil.buildIcebergCatalog("lake", properties, new Configuration());
  }

  /**
   * On a warehouse in a bucket of {@code s3} (e.g. {@code s3://firn/wh}; the bucket must exist):
   * the server gets the store's catalog properties and the SDK's checksum setting the store needs
   * ({@link S3ProxyProcess#CHECKSUMS}), as an operator configures them.
   */
  public static ServerProcess onS3(Path dir, S3ProxyProcess s3, String warehouse)
      throws IOException {
    return new ServerProcess(dir, warehouse, s3.catalogProperties());
  }

  public GeneratedTable generate(String namespace, String name, CdcTableSpec spec) {
    return CdcTableGenerator.generate(catalog, TableIdentifier.of(namespace, name), spec);
  }

  /** The server's base URL, e.g. {@code http://127.0.0.1:1234}. */
  public String url() {
    return "http://127.0.0.1:" + port;
  }

  public String api() {
    return url() + "/api/v1";
  }

  /**
   * The policy file's YAML for the next {@link #start}. The default gives the default group room
   * for 8 tasks (the built-in policy runs one at a time).
   */
  public ServerProcess policy(String yaml) {
    this.policy = yaml;
    return this;
  }

  /**
   * Top-level sections added to the next {@link #start}'s configuration (e.g. {@code
   * maintenance:}), each line ending with a newline.
   */
  public ServerProcess sections(String yaml) {
    this.sections = yaml;
    return this;
  }

  /**
   * Starts the server on every table and waits until its API answers.
   *
   * @param optimizing the body of the {@code optimizing:} section, indented by two spaces
   */
  public void start(String optimizing) throws IOException {
    start(optimizing, "*", "firn");
  }

  /**
   * Starts the server on the given tables only, with a state store of the given name, and waits
   * until its API answers.
   */
  public void start(String optimizing, String include, String state) throws IOException {
    Path policyFile = dir.resolve("policy.yaml");
    Files.writeString(policyFile, policy);
    String catalogs =
        ServerConfig.jdbcCatalog(
            "lake", "jdbc:sqlite:" + dir.resolve("catalog.db"), warehouse, storage);
    Path config =
        new ServerConfig(catalogs, "jdbc:h2:file:" + dir.resolve("state").resolve(state))
            .optimizing(optimizing)
            .sections(
                """
                tables:
                  include: ["%s"]
                policies:
                  path: "%s"
                """
                        .formatted(include, policyFile)
                    + sections)
            .tokens(WORKER_TOKEN, ServerConfig.ADMIN_TOKEN)
            .ports("127.0.0.1", port, adminPort)
            .write(dir.resolve("firn-server.yaml"));
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx1g");
    command.add("-XX:+UseParallelGC");
    command.add("-cp");
    command.add(serverClasspath());
    command.add("io.firn.server.FirnServerApplication");
    command.add("server");
    command.add(config.toString());
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("server.log").toFile());
    if (!storage.isEmpty()) {
      // What the README tells operators of stores that refuse the SDK's streaming checksums.
      builder.environment().put("AWS_REQUEST_CHECKSUM_CALCULATION", "when_required");
    }
    process = builder.start();
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (status(api() + "/tables") != 200) {
      if (!process.isAlive() || System.nanoTime() > deadline) {
        String log = log();
        stop();
        throw new IllegalStateException("the server did not start; its log:\n" + log);
      }
      sleep(200);
    }
  }

  /** The JSON list a GET of an API path answers, e.g. {@code list("/tables")}. */
  public List<Map<String, Object>> list(String path) {
    try {
      HttpResponse<String> response =
          HTTP.send(
              HttpRequest.newBuilder(URI.create(api() + path))
                  .timeout(Duration.ofSeconds(60))
                  .GET()
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IllegalStateException(
            "GET " + path + " answered " + response.statusCode() + ": " + response.body());
      }
      return JSON.readValue(response.body(), new TypeReference<>() {});
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * What keeps the server's tables from being optimized and settled, or null when every table is
   * idle with nothing to plan and each of {@code tables} ({@code namespace.table}) has processes,
   * all succeeded.
   */
  public String pending(Collection<String> tables) {
    for (Map<String, Object> state : list("/tables")) {
      if (!"idle".equals(state.get("status")) || !Boolean.FALSE.equals(state.get("needsPlan"))) {
        return "not settled: " + state;
      }
    }
    for (String table : tables) {
      List<Map<String, Object>> processes = list("/processes?table=lake." + table);
      if (processes.isEmpty()) {
        return "no process of " + table + " yet";
      }
      for (Map<String, Object> process : processes) {
        if (!"succeeded".equals(process.get("status"))) {
          return "a process of " + table + " did not succeed: " + process;
        }
      }
    }
    return null;
  }

  /** The status of a GET, or -1 when nothing answers. */
  private static int status(String url) {
    try {
      return HTTP.send(
              HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).GET().build(),
              HttpResponse.BodyHandlers.discarding())
          .statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
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

  /** Stops the server; the catalog stays open. */
  public void stop() {
    if (process != null) {
      ChildProcesses.stop(process, "the optimizer server");
      process = null;
    }
  }

  @Override
  public void close() throws IOException {
    try {
      stop();
    } finally {
      if (catalog instanceof Closeable closeable) {
        closeable.close();
      }
    }
  }

  /** The server's log, for failure messages. */
  public String log() {
    try {
      return Files.readString(dir.resolve("server.log"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
