/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.core.catalog.CatalogSettings;
import io.firn.core.catalog.Catalogs;
import java.io.Closeable;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.hive.HiveCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16: tables of a Hive Metastore (Hive 2.3 with Derby, its own JVM on 127.0.0.1) are
 * optimized by {@code firn optimize --catalog-uri thrift://...} (type inferred) and by the server
 * with a {@code type: hive} catalog, rows unchanged ({@link CatalogRoundTrip}). Every commit takes
 * the metastore's lock, as with any Hive catalog.
 */
class HiveCatalogIT {
  @Test
  void tablesOfAHiveMetastoreAreOptimizedByTheCliAndTheServerWithRowsUnchanged(@TempDir Path dir)
      throws Exception {
    try (HiveMetastoreProcess metastore = new HiveMetastoreProcess(dir)) {
      String warehouse = dir.resolve("warehouse").toUri().toString();
      Catalog writer =
          Catalogs.connect(
              new CatalogSettings("lake", "hive", metastore.uri(), warehouse, Map.of()));
      assertThat(writer).isInstanceOf(HiveCatalog.class);
      // An independent client, built by Iceberg directly (not through Firn's settings).
      Catalog reader =
          CatalogUtil.buildIcebergCatalog(
              "reader",
              Map.of("type", "hive", "uri", metastore.uri(), "warehouse", warehouse),
              new Configuration());
      CatalogRoundTrip.run(
          dir,
          writer,
          reader,
          "hive",
          List.of("--catalog-uri", metastore.uri(), "--warehouse", warehouse),
          """
            - name: lake
              type: hive
              uri: "%s"
              warehouse: "%s"
          """
              .formatted(metastore.uri(), warehouse));
      ((Closeable) reader).close();
      ((Closeable) writer).close();
    }
  }
}
