/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.it.spark;

import org.apache.spark.sql.SparkSession;

/** The local Spark session of these tests, with an Iceberg JDBC catalog on an SQLite file. */
final class SparkSessions {
  private SparkSessions() {}

  /**
   * A local session whose Iceberg catalog {@code catalog} reads the JDBC catalog at {@code uri}
   * (schema version V1) with {@code warehouse}. The catalog name must be the writer's: the JDBC
   * catalog keys its tables by catalog name.
   */
  static SparkSession withJdbcCatalog(
      String appName, String catalog, String uri, String warehouse) {
    String prefix = "spark.sql.catalog." + catalog;
    return SparkSession.builder()
        .appName(appName)
        .master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "2")
        .config(prefix, "org.apache.iceberg.spark.SparkCatalog")
        .config(prefix + ".type", "jdbc")
        .config(prefix + ".uri", uri)
        .config(prefix + ".warehouse", warehouse)
        .config(prefix + ".jdbc.schema-version", "V1")
        // Every query loads the catalog's current metadata, not a table cached before another
        // writer's commits.
        .config(prefix + ".cache-enabled", "false")
        .getOrCreate();
  }
}
