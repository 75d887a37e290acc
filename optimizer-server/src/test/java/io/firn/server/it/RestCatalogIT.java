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
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16: tables of a REST catalog (Iceberg's REST catalog servlet on 127.0.0.1, backed by a JDBC
 * catalog on SQLite) are optimized by {@code firn optimize --catalog-type rest} and by the server
 * with a {@code type: rest} catalog, rows unchanged ({@link CatalogRoundTrip}).
 */
class RestCatalogIT {
  @Test
  void tablesOfARestCatalogAreOptimizedByTheCliAndTheServerWithRowsUnchanged(@TempDir Path dir)
      throws Exception {
    try (RestCatalogServer rest = new RestCatalogServer(dir)) {
      Catalog writer =
          Catalogs.connect(new CatalogSettings("lake", "rest", rest.uri(), null, Map.of()));
      assertThat(writer).isInstanceOf(RESTCatalog.class);
      // An independent client, built by Iceberg directly (not through Firn's settings).
      Catalog reader =
          CatalogUtil.buildIcebergCatalog(
              "reader", Map.of("type", "rest", "uri", rest.uri()), new Configuration());
      CatalogRoundTrip.run(
          dir,
          writer,
          reader,
          "rest",
          List.of("--catalog-type", "rest", "--catalog-uri", rest.uri()),
          """
            - name: lake
              type: rest
              uri: "%s"
          """
              .formatted(rest.uri()));
      ((Closeable) reader).close();
      ((Closeable) writer).close();
    }
  }
}
