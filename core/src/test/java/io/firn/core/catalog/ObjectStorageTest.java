/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Firn's S3FileIO defaults and the connect-time check of the object storage (ADR 0024). The store
 * itself is tested end to end against S3Proxy in the server's {@code ObjectStorageIT}.
 */
class ObjectStorageTest {
  private static final String SECRET = "s3cr3t-never-printed";

  @Test
  void aJdbcCatalogOnS3ReadsThroughS3FileIOWithTheShippedHttpClient() {
    assertThat(jdbc("s3a://bucket/wh", Map.of()))
        .containsEntry("io-impl", ObjectStorage.S3_FILE_IO)
        .containsEntry("http-client.type", "urlconnection");
  }

  @Test
  void explicitPropertiesWinAndLocalWarehousesGetNoObjectStorageSettings() {
    assertThat(jdbc("s3://bucket/wh", Map.of("io-impl", "org.example.MyIO")))
        .containsEntry("io-impl", "org.example.MyIO")
        .doesNotContainKey("http-client.type");
    assertThat(jdbc("s3://bucket/wh", Map.of("http-client.type", "apache")))
        .containsEntry("http-client.type", "apache");
    assertThat(jdbc("/data/wh", Map.of()))
        .containsEntry("io-impl", "io.firn.core.io.LocalFileIO")
        .doesNotContainKey("http-client.type");
    // A REST catalog may hand out S3FileIO in its configuration.
    assertThat(
            new CatalogSettings("lake", "rest", "http://rest:8181", null, Map.of())
                .icebergProperties())
        .containsEntry("http-client.type", "urlconnection")
        .doesNotContainKey("io-impl");
  }

  @Test
  void anEndpointThatDoesNotAnswerFailsTheConnectionNamingCatalogAndEndpoint(@TempDir Path dir)
      throws IOException {
    Path catalogFile = Files.createFile(dir.resolve("catalog.db"));
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    CatalogSettings settings =
        onS3(
            catalogFile,
            Map.of(
                "s3.endpoint", "http://127.0.0.1:" + port,
                "s3.path-style-access", "true",
                "client.region", "us-east-1"));

    assertThatThrownBy(() -> Catalogs.connect(settings))
        .isInstanceOf(CatalogConnectionException.class)
        .hasMessageStartingWith(
            "catalog 'lake' (jdbc, jdbc:sqlite:"
                + catalogFile
                + ", warehouse s3://bucket/wh): the object storage of warehouse s3://bucket/wh"
                + " does not answer at s3.endpoint http://127.0.0.1:"
                + port
                + " (client.region us-east-1): ")
        .message()
        .doesNotContain(SECRET);
  }

  @Test
  void aMissingRegionIsNamedWithWhatToSet(@TempDir Path dir) throws IOException {
    Path catalogFile = Files.createFile(dir.resolve("catalog.db"));
    CatalogSettings settings = onS3(catalogFile, Map.of("s3.endpoint", "http://127.0.0.1:9"));
    // Neither the environment nor an instance's metadata service may lend a region here.
    String before = System.getProperty("aws.disableEc2Metadata");
    System.setProperty("aws.disableEc2Metadata", "true");
    try {
      assumeTrue(
          System.getenv("AWS_REGION") == null && System.getenv("AWS_DEFAULT_REGION") == null,
          "the environment names a region");
      assertThatThrownBy(() -> Catalogs.connect(settings))
          .isInstanceOf(CatalogConnectionException.class)
          .hasMessageContaining("does not answer at s3.endpoint http://127.0.0.1:9: ")
          .hasMessageEndingWith(
              "; set the catalog property client.region (any region name, e.g. us-east-1, for"
                  + " S3-compatible stores)");
    } finally {
      if (before == null) {
        System.clearProperty("aws.disableEc2Metadata");
      } else {
        System.setProperty("aws.disableEc2Metadata", before);
      }
    }
  }

  /** A SQLite catalog with warehouse s3://bucket/wh, static keys and the given properties. */
  private static CatalogSettings onS3(Path catalogFile, Map<String, String> properties) {
    Map<String, String> all = new HashMap<>(properties);
    all.put("s3.access-key-id", "firn");
    all.put("s3.secret-access-key", SECRET);
    return new CatalogSettings("lake", "jdbc", "jdbc:sqlite:" + catalogFile, "s3://bucket/wh", all);
  }

  /** The Iceberg properties of a SQLite JDBC catalog with this warehouse and properties. */
  private static Map<String, String> jdbc(String warehouse, Map<String, String> properties) {
    return new CatalogSettings("lake", "jdbc", "jdbc:sqlite:c.db", warehouse, properties)
        .icebergProperties();
  }
}
