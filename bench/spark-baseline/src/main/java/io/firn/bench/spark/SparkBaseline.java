/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.bench.spark;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.actions.RewriteDataFiles;
import org.apache.iceberg.actions.RewritePositionDeleteFiles;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.iceberg.spark.actions.SparkActions;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Compacts one Iceberg table with Iceberg's Spark actions and reports how long it took and what a
 * reader faces before and after. This is the baseline Firn is measured against; it runs in its own
 * JVM (see the package documentation).
 *
 * <p>Exit codes: 0 done, 1 failed, 2 the rows changed (count or checksum), 64 bad command line.
 */
public final class SparkBaseline {

  /** Name of the Iceberg catalog inside the Spark session. */
  public static final String CATALOG = "bench";

  static final long DEFAULT_TARGET_FILE_SIZE_BYTES = 128L * 1024 * 1024;

  private SparkBaseline() {}

  public static void main(String[] args) {
    BaselineOptions options;
    try {
      options = BaselineOptions.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(64);
      return;
    }
    int exitCode;
    try {
      SparkSession spark = startSession(options);
      try {
        exitCode = run(spark, options).rowsPreserved() ? 0 : 2;
      } finally {
        spark.stop();
      }
    } catch (RuntimeException e) {
      e.printStackTrace(System.err);
      exitCode = 1;
    }
    // Spark and Hadoop leave non-daemon threads behind.
    System.exit(exitCode);
  }

