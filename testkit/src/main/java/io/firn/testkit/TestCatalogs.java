/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.testkit;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
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
    return jdbc(
        SQLITE_CATALOG,
        "jdbc:sqlite:" + dir.resolve("catalog.db"),
        dir.resolve("warehouse").toString(),
        Map.of());
  }

  /**
   * A JDBC catalog, opened with Iceberg's own code.
   *
   * @param name the catalog's name: a JDBC catalog sees only the tables created under its name
   * @param properties further catalog properties ({@code jdbc.user}, {@code io-impl}), or none
   */
  public static JdbcCatalog jdbc(
      String name, String uri, String warehouse, Map<String, String> properties) {
    Map<String, String> all = new HashMap<>(properties);
    all.put("type", "jdbc");
    all.put("uri", uri);
    all.put("warehouse", warehouse);
    return (JdbcCatalog) CatalogUtil.buildIcebergCatalog(name, all, new Configuration());
  }

  /**
   * The table {@code db.t} generated from {@code spec} in a {@link #hadoop} catalog over {@code
   * warehouse}, loaded from the catalog.
   */
  public static Table hadoopTable(Path warehouse, CdcTableSpec spec) {
    HadoopCatalog catalog = hadoop(warehouse);
    TableIdentifier id = TableIdentifier.of("db", "t");
    CdcTableGenerator.generate(catalog, id, spec);
    return catalog.loadTable(id);
  }

  /** A Hadoop catalog named {@code test} with its warehouse in the given directory. */
  public static HadoopCatalog hadoop(Path warehouse) {
    HadoopCatalog catalog = new HadoopCatalog();
    catalog.setConf(new Configuration());
    catalog.initialize("test", Map.of("warehouse", warehouse.toUri().toString()));
    return catalog;
  }
}
