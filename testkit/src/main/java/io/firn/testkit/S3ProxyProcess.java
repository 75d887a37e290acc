/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.testkit;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.LegacyMd5Plugin;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * S3Proxy with its filesystem blob store, in its own JVM on 127.0.0.1 (its Jetty and Guice stay off
 * the test's classpath; ADR 0024). The jar is {@code target/s3proxy/s3proxy.jar} of the module that
 * runs the test, copied there by its build (execution {@code copy-s3proxy} of the parent pom's
 * dependency plugin). Objects are files under {@link #blobs()}, so a test can age them: the store
 * reports a file's modification time as the object's last-modified time.
 */
public final class S3ProxyProcess implements AutoCloseable {
  public static final String ACCESS_KEY = "firn-it";
  public static final String SECRET_KEY = "firn-it-secret-key";
  public static final String REGION = "us-east-1";

  /**
   * The AWS SDK's JVM-wide request-checksum setting: S3Proxy, like many S3-compatible stores,
   * refuses the SDK's default streaming checksums (README, object storage). Set to {@code
   * when_required} while a store runs, restored by {@link #close()}.
   */
  public static final String CHECKSUMS = "aws.requestChecksumCalculation";

  /** System property naming the S3Proxy jar, when it is not the module's copy under target/. */
  public static final String JAR_PROPERTY = "firn.s3proxy.jar";

  private final Path dir;
  private final int port;
  private final Process process;
  private final S3Client client;
  private final String previousChecksums;

  public S3ProxyProcess(Path dir) throws IOException, InterruptedException {
    this.dir = dir;
    this.previousChecksums = System.setProperty(CHECKSUMS, "when_required");
    Path jar =
        Path.of(System.getProperty(JAR_PROPERTY, "target/s3proxy/s3proxy.jar")).toAbsolutePath();
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          "the S3Proxy jar "
              + jar
              + " is missing: the build of a module that runs S3Proxy copies it there in"
              + " pre-integration-test (mvn verify), or -D"
              + JAR_PROPERTY
              + " names it");
    }
    Files.createDirectories(blobs());
    port = ChildProcesses.freePort();
    Path properties = dir.resolve("s3proxy.properties");
    Files.writeString(
        properties,
        String.join(
            "\n",
            "s3proxy.endpoint=http://127.0.0.1:" + port,
            "s3proxy.authorization=aws-v2-or-v4",
            "s3proxy.identity=" + ACCESS_KEY,
            "s3proxy.credential=" + SECRET_KEY,
            "jclouds.provider=filesystem",
            "jclouds.filesystem.basedir=" + blobs(),
            ""));
    process =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-jar",
                jar.toString(),
                "--properties",
                properties.toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("s3proxy.log").toFile())
            .start();
    ChildProcesses.awaitListening(process, port, dir.resolve("s3proxy.log"), "S3Proxy", 60);
    client =
        S3Client.builder()
            .endpointOverride(URI.create(endpoint()))
            .region(Region.of(REGION))
            .forcePathStyle(true)
            .credentialsProvider(
                StaticCredentialsProvider.create(
                    AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
            .httpClient(UrlConnectionHttpClient.create())
            .addPlugin(LegacyMd5Plugin.create())
            .build();
  }

  public String endpoint() {
    return "http://127.0.0.1:" + port;
  }

  /**
   * The catalog properties that reach this store: path-style, static keys, a region, and the legacy
   * MD5 checksums (S3Proxy refuses the SDK's streaming checksums, as many S3-compatible stores do).
   */
  public Map<String, String> catalogProperties() {
    return Map.of(
        "s3.endpoint",
        endpoint(),
        "s3.path-style-access",
        "true",
        "s3.access-key-id",
        ACCESS_KEY,
        "s3.secret-access-key",
        SECRET_KEY,
        "client.region",
        REGION,
        "client.legacy-md5-plugin-enabled",
        "true");
  }

  public Path blobs() {
    return dir.resolve("blobs");
  }

  public void createBucket(String bucket) {
    client.createBucket(b -> b.bucket(bucket));
  }

  public void put(String bucket, String key, byte[] bytes) {
    client.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromBytes(bytes));
  }

  /**
   * Puts a small object under each key, last modified at {@code modified} (orphans a test plants
   * for orphan cleanup); the i-th holds {@code "orphan i"} repeated 100 × (i + 1) times.
   *
   * @return the bytes of all of them
   */
  public long plant(String bucket, List<String> keys, Instant modified) throws IOException {
    long bytes = 0;
    for (int i = 0; i < keys.size(); i++) {
      byte[] body = ("orphan " + i).repeat(100 * (i + 1)).getBytes(StandardCharsets.UTF_8);
      put(bucket, keys.get(i), body);
      age(bucket, keys.get(i), modified);
      bytes += body.length;
    }
    return bytes;
  }

  /** What {@link #plantOrphans} put: the old orphans, their bytes, and the young one. */
  public record Orphans(List<String> old, long oldBytes, String young) {}

  /**
   * Plants what a dead writer leaves under a table, for orphan cleanup: three orphans two days old
   * (a data file, a manifest, a file at the table's root; {@link #plant}) and a young data file, as
   * one still being written.
   *
   * @param tableKey the table's key prefix in the bucket, ending with {@code /}
   * @param dataDir the directory of the old data file below the table, ending with {@code /}
   *     ({@code data/} or a partition's)
   */
  public Orphans plantOrphans(String bucket, String tableKey, String dataDir) throws IOException {
    List<String> old =
        List.of(
            tableKey + dataDir + "00000-0-orphan-of-a-dead-writer.parquet",
            tableKey + "metadata/orphan-manifest.avro",
            tableKey + "orphan-at-the-root.txt");
    long bytes = plant(bucket, old, Instant.now().minus(Duration.ofDays(2)));
    String young = tableKey + "data/young-orphan.parquet";
    put(bucket, young, "in flight".getBytes(StandardCharsets.UTF_8));
    return new Orphans(old, bytes, young);
  }

  /** Every key of a bucket with the given prefix. */
  public List<String> keys(String bucket, String prefix) {
    return client.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix)).contents().stream()
        .map(o -> o.key())
        .toList();
  }

  /** Sets the last-modified time of objects: every file under {@code bucket/prefix}. */
  public void age(String bucket, String prefix, Instant modified) throws IOException {
    Path root = blobs().resolve(bucket).resolve(prefix);
    try (var files = Files.walk(root)) {
      for (Path file : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
        Files.setLastModifiedTime(file, FileTime.from(modified));
      }
    }
  }

  @Override
  public void close() {
    if (previousChecksums == null) {
      System.clearProperty(CHECKSUMS);
    } else {
      System.setProperty(CHECKSUMS, previousChecksums);
    }
    client.close();
    ChildProcesses.stop(process, "S3Proxy");
  }
}
