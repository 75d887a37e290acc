/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.bench;

import io.firn.core.catalog.CatalogSettings;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;

/** The catalog of the scale benchmarks and the names of its tables. */
final class ScaleCatalogs {
  static final String NAME = "scale";

  private ScaleCatalogs() {}

  /**
   * The settings the server would be configured with: {@code --catalog-uri}, {@code --warehouse},
   * {@code --jdbc-user} for PostgreSQL, and the table FileIO ({@code --io hadoop}, Iceberg's
   * default, or {@code --io local}, Firn's {@code LocalFileIO}).
   */
  static CatalogSettings settings(BenchArgs a) {
    Map<String, String> properties = new HashMap<>();
    String user = a.get("jdbc-user", "");
    if (!user.isEmpty()) {
      properties.put("jdbc.user", user);
    }
    if (a.get("io", "hadoop").equals("local")) {
      properties.put("io-impl", "io.firn.core.io.LocalFileIO");
    }
    return new CatalogSettings(NAME, "jdbc", a.get("catalog-uri"), a.get("warehouse"), properties);
  }

  /** A catalog for writing tables: the same catalog, always through {@code LocalFileIO}. */
  static Catalog writer(BenchArgs a) {
    Map<String, String> properties = new HashMap<>(settings(a).icebergProperties());
    properties.put("io-impl", "io.firn.core.io.LocalFileIO");
    return CatalogUtil.buildIcebergCatalog(NAME, properties, new Configuration());
  }

  static String namespace(int index) {
    return String.format(Locale.ROOT, "ns_%03d", index);
  }

  /** Table {@code index} of {@code namespaces} namespaces, spread round-robin. */
  static TableIdentifier table(int index, int namespaces) {
    return TableIdentifier.of(
        namespace(index % namespaces), String.format(Locale.ROOT, "t_%05d", index));
  }
}
