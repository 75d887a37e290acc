/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The catalog types and their keys (ADR 0025): what each requires, what is inferred from the URI,
 * what reaches Iceberg, and clear refusals.
 */
class CatalogSettingsTest {
  @Test
  void aCustomCatalogPassesItsClassAndNoType() {
    CatalogSettings settings =
        new CatalogSettings(
            "lake", "custom", "jdbc:sqlite:x.db", "/wh", Map.of("catalog-impl", "org.example.C"));
    assertThat(settings.icebergProperties())
        .doesNotContainKey("type")
        .containsEntry("catalog-impl", "org.example.C")
        .containsEntry("uri", "jdbc:sqlite:x.db");
  }

  @Test
  void aLocalWarehouseOfAJdbcOrHiveCatalogGoesThroughLocalFileIOUnlessNamedOtherwise() {
    String local = "io.firn.core.io.LocalFileIO";
    assertThat(
            new CatalogSettings("a", "jdbc", "jdbc:sqlite:x.db", "/wh", Map.of())
                .icebergProperties())
        .containsEntry("io-impl", local);
    assertThat(
            new CatalogSettings("a", "hive", "thrift://h:9083", "file:/wh", Map.of())
                .icebergProperties())
        .containsEntry("io-impl", local);
    assertThat(
            new CatalogSettings(
                    "a",
                    "jdbc",
                    "jdbc:sqlite:x.db",
                    "/wh",
                    Map.of("io-impl", "org.apache.iceberg.hadoop.HadoopFileIO"))
                .icebergProperties())
        .containsEntry("io-impl", "org.apache.iceberg.hadoop.HadoopFileIO");
    // A Hadoop catalog commits through Hadoop's file system; a relative warehouse is Hadoop's to
    // resolve; a REST catalog's server decides.
    assertThat(new CatalogSettings("a", "hadoop", null, "/wh", Map.of()).icebergProperties())
        .doesNotContainKey("io-impl");
    assertThat(
            new CatalogSettings("a", "jdbc", "jdbc:sqlite:x.db", "wh", Map.of())
                .icebergProperties())
        .doesNotContainKey("io-impl");
    assertThat(
            new CatalogSettings("a", "rest", "http://rest:8181", "/wh", Map.of())
                .icebergProperties())
        .doesNotContainKey("io-impl");
  }

  @Test
  void aCustomCatalogWithoutItsClassIsRefusedNamingTheProperty() {
    assertThatThrownBy(() -> new CatalogSettings("lake", "CUSTOM", null, null, Map.of()))
        .isInstanceOf(CatalogConnectionException.class)
        .hasMessageStartingWith("catalog 'lake' of type custom needs the property catalog-impl");
  }

  @Test
  void anUnknownTypeNamesTheTypesThereAre() {
    assertThatThrownBy(() -> new CatalogSettings("lake", "nessie", null, "/wh", Map.of()))
        .isInstanceOf(CatalogConnectionException.class)
        .hasMessage(
            "catalog 'lake': type 'nessie' is not one of jdbc, hadoop, rest, hive, glue, custom");
  }

  @Test
  void theTypeIsInferredFromTheUri() {
    assertThat(CatalogSettings.of("a", null, "jdbc:sqlite:x.db", "/wh", Map.of()).type())
        .isEqualTo("jdbc");
    assertThat(CatalogSettings.of("a", null, "https://rest.example/v1", null, Map.of()).type())
        .isEqualTo("rest");
    assertThat(CatalogSettings.of("a", null, "thrift://hms:9083", null, Map.of()).type())
        .isEqualTo("hive");
    assertThat(CatalogSettings.of("a", null, null, "/wh", Map.of()).type()).isEqualTo("hadoop");
    assertThatThrownBy(() -> CatalogSettings.of("a", null, "hms:9083", null, Map.of()))
        .hasMessageContaining("set the catalog type explicitly (one of jdbc, hadoop, rest, hive,");
  }

  @Test
  void aHiveCatalogNeedsMetastoreUrisAndPassesThem() {
    CatalogSettings hive =
        new CatalogSettings(
            "meta", "hive", "thrift://a:9083, thrift://b:9083", "s3://bucket/wh", Map.of());
    assertThat(hive.icebergProperties())
        .containsEntry("type", "hive")
        .containsEntry("uri", "thrift://a:9083, thrift://b:9083")
        .containsEntry("io-impl", ObjectStorage.S3_FILE_IO);
    assertThat(hive.toString())
        .isEqualTo(
            "catalog 'meta' (hive, thrift://a:9083, thrift://b:9083, warehouse s3://bucket/wh)");
    assertThatThrownBy(() -> new CatalogSettings("meta", "hive", null, null, Map.of()))
        .isInstanceOf(CatalogConnectionException.class)
        .hasMessageStartingWith(
            "catalog 'meta' of type hive needs a uri: the metastore's thrift://");
    assertThatThrownBy(
            () -> new CatalogSettings("meta", "hive", "thrift://a:9083,http://b", null, Map.of()))
        .hasMessage(
            "catalog 'meta' of type hive: uri 'http://b' is not a metastore address"
                + " thrift://host:port");
  }

  @Test
  void aGlueCatalogTakesNoUriAndGetsTheHttpClientFirnShips() {
    CatalogSettings glue =
        new CatalogSettings(
            "aws",
            "glue",
            null,
            "s3://bucket/wh",
            Map.of("client.region", "eu-west-1", "glue.id", "123456789012"));
    assertThat(glue.icebergProperties())
        .containsEntry("type", "glue")
        .containsEntry("warehouse", "s3://bucket/wh")
        .containsEntry("glue.id", "123456789012")
        .containsEntry("io-impl", ObjectStorage.S3_FILE_IO)
        .containsEntry("http-client.type", "urlconnection")
        .doesNotContainKey("uri");
    assertThat(glue.toString())
        .isEqualTo(
            "catalog 'aws' (glue, the AWS Glue endpoint of its region, region eu-west-1, catalog"
                + " id 123456789012, warehouse s3://bucket/wh)");
    assertThat(
            new CatalogSettings(
                    "aws", "glue", null, null, Map.of("glue.endpoint", "https://vpce.example"))
                .toString())
        .isEqualTo(
            "catalog 'aws' (glue, endpoint https://vpce.example, region from the environment (no"
                + " client.region set))");
    assertThatThrownBy(
            () -> new CatalogSettings("aws", "glue", "https://glue.example", null, Map.of()))
        .isInstanceOf(CatalogConnectionException.class)
        .hasMessageStartingWith("catalog 'aws' of type glue takes no uri")
        .hasMessageContaining("glue.endpoint");
  }

  @Test
  void aRestCatalogNeedsAUriAndNeverShowsAPasswordInIt() {
    assertThatThrownBy(() -> new CatalogSettings("r", "rest", null, null, Map.of()))
        .hasMessageStartingWith("catalog 'r' of type rest needs a uri");
    assertThat(
            new CatalogSettings(
                    "j", "jdbc", "jdbc:postgresql://db/x?password=hunter2", "/wh", Map.of())
                .toString())
        .isEqualTo("catalog 'j' (jdbc, jdbc:postgresql://db/x, warehouse /wh)");
  }
}
