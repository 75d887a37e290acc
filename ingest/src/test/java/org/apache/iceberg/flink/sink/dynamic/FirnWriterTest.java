/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package org.apache.iceberg.flink.sink.dynamic;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.core.catalog.CatalogSettings;
import io.firn.ingest.IngestJob;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.types.RowKind;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Firn's writer of the dynamic sink ({@link FirnDynamicSink.Writer}) against Iceberg's own {@link
 * DynamicWriter}: the same seeded random records (two tables, two schemas of one of them, upserts,
 * deletes, appends with and without equality fields, several checkpoints) go to both, each into its
 * own copy of the tables; every checkpoint's results are committed as the sink's committer does,
 * and both copies must hold the same rows, from the same number of files of each kind.
 */
class FirnWriterTest {
  private static final Namespace NS = Namespace.of("ns");
  private static final Schema V0 =
      new Schema(
          List.of(
              Types.NestedField.required(1, "id", Types.LongType.get()),
              Types.NestedField.optional(2, "v", Types.StringType.get())),
          Set.of(1));

  @Test
  void writesWhatIcebergsDynamicWriterWritesOnRandomStreams(@TempDir Path dir) throws Exception {
    Catalog catalog =
        IngestJob.catalogLoader(
                new CatalogSettings(
                    "t",
                    "jdbc",
                    "jdbc:sqlite:" + dir.resolve("catalog.db"),
                    dir.resolve("wh").toString(),
                    Map.of()))
            .loadCatalog();
    ((SupportsNamespaces) catalog).createNamespace(NS);
    for (long seed = 1; seed <= 4; seed++) {
      String iceberg = "i" + seed;
      String firn = "f" + seed;
      for (String copy : List.of(iceberg, firn)) {
        for (String table : List.of("a", "b")) {
          catalog.createTable(
              TableIdentifier.of(NS, copy + "_" + table),
              V0,
              PartitionSpec.unpartitioned(),
              Map.of("format-version", "2"));
        }
        // Table b gets a second schema: rows come in both.
        catalog
            .loadTable(TableIdentifier.of(NS, copy + "_b"))
            .updateSchema()
            .addColumn("w", Types.IntegerType.get())
            .commit();
      }
      run(catalog, seed, iceberg, firn);
    }
  }

  private static void run(Catalog catalog, long seed, String iceberg, String firn)
      throws Exception {
    // Spread: java.util.Random's first draws under neighbouring small seeds agree.
    Random random = new Random(new SplittableRandom(seed).nextLong());
    CommittingSinkWriter<DynamicRecordInternal, DynamicWriteResult> theirs =
        new DynamicWriter(catalog, Map.of(), new Configuration(), 100, metrics(), 0, 0);
    CommittingSinkWriter<DynamicRecordInternal, DynamicWriteResult> ours =
        new FirnDynamicSink.Writer(catalog, Map.of(), new Configuration(), 100, metrics(), 0, 0);
    Map<String, Schema[]> schemas = new TreeMap<>();
    for (String copy : List.of(iceberg, firn)) {
      for (String table : List.of("a", "b")) {
        Table t = catalog.loadTable(TableIdentifier.of(NS, copy + "_" + table));
        schemas.put(copy + "_" + table, t.schemas().values().toArray(new Schema[0]));
      }
    }
    int checkpoints = 3 + random.nextInt(4);
    for (int checkpoint = 0; checkpoint < checkpoints; checkpoint++) {
      int records = 1 + random.nextInt(400);
      for (int i = 0; i < records; i++) {
        String table = random.nextBoolean() ? "a" : "b";
        int schemaIndex = table.equals("b") ? random.nextInt(2) : 0;
        long id = random.nextInt(60);
        int mode = random.nextInt(10);
        boolean upsert = mode < 7;
        // Appends: with the key's equality fields (the new-key writer) or none (the table's
        // identifier fields apply).
        Set<Integer> equality = upsert || mode == 7 ? Set.of(1) : Set.of();
        RowKind kind = upsert && random.nextInt(5) == 0 ? RowKind.DELETE : RowKind.INSERT;
        String value = "v" + random.nextInt(1000);
        int w = random.nextInt(100);
        for (String copy : List.of(iceberg, firn)) {
          Schema schema = schemas.get(copy + "_" + table)[schemaIndex];
          GenericRowData row = new GenericRowData(kind, schema.columns().size());
          row.setField(0, id);
          row.setField(1, StringData.fromString(value));
          if (schema.columns().size() > 2) {
            row.setField(2, w);
          }
          FirnDynamicSink.Record record =
              new FirnDynamicSink.Record(
                  "ns." + copy + "_" + table,
                  schema,
                  row,
                  PartitionSpec.unpartitioned(),
                  (int) id,
                  upsert,
                  equality);
          (copy.equals(iceberg) ? theirs : ours).write(record, null);
        }
      }
      commit(catalog, theirs.prepareCommit());
      commit(catalog, ours.prepareCommit());
    }
    theirs.close();
    ours.close();
    for (String table : List.of("a", "b")) {
      Table expected = catalog.loadTable(TableIdentifier.of(NS, iceberg + "_" + table));
      Table actual = catalog.loadTable(TableIdentifier.of(NS, firn + "_" + table));
      assertThat(rows(actual)).as("seed %d table %s", seed, table).isEqualTo(rows(expected));
      assertThat(actual.currentSnapshot().summary())
          .as("seed %d table %s", seed, table)
          .containsAllEntriesOf(
              Map.of(
                  "total-data-files",
                  expected.currentSnapshot().summary().get("total-data-files"),
                  "total-equality-deletes",
                  expected.currentSnapshot().summary().get("total-equality-deletes"),
                  "total-position-deletes",
                  expected.currentSnapshot().summary().get("total-position-deletes"),
                  "total-records",
                  expected.currentSnapshot().summary().get("total-records")));
    }
  }

  /** One commit per table of a checkpoint's results, as the sink's committer makes it. */
  private static void commit(Catalog catalog, Collection<DynamicWriteResult> results) {
    Map<String, List<DynamicWriteResult>> byTable = new TreeMap<>();
    for (DynamicWriteResult result : results) {
      byTable.computeIfAbsent(result.key().tableName(), k -> new ArrayList<>()).add(result);
    }
    for (Map.Entry<String, List<DynamicWriteResult>> entry : byTable.entrySet()) {
      RowDelta delta = catalog.loadTable(TableIdentifier.parse(entry.getKey())).newRowDelta();
      for (DynamicWriteResult result : entry.getValue()) {
        for (DataFile file : result.writeResult().dataFiles()) {
          delta.addRows(file);
        }
        for (DeleteFile file : result.writeResult().deleteFiles()) {
          delta.addDeletes(file);
        }
      }
      delta.commit();
    }
  }

  /** The table's rows as text, sorted (the id, the value and, where present, w). */
  private static List<String> rows(Table table) throws IOException {
    List<String> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record record : records) {
        rows.add(
            record.getField("id")
                + "/"
                + record.getField("v")
                + (table.schema().findField("w") == null ? "" : "/" + record.getField("w")));
      }
    }
    rows.sort(null);
    return rows;
  }

  private static DynamicWriterMetrics metrics() {
    return new DynamicWriterMetrics(UnregisteredMetricsGroup.createSinkWriterMetricGroup());
  }
}
