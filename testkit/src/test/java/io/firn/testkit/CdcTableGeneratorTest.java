/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.ContentFileUtil;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CdcTableGeneratorTest {
  private static final TableIdentifier ID = TableIdentifier.of("db", "cdc");

  /** Tables generated once and only read by the tests. */
  private static Table partitioned;

  private static Table unpartitioned;

  @TempDir static Path sharedWarehouse;

  @TempDir Path warehouse;

  /**
   * Small but with every feature: 1,500 keys in 12 commits of 125 new keys, 12 updates, 3 deletes
   * and 6 in-commit duplicates each; 4 buckets at the end (2 before the spec change).
   */
  private static CdcTableSpec spec(int buckets) {
    return new CdcTableSpec(1_500, 12, 0.1, 0.02, 0.05, buckets, 7L, true, true);
  }

  private static HadoopCatalog catalog(Path location) {
    return new HadoopCatalog(new Configuration(), location.toUri().toString());
  }

  @BeforeAll
  static void generateSharedTables() {
    HadoopCatalog catalog = catalog(sharedWarehouse);
    partitioned =
        CdcTableGenerator.generate(catalog, TableIdentifier.of("db", "p"), spec(4)).table();
    unpartitioned =
        CdcTableGenerator.generate(catalog, TableIdentifier.of("db", "u"), spec(0)).table();
  }

  private static Table shared(int buckets) {
    return buckets == 0 ? unpartitioned : partitioned;
  }

  @ParameterizedTest(name = "buckets={0}")
  @ValueSource(ints = {4, 0})
  void generatedTableReadsAsTheReferenceModel(int buckets) {
    GeneratedTable generated = CdcTableGenerator.generate(catalog(warehouse), ID, spec(buckets));
    Table table = generated.table();

    Map<Long, org.apache.iceberg.data.Record> expected = generated.writer().expected();
    assertThat(RowSets.read(table)).isEqualTo(RowSets.of(expected.values(), table.schema()));
    assertThat(generated.writer().commits()).isEqualTo(12);
    // 1,500 keys minus 3 deletes per commit, none in the first commit and right after the spec
    // change (no key is writable then)
    assertThat(expected.size()).isEqualTo(1_500 - 3 * 10);

    // the writer continues the same stream
    for (int i = 0; i < 3; i++) {
      generated.writer().commit(200, 10);
    }
    assertThat(generated.writer().commits()).isEqualTo(15);
    assertThat(RowSets.read(table))
        .isEqualTo(RowSets.of(generated.writer().expected().values(), table.schema()));
  }

  @ParameterizedTest(name = "buckets={0}")
  @ValueSource(ints = {4, 0})
  void historyHasFlinkShapedCommitsAndTheSchemaAndSpecChange(int buckets) {
    Table table = shared(buckets);

    assertThat(((HasTableOperations) table).operations().current().formatVersion()).isEqualTo(2);
    assertThat(table.properties()).containsEntry(TableProperties.UPSERT_ENABLED, "true");
    assertThat(table.schema().findField("note")).isNotNull();
    assertThat(table.schema().identifierFieldNames()).containsExactly("id");
    assertThat(table.specs()).hasSize(2);
    assertThat(table.spec().fields())
        .singleElement()
        .satisfies(field -> assertThat(field.transform()).hasToString("bucket[4]"));

    List<Snapshot> snapshots = new ArrayList<>();
    table.snapshots().forEach(snapshots::add);
    assertThat(snapshots).hasSize(12);
    assertThat(snapshots)
        .allSatisfy(s -> assertThat(s.operation()).isIn("append", "overwrite", "delete"));
    Map<String, String> summary = table.currentSnapshot().summary();
    assertThat(Long.parseLong(summary.get("total-equality-deletes"))).isPositive();
    assertThat(Long.parseLong(summary.get("total-position-deletes"))).isPositive();
    // Flink writes an equality delete for every upserted key, new keys included
    assertThat(snapshots)
        .allSatisfy(
            s ->
                assertThat(Long.parseLong(s.summary().get("added-equality-deletes")))
                    .isGreaterThanOrEqualTo(
                        Long.parseLong(s.summary().get("added-records"))
                            - Long.parseLong(s.summary().get("added-position-deletes"))));
  }

  @ParameterizedTest(name = "buckets={0}")
  @ValueSource(ints = {4, 0})
  void positionDeletesAreFileScopedAndEqualityDeletesKeyOnId(int buckets) throws IOException {
    Table table = shared(buckets);
    int idField = table.schema().findField("id").fieldId();

    Map<FileContent, Integer> deleteFiles = new EnumMap<>(FileContent.class);
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        for (DeleteFile delete : task.deletes()) {
          deleteFiles.merge(delete.content(), 1, Integer::sum);
          if (delete.content() == FileContent.POSITION_DELETES) {
            assertThat(String.valueOf(ContentFileUtil.referencedDataFile(delete)))
                .isEqualTo(task.file().location());
          } else {
            assertThat(delete.equalityFieldIds()).containsExactly(idField);
          }
        }
      }
    }
    assertThat(deleteFiles.keySet())
        .containsExactlyInAnyOrder(FileContent.EQUALITY_DELETES, FileContent.POSITION_DELETES);
  }

  @Test
  void writerKeepsTheModelExactWhileAnotherCommitterCommits() throws Exception {
    HadoopCatalog catalog = catalog(warehouse);
    GeneratedTable generated = CdcTableGenerator.generate(catalog, ID, spec(4));
    Table other = catalog.loadTable(ID);
    ExecutorService executor = Executors.newFixedThreadPool(2);
    try {
      Future<?> writing =
          executor.submit(
              () -> {
                for (int i = 0; i < 10; i++) {
                  generated.writer().commit(50, 3);
                }
              });
      Future<?> otherCommits =
          executor.submit(
              () -> {
                for (int i = 0; i < 30; i++) {
                  other.updateProperties().set("test.counter", Integer.toString(i)).commit();
                }
              });
      writing.get(2, TimeUnit.MINUTES);
      otherCommits.get(2, TimeUnit.MINUTES);
    } finally {
      executor.shutdownNow();
    }

    assertThat(generated.writer().commits()).isEqualTo(22);
    assertThat(RowSets.read(generated.table()))
        .isEqualTo(RowSets.of(generated.writer().expected().values(), generated.table().schema()));
  }

  @Test
  void sameSeedGivesTheSameRowsAndFilesInAnotherWarehouse() {
    Table again = CdcTableGenerator.generate(catalog(warehouse), ID, spec(4)).table();

    assertThat(RowSets.read(again)).isEqualTo(RowSets.read(partitioned));
    assertThat(fileCounts(again)).isEqualTo(fileCounts(partitioned));
  }

  @Test
  void anotherSeedGivesOtherRows() {
    CdcTableSpec tiny = new CdcTableSpec(100, 2, 0.1, 0.0, 0.0, 0, 1L, false, false);
    Table first = CdcTableGenerator.generate(catalog(warehouse), ID, tiny).table();
    Table second =
        CdcTableGenerator.generate(
                catalog(warehouse), TableIdentifier.of("db", "other"), tiny.withSeed(2L))
            .table();

    assertThat(RowSets.read(second)).isNotEqualTo(RowSets.read(first));
  }

  @Test
  void smallSpecHasEveryFeature() {
    assertThat(CdcTableSpec.small(8))
        .isEqualTo(new CdcTableSpec(6_000, 30, 0.05, 0.01, 0.02, 8, 42L, true, true));
  }

  @Test
  void specRejectsInvalidValues() {
    assertThatThrownBy(() -> new CdcTableSpec(10, 0, 0, 0, 0, 0, 1, false, false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("commits must be >= 1, was 0");
    assertThatThrownBy(() -> new CdcTableSpec(10, 1, 1.5, 0, 0, 0, 1, false, false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("updateRatio must be in [0, 1], was 1.5");
    assertThatThrownBy(() -> new CdcTableSpec(10, 1, 0, 0, 0, 1, 1, false, true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "specChange starts with buckets / 2 buckets, so buckets must be 0 or >= 2, was 1");
  }

  /** Per snapshot, the operation and the counts of added files and records (paths differ). */
  private static List<List<String>> fileCounts(Table table) {
    List<List<String>> counts = new ArrayList<>();
    for (Snapshot snapshot : table.snapshots()) {
      List<String> row = new ArrayList<>();
      row.add(snapshot.operation());
      for (String key :
          List.of(
              "added-data-files",
              "added-records",
              "added-delete-files",
              "added-equality-deletes",
              "added-position-deletes")) {
        row.add(key + "=" + snapshot.summary().get(key));
      }
      counts.add(row);
    }
    return counts;
  }
}
