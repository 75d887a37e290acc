/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.testkit;

import java.nio.file.Path;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.jdbc.JdbcCatalog;

/** Catalogs of tests over real tables on local disk. */
public final class TestCatalogs {
  /** The name of {@link #sqlite}'s catalog, as the servers' configurations name it. */
  public static final String SQLITE_CATALOG = "lake";

  private TestCatalogs() {}

  /**
   * The JDBC catalog {@code lake} on the SQLite file {@code dir/catalog.db}, warehouse {@code
   * dir/warehouse}: the catalog a test server is configured with ({@link
   * ServerConfig#sqliteCatalog}), opened with Iceberg's own code. Created empty when missing.
   */
  public static JdbcCatalog sqlite(Path dir) {
    return (JdbcCatalog)
        CatalogUtil.buildIcebergCatalog(
            SQLITE_CATALOG,
            Map.of(
                "type",
                "jdbc",
                "uri",
                "jdbc:sqlite:" + dir.resolve("catalog.db"),
                "warehouse",
                dir.resolve("warehouse").toString()),
            new Configuration());
  }

  /** A Hadoop catalog named {@code test} with its warehouse in the given directory. */
  public static HadoopCatalog hadoop(Path warehouse) {
    HadoopCatalog catalog = new HadoopCatalog();
    catalog.setConf(new Configuration());
    catalog.initialize("test", Map.of("warehouse", warehouse.toUri().toString()));
    return catalog;
  }
}
