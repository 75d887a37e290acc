/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.testkit;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The object-storage case of the worker runtimes' tests (issue 16, ADR 0024 §10): S3Proxy with a
 * bucket, two CDC tables at {@code s3://firn/wh/db/…} written by the generator with equality and
 * position deletes (a partitioned one, and an unpartitioned one with a schema change), and the
 * optimizer server on them (not started: {@code server().start(…)}). {@link #verify} then reads the
 * rows back through the catalog with Iceberg's generic reader.
 */
public final class S3Lake implements AutoCloseable {
  public static final String WAREHOUSE = "s3://firn/wh";

  private final S3ProxyProcess s3;
  private final ServerProcess server;
  private final Map<String, GeneratedTable> tables = new LinkedHashMap<>();
  private final Map<String, Integer> filesBefore = new LinkedHashMap<>();

  public S3Lake(Path dir) throws IOException, InterruptedException {
    s3 = new S3ProxyProcess(dir.resolve("s3"));
    try {
      s3.createBucket("firn");
      server = ServerProcess.onS3(dir.resolve("server"), s3, WAREHOUSE);
      tables.put(
          "events",
          server.generate(
              "db", "events", new CdcTableSpec(3_000, 12, 0.1, 0.05, 0.05, 2, 16L, false, false)));
      tables.put(
          "orders",
          server.generate(
              "db", "orders", new CdcTableSpec(1_500, 14, 0.05, 0.02, 0.02, 0, 17L, true, false)));
      for (String name : tables.keySet()) {
        filesBefore.put(name, RowSets.liveFiles(table(name)).size());
      }
    } catch (IOException | RuntimeException e) {
      s3.close();
      throw e;
    }
  }

  /**
   * Entries of a jar that runs {@code S3FileIO} without jars of its own on a cluster: the SDK's S3,
   * STS (web identity, assumed roles) and KMS (loaded by Iceberg's {@code AwsProperties}) clients
   * and the JDK-based HTTP client, the one Firn ships (ADR 0024 §1).
   */
  public static final List<String> SDK_CLASSES =
      List.of(
          "software/amazon/awssdk/services/s3/S3Client.class",
          "software/amazon/awssdk/services/sts/StsClient.class",
          "software/amazon/awssdk/services/kms/model/EncryptionAlgorithmSpec.class",
          "software/amazon/awssdk/http/urlconnection/UrlConnectionHttpClient.class");

  /** Iceberg's {@code S3FileIO} as a jar entry. */
  public static final String S3_FILE_IO_CLASS = "org/apache/iceberg/aws/s3/S3FileIO.class";

  /**
   * The jar {@code mvn package} leaves in the module's {@code target/} (tests run in the module's
   * directory), e.g. {@code builtJar("firn-worker-flink", "job")}; the version from the system
   * property {@code firn.version}.
   */
  public static Path builtJar(String artifact, String classifier) {
    return Path.of(
        "target",
        artifact
            + "-"
            + System.getProperty("firn.version", "0.1.0-SNAPSHOT")
            + "-"
            + classifier
            + ".jar");
  }

  /** The entries of {@code jar} that it lacks, of {@code entries}. */
  public static List<String> missing(Path jar, List<String> entries) throws IOException {
    try (ZipFile zip = new ZipFile(jar.toFile())) {
      return entries.stream().filter(e -> zip.getEntry(e) == null).toList();
    }
  }

  public ServerProcess server() {
    return server;
  }

  /** The tables' names: {@code db.events}, {@code db.orders}. */
  public List<String> tables() {
    return tables.keySet().stream().map(name -> "db." + name).toList();
  }

  /**
   * Waits until every table is optimized and the server settled ({@link ServerProcess#pending}).
   *
   * @throws AssertionError with what is still pending after {@code timeout}
   */
  public void awaitOptimized(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    String pending;
    while ((pending = server.pending(tables())) != null) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not optimized after " + timeout + ": " + pending);
      }
      Thread.sleep(500);
    }
  }

  /**
   * Checks every table: its rows, read back from S3 through the catalog, are the generator's; it
   * has fewer live files than before; all of them are under its location in the bucket; and the
   * server's workers are all of {@code engine}.
   *
   * @throws AssertionError naming the table and what differs
   */
  public void verify(String engine) {
    for (Map<String, Object> worker : server.list("/workers")) {
      if (!engine.equals(worker.get("engine"))) {
        throw new AssertionError("a worker not of " + engine + ": " + worker);
      }
    }
    for (Map.Entry<String, GeneratedTable> entry : tables.entrySet()) {
      Table table = table(entry.getKey());
      Map<String, Long> expected =
          RowSets.of(entry.getValue().writer().expected().values(), table.schema());
      if (!RowSets.read(table).equals(expected)) {
        throw new AssertionError("the rows of " + table.name() + " differ from the generator's");
      }
      List<String> files = RowSets.liveFiles(table);
      int before = filesBefore.get(entry.getKey());
      if (files.size() >= before) {
        throw new AssertionError(
            table.name() + " has " + files.size() + " live files, " + before + " before");
      }
      String location = WAREHOUSE + "/db/" + entry.getKey() + "/";
      for (String file : files) {
        if (!file.startsWith(location)) {
          throw new AssertionError(file + " is not under " + location);
        }
      }
    }
  }

  private Table table(String name) {
    return server.catalog.loadTable(TableIdentifier.of("db", name));
  }

  @Override
  public void close() throws IOException {
    try {
      server.close();
    } finally {
      s3.close();
    }
  }
}
