package io.firn.server.it;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
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
 * the server's classpath; ADR 0024). The jar is {@code target/s3proxy/s3proxy.jar}, copied by the
 * build. Objects are files under {@link #blobs()}, so a test can age them: the store reports a
 * file's modification time as the object's last-modified time.
 */
final class S3ProxyProcess implements AutoCloseable {
  static final String ACCESS_KEY = "firn-it";
  static final String SECRET_KEY = "firn-it-secret-key";
  static final String REGION = "us-east-1";

  private final Path dir;
  private final int port;
  private final Process process;
  private final S3Client client;

  S3ProxyProcess(Path dir) throws IOException, InterruptedException {
    this.dir = dir;
    Path jar = Path.of("target", "s3proxy", "s3proxy.jar").toAbsolutePath();
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          jar + " is missing: the build copies it in pre-integration-test (run mvn verify)");
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

  String endpoint() {
    return "http://127.0.0.1:" + port;
  }

  /**
   * The catalog properties that reach this store: path-style, static keys, a region, and the legacy
   * MD5 checksums (S3Proxy refuses the SDK's streaming checksums, as many S3-compatible stores do).
   */
  Map<String, String> catalogProperties() {
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

  Path blobs() {
    return dir.resolve("blobs");
  }

  void createBucket(String bucket) {
    client.createBucket(b -> b.bucket(bucket));
  }

  void put(String bucket, String key, byte[] bytes) {
    client.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromBytes(bytes));
  }

  /** Every key of a bucket with the given prefix. */
  List<String> keys(String bucket, String prefix) {
    return client.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix)).contents().stream()
        .map(o -> o.key())
        .toList();
  }

  /** Sets the last-modified time of objects: every file under {@code bucket/prefix}. */
  void age(String bucket, String prefix, Instant modified) throws IOException {
    Path root = blobs().resolve(bucket).resolve(prefix);
    try (var files = Files.walk(root)) {
      for (Path file : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
        Files.setLastModifiedTime(file, FileTime.from(modified));
      }
    }
  }

  @Override
  public void close() {
    client.close();
    ChildProcesses.stop(process, "S3Proxy");
  }
}
