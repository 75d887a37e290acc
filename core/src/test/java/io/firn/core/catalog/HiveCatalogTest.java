/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/**
 * The hive catalog type's client side (ADR 0025); the round trip against a real metastore is {@code
 * HiveCatalogIT} in the server module.
 */
class HiveCatalogTest {
  @Test
  void anUnreachableMetastoreFailsAtConnectNamingCatalogAndUri() throws Exception {
    int closed = LoopbackPorts.closed();
    String uri = "thrift://127.0.0.1:" + closed;
    CatalogSettings settings = new CatalogSettings("meta", null, uri, "/wh", Map.of());
    assertThat(settings.type()).isEqualTo("hive");

    long start = System.nanoTime();
    assertThatThrownBy(() -> Catalogs.connect(settings))
        .isInstanceOf(CatalogConnectionException.class)
        .hasMessageStartingWith(
            "cannot connect to catalog 'meta' (hive, " + uri + ", warehouse /wh): ")
        .hasMessageContaining("Connection refused");
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .as("Hive's connection attempts (hive.metastore.connect.retries, 3 by default, 1 s apart)")
        .isLessThan(Duration.ofSeconds(10));
  }

  @Test
  void hivePropertiesReachTheMetastoreClientsConfiguration() {
    CatalogSettings settings =
        new CatalogSettings(
            "meta",
            "hive",
            "thrift://hms:9083",
            null,
            Map.of("hive.metastore.sasl.enabled", "true", "io-impl", "x.Y"));
    Configuration conf = Catalogs.hadoopConfiguration(settings);
    assertThat(conf.get("hive.metastore.sasl.enabled")).isEqualTo("true");
    assertThat(conf.get("io-impl")).isNull();
    assertThat(
            Catalogs.hadoopConfiguration(
                    new CatalogSettings(
                        "j", "jdbc", "jdbc:sqlite:x.db", "/wh", Map.of("hive.x", "1")))
                .get("hive.x"))
        .as("only a hive catalog's")
        .isNull();
  }
}