  /**
   * Starts (or joins) the local Spark session with the Iceberg catalog {@value #CATALOG} on the
   * options' JDBC catalog.
   */
  public static SparkSession startSession(BaselineOptions options) {
    String catalog = "spark.sql.catalog." + CATALOG;
    return SparkSession.builder()
        .appName("firn-spark-baseline")
        .master("local[" + options.threads() + "]")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        // Local mode: one shuffle partition per thread, not 200 near-empty ones.
        .config("spark.sql.shuffle.partitions", String.valueOf(options.threads()))
        // The checksum hashes whole rows; map columns are refused by hash() otherwise.
        .config("spark.sql.legacy.allowHashOnMapType", "true")
        .config(
            "spark.sql.extensions",
            "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
        .config(catalog, "org.apache.iceberg.spark.SparkCatalog")
        .config(catalog + ".type", "jdbc")
        .config(catalog + ".uri", options.catalogUri())
        .config(catalog + ".warehouse", options.warehouse())
        .config(catalog + ".jdbc.schema-version", "V1")
        // Every query sees the catalog's current metadata, not a table cached before the rewrite.
        .config(catalog + ".cache-enabled", "false")
        .getOrCreate();
  }

  /**
   * Measures the table, runs {@code rewriteDataFiles} and {@code rewritePositionDeletes}, measures
   * again and writes the JSON result to {@link BaselineOptions#out()}. The session stays open.
   */
  public static BaselineResult run(SparkSession spark, BaselineOptions options) {
    String name = quotedName(options);
    progress("loading %s", name);
    Table table = loadTable(spark, name);

    // The first query pays for class loading, code generation and JIT of the read path; fetching
    // one row warms that up so the "before" scan is not charged for it. collect() with LIMIT runs
    // incrementally, starting with a single split.
    long warmupStart = System.nanoTime();
    spark.sql("SELECT * FROM " + name + " LIMIT 1").collectAsList();
    double warmupSeconds = seconds(System.nanoTime() - warmupStart);
    progress("warm-up read of one row: %.3f s", warmupSeconds);

    progress("measuring before (full scan with deletes applied)");
    TableState before = measure(spark, table, name);
    progress("before: %s", before);

    Map<String, String> rewriteOptions = rewriteOptions(table, options);
    progress("rewriteDataFiles %s", rewriteOptions);
    long start = System.nanoTime();
    RewriteDataFiles.Result dataResult =
        SparkActions.get(spark).rewriteDataFiles(table).options(rewriteOptions).execute();
    long afterData = System.nanoTime();
    progress(
        "rewriteDataFiles: %d data files rewritten into %d, %d delete files removed, %d failed,"
            + " %.3f s",
        dataResult.rewrittenDataFilesCount(),
        dataResult.addedDataFilesCount(),
        dataResult.removedDeleteFilesCount(),
        dataResult.failedDataFilesCount(),
        seconds(afterData - start));

    table.refresh();
    progress("rewritePositionDeletes rewrite-all=true");
    long startDeletes = System.nanoTime();
    RewritePositionDeleteFiles.Result deleteResult =
        SparkActions.get(spark)
            .rewritePositionDeletes(table)
            .option("rewrite-all", "true")
            .execute();
    long end = System.nanoTime();
    progress(
        "rewritePositionDeletes: %d delete files rewritten into %d, %.3f s",
        deleteResult.rewrittenDeleteFilesCount(),
        deleteResult.addedDeleteFilesCount(),
        seconds(end - startDeletes));

    table.refresh();
    progress("measuring after");
    TableState after = measure(spark, table, name);
    progress("after: %s", after);

    BaselineResult result =
        new BaselineResult(
            options.table(),
            spark.version(),
            options.threads(),
            warmupSeconds,
            rewriteOptions,
            seconds(afterData - start),
            describe(dataResult),
            seconds(end - startDeletes),
            describe(deleteResult),
            seconds(end - start),
            before,
            after);
    write(options.out(), result);
    if (!result.rowsPreserved()) {
      progress(
          "ROWS CHANGED: before %d rows / checksum %d, after %d rows / checksum %d",
          before.rows(), before.checksum(), after.rows(), after.checksum());
    }
    progress("wrote %s", options.out());
    return result;
  }

  /**
   * Options for {@code rewriteDataFiles}: every file with a delete is rewritten ({@code
   * delete-file-threshold=1}), at the table's target file size (128 MiB when it sets none), and
   * delete files that no longer apply are removed, so the action leaves the table as clean as it
   * can. {@code --rewrite-option} entries override these.
   */
  static Map<String, String> rewriteOptions(Table table, BaselineOptions options) {
    Map<String, String> rewriteOptions = new LinkedHashMap<>();
    rewriteOptions.put("delete-file-threshold", "1");
    rewriteOptions.put(
        RewriteDataFiles.TARGET_FILE_SIZE_BYTES,
        table
            .properties()
            .getOrDefault(
                TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
                String.valueOf(DEFAULT_TARGET_FILE_SIZE_BYTES)));
    rewriteOptions.put(RewriteDataFiles.REMOVE_DANGLING_DELETES, "true");
    rewriteOptions.putAll(options.rewriteOptions());
    return rewriteOptions;
  }

  static TableState measure(SparkSession spark, Table table, String name) {
    Snapshot snapshot = table.currentSnapshot();
    long dataFiles = 0;
    long equalityDeleteFiles = 0;
    long positionDeleteFiles = 0;
    long bytes = 0;
    long dataRecords = 0;
    if (snapshot != null) {
      for (ManifestFile manifest : snapshot.dataManifests(table.io())) {
        // A manifest reader iterates live entries only (added and existing).
        try (ManifestReader<DataFile> reader =
            ManifestFiles.read(manifest, table.io(), table.specs())) {
          for (DataFile file : reader) {
            dataFiles++;
            bytes += file.fileSizeInBytes();
            dataRecords += file.recordCount();
          }
        } catch (IOException e) {
          throw new UncheckedIOException("Cannot read manifest " + manifest.path(), e);
        }
      }
      for (ManifestFile manifest : snapshot.deleteManifests(table.io())) {
        try (ManifestReader<DeleteFile> reader =
            ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
          for (DeleteFile file : reader) {
            switch (file.content()) {
              case EQUALITY_DELETES -> equalityDeleteFiles++;
              case POSITION_DELETES -> positionDeleteFiles++;
              default ->
                  throw new IllegalStateException(
                      "Unexpected content "
                          + file.content()
                          + " of "
                          + file.location()
                          + " in delete manifest "
                          + manifest.path());
            }
            bytes += file.fileSizeInBytes();
          }
        } catch (IOException e) {
          throw new UncheckedIOException("Cannot read manifest " + manifest.path(), e);
        }
      }
    }

    // hash(*) reads every column, so the scan pays for all of them and for every delete.
    long start = System.nanoTime();
    List<Row> rows = spark.sql("SELECT count(*), sum(hash(*)) FROM " + name).collectAsList();
    double scanSeconds = seconds(System.nanoTime() - start);
    Row row = rows.get(0);
    return new TableState(
        snapshot == null ? -1 : snapshot.snapshotId(),
        dataFiles,
        equalityDeleteFiles,
        positionDeleteFiles,
        bytes,
        dataRecords,
        scanSeconds,
        row.getLong(0),
        row.isNullAt(1) ? 0 : row.getLong(1));
  }

  static Table loadTable(SparkSession spark, String name) {
    try {
      return Spark3Util.loadIcebergTable(spark, name);
    } catch (org.apache.spark.sql.catalyst.parser.ParseException
        | org.apache.spark.sql.catalyst.analysis.NoSuchTableException e) {
      throw new IllegalArgumentException(
          "Cannot load table " + name + " (option --table): " + e.getMessage(), e);
    }
  }

  private static Map<String, Object> describe(RewriteDataFiles.Result result) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("rewrittenDataFiles", result.rewrittenDataFilesCount());
    json.put("addedDataFiles", result.addedDataFilesCount());
    json.put("rewrittenBytes", result.rewrittenBytesCount());
    json.put("removedDeleteFiles", result.removedDeleteFilesCount());
    json.put("failedDataFiles", result.failedDataFilesCount());
    json.put("fileGroups", result.rewriteResults().size());
    return json;
  }

  private static Map<String, Object> describe(RewritePositionDeleteFiles.Result result) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("changed", result.rewrittenDeleteFilesCount() > 0);
    json.put("rewrittenDeleteFiles", result.rewrittenDeleteFilesCount());
    json.put("addedDeleteFiles", result.addedDeleteFilesCount());
    json.put("rewrittenBytes", result.rewrittenBytesCount());
    json.put("addedBytes", result.addedBytesCount());
    return json;
  }

  private static void write(Path out, BaselineResult result) {
    try {
      Path parent = out.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      new ObjectMapper()
          .enable(SerializationFeature.INDENT_OUTPUT)
          .writeValue(out.toFile(), result.toJson());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write result to " + out + " (option --out)", e);
    }
  }

  /** {@code bench.`ns`.`t`}: backquoted so any table name survives Spark's SQL parser. */
  static String quotedName(BaselineOptions options) {
    return CATALOG
        + "."
        + options.tableParts().stream()
            .map(part -> "`" + part.replace("`", "``") + "`")
            .collect(Collectors.joining("."));
  }

  private static double seconds(long nanos) {
    return Math.round(nanos / 1_000_000.0) / 1_000.0;
  }

  private static void progress(String format, Object... args) {
    System.err.printf(Locale.ROOT, "[spark-baseline] " + format + "%n", args);
  }
}
