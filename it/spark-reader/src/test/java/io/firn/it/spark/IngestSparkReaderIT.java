/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.it.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.ingest.EventFormat;
import io.firn.ingest.EventStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 6's acceptance, read by an independent engine: the ingest job, run as its own JVM exactly
 * as {@code bin/firn ingest --config FILE} runs it, ingests a bounded realistic generator stream
 * (three event types, v1 then v2 payloads, a fourth type mid-run, updates) into an SQLite JDBC
 * catalog; Spark SQL then reads the four tables, which must equal {@link EventStream}'s reference
 * rows.
 */
class IngestSparkReaderIT {
  private static final long EVENTS = 2_000;
  private static final long SEED = 5;
  private static final long V2_AFTER = 700;
  private static final long NEW_TYPE_AFTER = 1_300;

  /** The catalog's name in the ingest job and in Spark: the JDBC catalog keys tables by it. */
  private static final String CATALOG = "lake";

  @TempDir Path dir;

  @Test
  void sparkSqlReadsTheReferenceRowsOfTheGeneratedStream() throws Exception {
    String uri = "jdbc:sqlite:" + dir.resolve("catalog.db");
    String warehouse = dir.resolve("warehouse").toString();
    Path config = dir.resolve("ingest.yaml");
    Files.writeString(
        config,
        String.join(
            "\n",
            "source:",
            "  type: generator",
            "  events: " + EVENTS,
            "  rate: 2000",
            "  seed: " + SEED,
            "  v2-after: " + V2_AFTER,
            "  new-type-after: " + NEW_TYPE_AFTER,
            "catalog:",
            "  name: " + CATALOG,
            "  type: jdbc",
            "  uri: '" + uri + "'",
            "  warehouse: '" + warehouse + "'",
            "  properties: {jdbc.schema-version: V1}",
            "namespace: events",
            "checkpoint-interval: 500ms",
            ""));

    runIngestJob(config);

    Map<String, Map<Object, Map<String, Object>>> expected =
        EventStream.expectedRows(
            EventStream.Settings.of(SEED, V2_AFTER, NEW_TYPE_AFTER, EventFormat.JSON), EVENTS);
    assertThat(expected).containsOnlyKeys(EventStream.TABLES);
    SparkSession spark =
        SparkSessions.withJdbcCatalog("firn-ingest-spark-reader-it", CATALOG, uri, warehouse);
    try {
      for (Map.Entry<String, Map<Object, Map<String, Object>>> table : expected.entrySet()) {
        Dataset<Row> rows = spark.sql("SELECT * FROM " + CATALOG + ".events." + table.getKey());
        String[] columns = rows.columns();
        assertThat(List.of(columns))
            .as(table.getKey() + ": its v2 columns exist")
            .containsAll(EventStream.V2_FIELDS.getOrDefault(table.getKey(), List.of()));
        List<List<Object>> actual = new ArrayList<>();
        for (Row row : rows.collectAsList()) {
          List<Object> values = new ArrayList<>();
          for (int i = 0; i < columns.length; i++) {
            values.add(row.get(i));
          }
          actual.add(values);
        }
        List<List<Object>> wanted = new ArrayList<>();
        for (Map<String, Object> row : table.getValue().values()) {
          List<Object> values = new ArrayList<>();
          for (String column : columns) {
            values.add(row.get(column));
          }
          wanted.add(values);
        }
        assertThat(actual)
            .as(table.getKey() + " read by Spark SQL equals the reference (last row per key)")
            .containsExactlyInAnyOrderElementsOf(wanted);
      }
    } finally {
      spark.stop();
    }
  }

  /**
   * {@code java -cp ingest/target/firn-ingest-VERSION.jar:ingest/target/lib/* IngestJob --config}.
   */
  private void runIngestJob(Path config) throws IOException, InterruptedException {
    Path target = Path.of(System.getProperty("firn.ingest.target", "../../ingest/target"));
    Path jar = target.resolve("firn-ingest-" + System.getProperty("firn.version") + ".jar");
    assertThat(jar)
        .as("the ingest job jar; build it first: mvn package -pl ingest (or a reactor build)")
        .isRegularFile();
    assertThat(target.resolve("lib"))
        .as("the ingest job's classpath, filled by the ingest module's package phase")
        .isDirectory();
    Path log = dir.resolve("ingest.log");
    Process process =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx1g",
                "-cp",
                jar.toAbsolutePath()
                    + java.io.File.pathSeparator
                    + target.toAbsolutePath().resolve("lib")
                    + "/*",
                "io.firn.ingest.IngestJob",
                "--config",
                config.toString())
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    boolean exited = process.waitFor(90, TimeUnit.SECONDS);
    if (!exited) {
      process.destroyForcibly().waitFor();
    }
    String output = Files.readString(log);
    String tail = output.substring(Math.max(0, output.length() - 4_000));
    assertThat(exited)
        .as("the ingest job ends after its bounded stream; log tail:\n" + tail)
        .isTrue();
    assertThat(process.exitValue()).as("the ingest job's exit code; log tail:\n" + tail).isZero();
  }
}
