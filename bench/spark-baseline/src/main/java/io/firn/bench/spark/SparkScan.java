/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.bench.spark;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.spark.sql.SparkSession;

/**
 * Measures a table with Spark SQL only (file counts, full-scan time with deletes applied, row count
 * and checksum), so the benchmark can read Firn's output with the same independent reader and the
 * same clock as the baseline. Same options as {@link SparkBaseline}.
 */
public final class SparkScan {
  private SparkScan() {}

  public static void main(String[] args) {
    int exitCode = 0;
    try {
      BaselineOptions options = BaselineOptions.parse(args);
      SparkSession spark = SparkBaseline.startSession(options);
      try {
        String name = SparkBaseline.quotedName(options);
        Table table = SparkBaseline.loadTable(spark, name);
        long warmupStart = System.nanoTime();
        spark.sql("SELECT * FROM " + name + " LIMIT 1").collectAsList();
        double warmup = (System.nanoTime() - warmupStart) / 1e9;
        // The first full scan also warms up code generation and the JIT; the second is reported,
        // as the baseline's "after" scan runs in a JVM warmed by its rewrite.
        TableState first = SparkBaseline.measure(spark, table, name);
        TableState state = SparkBaseline.measure(spark, table, name);
        System.err.printf(Locale.ROOT, "[spark-scan] %s%n", state);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("engine", "spark-scan");
        json.put("table", options.table());
        json.put("warmupSeconds", warmup);
        json.put("firstScanSeconds", first.scanSeconds());
        json.put("state", state.toJson());
        new ObjectMapper()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .writeValue(options.out().toFile(), json);
      } finally {
        spark.stop();
      }
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      exitCode = 64;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (RuntimeException e) {
      e.printStackTrace(System.err);
      exitCode = 1;
    }
    System.exit(exitCode);
  }
}
