/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.bench.spark;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Command line of {@link SparkBaseline}.
 *
 * @param catalogUri JDBC URI of the Iceberg JDBC catalog, e.g. {@code jdbc:sqlite:/tmp/catalog.db}
 * @param warehouse warehouse location of that catalog
 * @param table table identifier inside the catalog, {@code namespace.table}
 * @param out file the JSON result is written to
 * @param threads Spark local threads ({@code local[threads]})
 * @param rewriteOptions extra options for {@code rewriteDataFiles}; they override the defaults
 */
public record BaselineOptions(
    String catalogUri,
    String warehouse,
    String table,
    Path out,
    int threads,
    Map<String, String> rewriteOptions) {

  static final String USAGE =
      "usage: SparkBaseline --catalog-uri jdbc:sqlite:/path/catalog.db --warehouse /path/wh"
          + " --table ns.t --out result.json [--threads N] [--rewrite-option key=value]...";

  public BaselineOptions {
    require("--catalog-uri", catalogUri);
    require("--warehouse", warehouse);
    require("--table", table);
    if (out == null) {
      throw new IllegalArgumentException("Missing option --out; " + USAGE);
    }
    if (table.split("\\.", -1).length < 2 || table.startsWith(".") || table.endsWith(".")) {
      throw new IllegalArgumentException(
          "Option --table must be namespace.table, got '" + table + "'");
    }
    if (threads < 1) {
      throw new IllegalArgumentException("Option --threads must be at least 1, got " + threads);
    }
    rewriteOptions = Collections.unmodifiableMap(new LinkedHashMap<>(rewriteOptions));
  }

  /** Parses {@code args}; throws {@link IllegalArgumentException} naming the offending option. */
  public static BaselineOptions parse(String... args) {
    String catalogUri = null;
    String warehouse = null;
    String table = null;
    Path out = null;
    int threads = Runtime.getRuntime().availableProcessors();
    Map<String, String> rewriteOptions = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      String name = args[i];
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException("Option " + name + " needs a value; " + USAGE);
      }
      String value = args[++i];
      switch (name) {
        case "--catalog-uri" -> catalogUri = value;
        case "--warehouse" -> warehouse = value;
        case "--table" -> table = value;
        case "--out" -> out = Path.of(value);
        case "--threads" -> threads = parseThreads(value);
        case "--rewrite-option" -> {
          int eq = value.indexOf('=');
          if (eq <= 0) {
            throw new IllegalArgumentException(
                "Option --rewrite-option must be key=value, got '" + value + "'");
          }
          rewriteOptions.put(value.substring(0, eq), value.substring(eq + 1));
        }
        default -> throw new IllegalArgumentException("Unknown option " + name + "; " + USAGE);
      }
    }
    return new BaselineOptions(catalogUri, warehouse, table, out, threads, rewriteOptions);
  }

  /** The table's name parts, for SQL and for catalog look-ups. */
  List<String> tableParts() {
    return new ArrayList<>(List.of(table.split("\\.")));
  }

  private static int parseThreads(String value) {
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "Option --threads must be an integer, got '" + value + "'", e);
    }
  }

  private static void require(String option, String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("Missing option " + option + "; " + USAGE);
    }
  }
}
