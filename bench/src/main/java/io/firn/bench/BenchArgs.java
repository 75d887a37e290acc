/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.bench;

import java.util.HashMap;
import java.util.Map;

/** {@code --key value} arguments of the benchmark mains. */
final class BenchArgs {
  private final Map<String, String> values = new HashMap<>();

  BenchArgs(String[] args) {
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException("expected --key value pairs, got '" + args[i] + "'");
      }
      values.put(args[i].substring(2), args[++i]);
    }
  }

  String get(String key) {
    String value = values.get(key);
    if (value == null) {
      throw new IllegalArgumentException("missing --" + key);
    }
    return value;
  }

  String get(String key, String fallback) {
    return values.getOrDefault(key, fallback);
  }

  long getLong(String key, long fallback) {
    return values.containsKey(key) ? Long.parseLong(values.get(key)) : fallback;
  }

  /** Loads {@code --table} from the JDBC catalog at {@code --catalog-uri} / {@code --warehouse}. */
  org.apache.iceberg.Table loadTable() {
    io.firn.core.catalog.CatalogSettings settings =
        new io.firn.core.catalog.CatalogSettings(
            "bench",
            "jdbc",
            get("catalog-uri"),
            get("warehouse"),
            Map.of("jdbc.schema-version", "V1"));
    return io.firn.core.catalog.Catalogs.load(
        io.firn.core.catalog.Catalogs.connect(settings), get("table"));
  }

  double getDouble(String key, double fallback) {
    return values.containsKey(key) ? Double.parseDouble(values.get(key)) : fallback;
  }
}
