/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.bench.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.Map;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SparkBaselineTest {

  @TempDir Path dir;

  @Test
  void compactsV2TableWithPositionAndEqualityDeletesAndKeepsItsRows() throws Exception {
    Path out = dir.resolve("result.json");
    BaselineOptions options =
        BaselineOptions.parse(
            "--catalog-uri",
            "jdbc:sqlite:" + dir.resolve("catalog.db"),
            "--warehouse",
            dir.resolve("wh").toString(),
            "--table",
            "ns.t",
            "--out",
            out.toString(),
            "--threads",
            "2");
    SparkSession spark = SparkBaseline.startSession(options);
    try {
      // Partitioned like the benchmark's CDC table: Iceberg 1.11 removes dangling deletes only
      // in partitioned tables (apache/iceberg#15369).
      spark.sql("CREATE NAMESPACE bench.ns");
      spark.sql(
          "CREATE TABLE bench.ns.t (id BIGINT, part INT, name STRING, attrs MAP<STRING, STRING>)"
              + " USING iceberg PARTITIONED BY (part) TBLPROPERTIES ('format-version'='2',"
              + " 'write.delete.mode'='merge-on-read')");
      for (int batch = 0; batch < 6; batch++) {
        spark.sql(
            "INSERT INTO bench.ns.t SELECT id, CAST(id % 2 AS INT), concat('name-', id),"
                + " map('batch', '"
                + batch
                + "') FROM range("
                + (batch * 100)
                + ", "
                + (batch * 100 + 100)
                + ")");
      }
      spark.sql("DELETE FROM bench.ns.t WHERE id % 7 = 0");
      // Odd ids live in partition part=1.
      addEqualityDelete(Spark3Util.loadIcebergTable(spark, "bench.ns.t"), 1, 1L, 3L, 5L);
      long expectedRows = 600 - 86 - 3;
      assertThat(spark.sql("SELECT count(*) FROM bench.ns.t").first().getLong(0))
          .isEqualTo(expectedRows);

      BaselineResult result = SparkBaseline.run(spark, options);

      assertThat(result.rowsPreserved()).isTrue();
      JsonNode json = new ObjectMapper().readTree(out.toFile());
      assertThat(json.get("engine").asText()).isEqualTo("spark-actions");
      JsonNode before = json.get("before");
      JsonNode after = json.get("after");
      assertThat(before.get("dataFiles").asLong()).isGreaterThanOrEqualTo(12);
      assertThat(before.get("positionDeleteFiles").asLong()).isPositive();
      assertThat(before.get("equalityDeleteFiles").asLong()).isEqualTo(1);
      assertThat(before.get("rows").asLong()).isEqualTo(expectedRows);
      assertThat(before.get("dataRecords").asLong()).isEqualTo(600);
      assertThat(after.get("dataFiles").asLong()).isEqualTo(2);
      assertThat(after.get("equalityDeleteFiles").asLong()).isZero();
      assertThat(after.get("positionDeleteFiles").asLong()).isZero();
      assertThat(after.get("rows").asLong()).isEqualTo(expectedRows);
      assertThat(after.get("checksum").asLong()).isEqualTo(before.get("checksum").asLong());
      assertThat(after.get("dataRecords").asLong()).isEqualTo(expectedRows);
      assertThat(json.get("rewriteDataFilesSeconds").asDouble()).isPositive();
      assertThat(json.get("totalSeconds").asDouble())
          .isGreaterThanOrEqualTo(json.get("rewriteDataFilesSeconds").asDouble());
      assertThat(json.get("rewriteDataFiles").get("rewrittenDataFiles").asLong())
          .isEqualTo(before.get("dataFiles").asLong());
      assertThat(json.get("rewriteDataFiles").get("removedDeleteFiles").asLong()).isEqualTo(1);
      assertThat(json.get("rewritePositionDeletes").has("changed")).isTrue();
    } finally {
      spark.stop();
    }
  }

  @Test
  void rejectsCommandLineWithoutTable() {
    assertThatThrownBy(
            () -> BaselineOptions.parse("--catalog-uri", "jdbc:sqlite:x", "--warehouse", "wh"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Missing option --table; usage: SparkBaseline");
  }

  @Test
  void rejectsTableWithoutNamespace() {
    assertThatThrownBy(
            () ->
                BaselineOptions.parse(
                    "--catalog-uri", "jdbc:sqlite:x",
                    "--warehouse", "wh",
                    "--table", "t",
                    "--out", "r.json"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Option --table must be namespace.table, got 't'");
  }

  /**
   * Spark SQL cannot write equality deletes; Flink's upserts do, so add one (on {@code id}, in
   * partition {@code part}) the way they do.
   */
  private static void addEqualityDelete(Table table, int part, long... ids) throws Exception {
    Schema deleteSchema = table.schema().select("id");
    int idField = table.schema().findField("id").fieldId();
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table)
            .equalityFieldIds(new int[] {idField})
            .equalityDeleteRowSchema(deleteSchema)
            .build();
    GenericRecord partition = GenericRecord.create(table.spec().partitionType());
    partition.set(0, part);
    OutputFileFactory files = OutputFileFactory.builderFor(table, 1, 1).build();
    EqualityDeleteWriter<Record> writer =
        writers.newEqualityDeleteWriter(
            files.newOutputFile(table.spec(), partition), table.spec(), partition);
    try (writer) {
      for (long id : ids) {
        writer.write(GenericRecord.create(deleteSchema).copy(Map.of("id", id)));
      }
    }
    DeleteFile deleteFile = writer.toDeleteFile();
    table.newRowDelta().addDeletes(deleteFile).commit();
  }
}
