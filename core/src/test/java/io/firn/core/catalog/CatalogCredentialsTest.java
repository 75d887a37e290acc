/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CatalogCredentialsTest {
  @TempDir Path dir;

  private static final CatalogSettings PG =
      new CatalogSettings(
          "lake",
          "jdbc",
          "jdbc:postgresql://db:5432/iceberg?user=firn&password=hunter2&ssl=true",
          "s3://bucket/warehouse",
          Map.of(
              "jdbc.user", "firn",
              "jdbc.password", "hunter2",
              "s3.access-key-id", "AKIA",
              "s3.secret-access-key", "shh",
              "s3.session-token", "tok",
              "credential", "client:secret",
              "io-impl", "org.apache.iceberg.aws.s3.S3FileIO"));

  @Test
  void withholdsEveryCredentialAndKeepsWhatReachesTheCatalog() {
    assertThat(CatalogCredentials.credentialKeys(PG))
        .containsExactly(
            "credential",
            "jdbc.password",
            "s3.access-key-id",
            "s3.secret-access-key",
            "s3.session-token",
            "uri (password=)");
    CatalogSettings withheld = CatalogCredentials.withoutCredentials(PG);
    assertThat(withheld.properties())
        .containsOnlyKeys("jdbc.user", "io-impl")
        .containsEntry("io-impl", "org.apache.iceberg.aws.s3.S3FileIO");
    assertThat(withheld.uri()).isEqualTo("jdbc:postgresql://db:5432/iceberg?user=firn&ssl=true");
    assertThat(withheld.warehouse()).isEqualTo(PG.warehouse());
    assertThat(CatalogCredentials.credentialKeys(withheld)).isEmpty();
    assertThat(
            CatalogCredentials.withoutCredentials(
                    new CatalogSettings(
                        "x", "jdbc", "jdbc:postgresql://h/db?password=p", "/w", Map.of()))
                .uri())
        .isEqualTo("jdbc:postgresql://h/db");
  }

  @Test
  void aWorkersOwnPropertiesComeFromItsFileAndWinOverTheServers() throws Exception {
    Path file = dir.resolve("catalogs.properties");
    Files.writeString(
        file, "lake.jdbc.password=from-worker\nlake.jdbc.user=worker\nother.token=not-for-lake\n");
    Map<String, String> local =
        CatalogCredentials.localProperties(Map.of(CatalogCredentials.ENV, file.toString()));
    CatalogSettings merged =
        CatalogCredentials.withLocal(CatalogCredentials.withoutCredentials(PG), local);
    assertThat(merged.properties())
        .containsEntry("jdbc.password", "from-worker")
        .containsEntry("jdbc.user", "worker")
        .doesNotContainKey("token")
        .doesNotContainKey("other.token");
    assertThat(CatalogCredentials.localProperties(Map.of())).isEmpty();
    assertThatThrownBy(
            () ->
                CatalogCredentials.localProperties(
                    Map.of(CatalogCredentials.ENV, dir.resolve("missing").toString())))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessageStartingWith("FIRN_CATALOG_PROPERTIES names " + dir.resolve("missing"));
  }
}
