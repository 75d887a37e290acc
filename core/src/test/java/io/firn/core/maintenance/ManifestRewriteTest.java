/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.core.commit.Committer;
import io.firn.testkit.KeyedPartTable;
import io.firn.testkit.RowSets;
import io.firn.testkit.TestCatalogs;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Small data manifests are merged in one tagged commit that keeps every row, every file's sequence
 * numbers (so each equality delete applies to exactly the rows it applied to) and the delete
 * manifests.
 */
class ManifestRewriteTest {
  @TempDir Path warehouse;

  private KeyedPartTable keyed;
  private Table table;

  /**
   * Twelve commits of one data file each in partitions a and b (twelve data manifests); then an
   * equality delete of id 5 in a (sequence number 13), then a data file re-inserting id 5 in a
   * (sequence 14). The delete removes the old row 5 and not the new one only as long as the old
   * file's sequence number stays below 13 and the new one's above.
   */
  @BeforeEach
  void createTable() {
    keyed =
        KeyedPartTable.create(
            TestCatalogs.hadoop(warehouse), TableIdentifier.of("db", "manifests"));
    table = keyed.table();
    for (int i = 0; i < 12; i++) {
      table.newAppend().appendFile(keyed.data(i % 2 == 0 ? "a" : "b", i, 100 + i)).commit();
    }
    table.newRowDelta().addDeletes(keyed.equalityDelete("a", 4)).commit();
    table.newAppend().appendFile(keyed.data("a", 4, 500)).commit();
  }

  @Test
  void mergesSmallDataManifestsKeepingRowsSequenceNumbersAndDeleteManifests() {
    Map<String, Long> rows = RowSets.read(table);
    assertThat(rows).hasSize(25); // 24 rows + 500 - the deleted old 4 + the re-inserted 4
    Map<String, Long> sequenceNumbers = dataSequenceNumbers(table);
    Snapshot before = table.currentSnapshot();
    List<String> deleteManifests = paths(before.deleteManifests(table.io()));
    assertThat(before.dataManifests(table.io())).hasSize(13);
    List<String> progress = new ArrayList<>();

    ManifestRewriteReport report =
        new ManifestRewrite(progress::add)
            .rewrite(table, new ManifestRewriteSettings(10), "process-7");

    assertThat(report.result()).isEqualTo(ManifestRewriteReport.Result.COMMITTED);
    assertThat(report.dataManifests()).isEqualTo(13);
    assertThat(report.smallManifests()).isEqualTo(13);
    assertThat(report.manifestsReplaced()).isEqualTo(13);
    assertThat(report.manifestsCreated()).isEqualTo(1);
    assertThat(report.planningSnapshotId()).isEqualTo(before.snapshotId());
    assertThat(report.message()).isEqualTo("rewrote 13 of 13 data manifest(s) into 1");
    assertThat(progress).anyMatch(line -> line.contains("rewrote 13 of 13"));
    table.refresh();
    Snapshot after = table.currentSnapshot();
    assertThat(after.snapshotId()).isEqualTo(report.committedSnapshotId());
    assertThat(after.parentId()).isEqualTo(before.snapshotId());
    assertThat(after.summary())
        .containsEntry(Committer.PROCESS_ID, "process-7")
        .containsEntry(Committer.OPTIMIZING_TYPE, ManifestRewrite.TYPE)
        .containsEntry(Committer.PLANNING_SNAPSHOT, Long.toString(before.snapshotId()));
    assertThat(after.dataManifests(table.io())).hasSize(1);
    assertThat(paths(after.deleteManifests(table.io()))).isEqualTo(deleteManifests);
    assertThat(dataSequenceNumbers(table)).isEqualTo(sequenceNumbers);
    assertThat(RowSets.read(table)).isEqualTo(rows);

    // A later delete of the re-inserted id still applies to it, and only to it.
    table.newRowDelta().addDeletes(keyed.equalityDelete("a", 4)).commit();
    Map<String, Long> expected = new HashMap<>(rows);
    expected.keySet().removeIf(row -> row.startsWith("id=4,"));
    assertThat(RowSets.read(table)).isEqualTo(expected).hasSize(24);
  }

  @Test
  void fewerSmallManifestsThanMinCountChangeNothing() {
    long before = table.currentSnapshot().snapshotId();

    ManifestRewriteReport report =
        new ManifestRewrite(line -> {}).rewrite(table, new ManifestRewriteSettings(14), "p");

    assertThat(report.result()).isEqualTo(ManifestRewriteReport.Result.NOTHING_TO_DO);
    assertThat(report.message())
        .isEqualTo("13 of 13 data manifest(s) below 8388608 bytes, fewer than min-count 14");
    assertThat(report.committedSnapshotId()).isEqualTo(-1);
    table.refresh();
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(before);
  }

  @Test
  void onlyManifestsBelowTheTargetSizeAreRewritten() {
    // A target size between the manifests' sizes: the larger ones stay as they are.
    List<ManifestFile> manifests = table.currentSnapshot().dataManifests(table.io());
    long largest = manifests.stream().mapToLong(ManifestFile::length).max().orElseThrow();
    long smallest = manifests.stream().mapToLong(ManifestFile::length).min().orElseThrow();
    assertThat(largest).isGreaterThan(smallest);
    table
        .updateProperties()
        .set("commit.manifest.target-size-bytes", Long.toString(largest))
        .commit();
    List<String> large =
        manifests.stream().filter(m -> m.length() >= largest).map(ManifestFile::path).toList();
    Map<String, Long> rows = RowSets.read(table);

    ManifestRewriteReport report =
        new ManifestRewrite(line -> {}).rewrite(table, new ManifestRewriteSettings(2), "p");

    assertThat(report.result()).isEqualTo(ManifestRewriteReport.Result.COMMITTED);
    assertThat(report.manifestsReplaced()).isEqualTo(13 - large.size());
    table.refresh();
    assertThat(paths(table.currentSnapshot().dataManifests(table.io()))).containsAll(large);
    assertThat(RowSets.read(table)).isEqualTo(rows);
  }

  @Test
  void anEmptyTableHasNothingToDo() {
    Table empty =
        KeyedPartTable.create(TestCatalogs.hadoop(warehouse), TableIdentifier.of("db", "empty"))
            .table();

    ManifestRewriteReport report =
        new ManifestRewrite(line -> {}).rewrite(empty, ManifestRewriteSettings.DEFAULTS, "p");

    assertThat(report.result()).isEqualTo(ManifestRewriteReport.Result.NOTHING_TO_DO);
    assertThat(report.message()).isEqualTo("empty table");
  }

  private static Map<String, Long> dataSequenceNumbers(Table table) {
    table.refresh();
    Map<String, Long> numbers = new HashMap<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        numbers.put(
            task.file().location(),
            task.file().dataSequenceNumber() * 1_000 + task.file().fileSequenceNumber());
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return numbers;
  }

  private static List<String> paths(List<ManifestFile> manifests) {
    return manifests.stream().map(ManifestFile::path).toList();
  }
}
