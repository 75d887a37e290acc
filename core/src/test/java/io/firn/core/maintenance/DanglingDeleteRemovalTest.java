/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.testkit.KeyedPartTable;
import io.firn.testkit.RowSets;
import io.firn.testkit.TestCatalogs;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Delete files no live data file needs are removed in a validated, tagged commit. */
class DanglingDeleteRemovalTest {
  @TempDir Path warehouse;

  private KeyedPartTable keyed;
  private Table table;
  private DeleteFile liveEquality;
  private Set<String> dangling;

  /**
   * Partition a: a data file of the first sequence number and an equality delete that still applies
   * to it. Partition b: an equality delete whose data file was then rewritten (newer sequence
   * number). Partition c: a position delete whose data file was replaced. Partition d: an equality
   * delete and no data at all.
   */
  @BeforeEach
  void createTable() {
    keyed =
        KeyedPartTable.create(TestCatalogs.hadoop(warehouse), TableIdentifier.of("db", "dangling"));
    table = keyed.table();
    DataFile a = keyed.data("a", 10, 11);
    DataFile b = keyed.data("b", 1, 2, 3);
    DataFile c = keyed.data("c", 5, 6);
    table.newAppend().appendFile(a).appendFile(b).appendFile(c).commit();
    liveEquality = keyed.equalityDelete("a", 11);
    DeleteFile danglingEquality = keyed.equalityDelete("b", 2);
    DeleteFile danglingPosition = keyed.positionDelete("c", c.location(), 0);
    DeleteFile emptyPartition = keyed.equalityDelete("d", 99);
    table
        .newRowDelta()
        .addDeletes(liveEquality)
        .addDeletes(danglingEquality)
        .addDeletes(danglingPosition)
        .addDeletes(emptyPartition)
        .commit();
    table.newOverwrite().deleteFile(b).addFile(keyed.data("b", 1, 3)).commit();
    table.newOverwrite().deleteFile(c).addFile(keyed.data("c", 6)).commit();
    dangling =
        Set.of(danglingEquality.location(), danglingPosition.location(), emptyPartition.location());
  }

  @Test
  void removesExactlyTheDanglingDeletesInATaggedCommitAndRowsStayTheSame() {
    Map<String, Long> rows = RowSets.read(table);
    assertThat(rows).hasSize(4); // 10, 1, 3, 6
    long before = table.currentSnapshot().snapshotId();
    List<String> progress = new ArrayList<>();

    DanglingDeleteReport report =
        new DanglingDeleteRemoval(progress::add)
            .remove(table, DanglingDeleteSettings.DEFAULTS, "process-42");

    assertThat(report.result()).isEqualTo(DanglingDeleteReport.Result.COMMITTED);
    assertThat(report.removedFiles()).containsExactlyInAnyOrderElementsOf(dangling);
    assertThat(report.equalityDeletesRemoved()).isEqualTo(2);
    assertThat(report.positionDeletesRemoved()).isEqualTo(1);
    assertThat(report.planningSnapshotId()).isEqualTo(before);
    table.refresh();
    assertThat(report.committedSnapshotId()).isEqualTo(table.currentSnapshot().snapshotId());
    assertThat(table.currentSnapshot().parentId()).isEqualTo(before);
    assertThat(table.currentSnapshot().summary())
        .containsEntry("firn.process-id", "process-42")
        .containsEntry("firn.optimizing-type", "dangling-deletes")
        .containsEntry("firn.planning-snapshot-id", Long.toString(before));
    assertThat(liveDeleteFiles()).containsExactly(liveEquality.location());
    assertThat(RowSets.read(table)).isEqualTo(rows);
    assertThat(progress).anyMatch(l -> l.contains("removed 3 dangling delete files"));

    DanglingDeleteReport again =
        new DanglingDeleteRemoval(line -> {})
            .remove(table, DanglingDeleteSettings.DEFAULTS, "process-43");
    assertThat(again.result()).isEqualTo(DanglingDeleteReport.Result.NOTHING_TO_REMOVE);
    assertThat(again.removedCount()).isZero();
  }

  @Test
  void aDryRunReportsTheDanglingDeletesAndCommitsNothing() {
    long before = table.currentSnapshot().snapshotId();

    DanglingDeleteReport report =
        new DanglingDeleteRemoval(line -> {})
            .remove(table, new DanglingDeleteSettings(true), "process-1");

    assertThat(report.result()).isEqualTo(DanglingDeleteReport.Result.DRY_RUN);
    assertThat(report.removedFiles()).containsExactlyInAnyOrderElementsOf(dangling);
    assertThat(report.committedSnapshotId()).isEqualTo(-1);
    table.refresh();
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(before);
    Set<String> all = new HashSet<>(dangling);
    all.add(liveEquality.location());
    assertThat(liveDeleteFiles()).isEqualTo(all);
  }

  private Set<String> liveDeleteFiles() {
    table.refresh();
    Set<String> live = new HashSet<>();
    for (ManifestFile manifest : table.currentSnapshot().deleteManifests(table.io())) {
      try (ManifestReader<DeleteFile> reader =
          ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
        reader.forEach(d -> live.add(d.location()));
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }
    return live;
  }
}
