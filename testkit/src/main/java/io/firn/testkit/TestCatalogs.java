/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.testkit;

import java.nio.file.Path;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.hadoop.HadoopCatalog;

/** Catalogs of tests over real tables on local disk. */
public final class TestCatalogs {
  private TestCatalogs() {}

  /** A Hadoop catalog named {@code test} with its warehouse in the given directory. */
  public static HadoopCatalog hadoop(Path warehouse) {
    HadoopCatalog catalog = new HadoopCatalog();
    catalog.setConf(new Configuration());
    catalog.initialize("test", Map.of("warehouse", warehouse.toUri().toString()));
    return catalog;
  }
}
