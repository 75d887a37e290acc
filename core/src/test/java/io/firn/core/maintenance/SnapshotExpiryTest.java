/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.maintenance;

import static io.firn.core.maintenance.MaintenanceTables.flinkRestoredCheckpoint;
import static io.firn.core.maintenance.MaintenanceTables.snapshotIds;
import static org.assertj.core.api.Assertions.assertThat;

import io.firn.core.catalog.ForwardingTableOperations;
import io.firn.testkit.CdcTableGenerator;
import io.firn.testkit.CdcTableSpec;
import io.firn.testkit.CdcWriter;
import io.firn.testkit.GeneratedTable;
import io.firn.testkit.RowSets;
import io.firn.testkit.TestCatalogs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Snapshot expiry keeps the current snapshot, the newest N and Flink's restore point per job. */
class SnapshotExpiryTest {
  private static final String JOB_A = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
  private static final String JOB_B = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
  private static final String OPERATOR = "0123456789abcdef0123456789abcdef";
  private static final CdcTableSpec SPEC =
      new CdcTableSpec(1_200, 6, 0.05, 0.01, 0.02, 2, 11L, false, false);

  /** Every snapshot is older than one hour at this clock. */
  private static final Instant LATER = Instant.now().plus(Duration.ofDays(1));

  @TempDir Path warehouse;

  @Test
  void keepsTheNewestCheckpointSnapshotOfEachFlinkJobAndTheAncestorsFlinkWalksThrough() {
    HadoopCatalog catalog = TestCatalogs.hadoop(warehouse);
    TableIdentifier id = TableIdentifier.of("db", "flink");
    GeneratedTable generated = CdcTableGenerator.generate(catalog, id, SPEC);
    CdcWriter writer = generated.writer();
    Table table = catalog.loadTable(id);
    Set<Long> history = snapshotIds(table);

    long a1 = flinkCommit(table, JOB_A, 1);
    long b1 = flinkCommit(table, JOB_B, 7);
    long a2 = flinkCommit(table, JOB_A, 2);
    List<Long> later = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      writer.commit(40, 2); // commits without Flink keys (another writer, or Firn)
      table.refresh();
      later.add(table.currentSnapshot().snapshotId());
    }
    long current = later.get(later.size() - 1);
    Map<String, Long> rows = RowSets.read(table);
    List<String> manifestListsOfHistory = new ArrayList<>();
    for (long snapshot : history) {
      manifestListsOfHistory.add(table.snapshot(snapshot).manifestListLocation());
    }

    List<String> progress = new ArrayList<>();
    SnapshotExpiryReport report =
        new SnapshotExpiry(progress::add)
            .expire(table, new SnapshotExpirySettings(Duration.ofHours(1), 2, true, false), LATER);

    Set<Long> expected = new HashSet<>(history);
    expected.add(a1);
    assertThat(report.expiredSnapshotIds()).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(report.expiredCount()).isEqualTo(history.size() + 1);
    Set<Long> remaining = new HashSet<>(later);
    remaining.addAll(List.of(b1, a2));
    assertThat(snapshotIds(table)).isEqualTo(remaining);
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(current);
    // Flink's restore walk still finds each job's last checkpoint.
    assertThat(flinkRestoredCheckpoint(table, JOB_A, OPERATOR)).isEqualTo(2);
    assertThat(flinkRestoredCheckpoint(table, JOB_B, OPERATOR)).isEqualTo(7);

    assertThat(report.kept())
        .filteredOn(k -> k.snapshotId() == a2)
        .singleElement()
        .satisfies(
            k ->
                assertThat(k.reason())
                    .isEqualTo(
                        "newest Flink checkpoint snapshot of job "
                            + JOB_A
                            + " operator "
                            + OPERATOR
                            + " on branch main (checkpoint 2)"));
    assertThat(report.kept())
        .filteredOn(k -> k.snapshotId() == b1)
        .singleElement()
        .satisfies(k -> assertThat(k.reason()).contains("job " + JOB_B, "(checkpoint 7)"));
    assertThat(report.kept())
        .filteredOn(k -> k.snapshotId() == current)
        .singleElement()
        .satisfies(k -> assertThat(k.reason()).isEqualTo("current snapshot"));
    assertThat(report.kept()).extracting(k -> k.snapshotId()).hasSize(remaining.size());

    assertThat(report.filesDeleted()).isPositive();
    assertThat(manifestListsOfHistory)
        .allSatisfy(l -> assertThat(MaintenanceTables.localPath(l)).doesNotExist());
    assertThat(progress).anyMatch(l -> l.contains("expired " + (history.size() + 1)));
    assertThat(RowSets.read(table)).isEqualTo(rows);
  }

  @Test
  void withoutFlinkCommitsKeepsExactlyTheNewestNAndRowsStayTheSame() {
    HadoopCatalog catalog = TestCatalogs.hadoop(warehouse);
    TableIdentifier id = TableIdentifier.of("db", "plain");
    Table table = CdcTableGenerator.generate(catalog, id, SPEC).table();
    Map<String, Long> rows = RowSets.read(table);
    List<Long> newestThree = new ArrayList<>();
    for (Snapshot s = table.currentSnapshot(); newestThree.size() < 3; ) {
      newestThree.add(s.snapshotId());
      s = table.snapshot(s.parentId());
    }

    SnapshotExpiryReport report =
        new SnapshotExpiry(line -> {})
            .expire(table, new SnapshotExpirySettings(Duration.ofHours(1), 3, true, false), LATER);

    assertThat(snapshotIds(table)).containsExactlyInAnyOrderElementsOf(newestThree);
    assertThat(report.expiredCount()).isEqualTo(report.snapshotsBefore() - 3);
    assertThat(report.kept())
        .extracting(SnapshotExpiryReport.KeptSnapshot::reason)
        .containsExactly(
            "one of the newest 3 snapshots of a branch",
            "one of the newest 3 snapshots of a branch",
            "current snapshot");
    assertThat(RowSets.read(table)).isEqualTo(rows);
  }

  /**
   * A writer commits while expiry runs (found by the soak benchmark: a streaming job commits every
   * few seconds). The refreshed table then has a branch head the run never saw; the report is built
   * from the refs as they were when the run started, so the run neither fails after its commit nor
   * touches the new snapshot.
   */
  @Test
  void aCommitDuringTheRunIsNeitherExpiredNorAFailure() {
    HadoopCatalog catalog = TestCatalogs.hadoop(warehouse);
    TableIdentifier id = TableIdentifier.of("db", "busy");
    GeneratedTable generated = CdcTableGenerator.generate(catalog, id, SPEC);
    Table table = generated.table();
    int snapshotsBefore = snapshotIds(table).size();
    TableOperations ops = ((HasTableOperations) table).operations();
    int[] refreshes = {0};
    Table expiring =
        new BaseTable(
            new ForwardingTableOperations(ops) {
              @Override
              public TableMetadata refresh() {
                if (++refreshes[0] == 2) { // the refresh after expiry's own commit
                  generated.writer().commit(20, 2);
                }
                return super.refresh();
              }
            },
            table.name());

    SnapshotExpiryReport report =
        new SnapshotExpiry(line -> {})
            .expire(
                expiring, new SnapshotExpirySettings(Duration.ofHours(1), 3, true, false), LATER);

    table.refresh();
    assertThat(refreshes[0]).isGreaterThanOrEqualTo(2);
    // Iceberg counts the newest 3 from the head it commits against, which may already be the
    // writer's snapshot; the writer's snapshot stays either way, and the report adds up.
    Set<Long> after = snapshotIds(table);
    assertThat(after).contains(table.currentSnapshot().snapshotId()).hasSizeBetween(3, 4);
    assertThat(report.expiredCount()).isEqualTo(snapshotsBefore + 1 - after.size());
  }

  @Test
  void aDryRunAndYoungSnapshotsChangeNothing() {
    HadoopCatalog catalog = TestCatalogs.hadoop(warehouse);
    TableIdentifier id = TableIdentifier.of("db", "dry");
    Table table = CdcTableGenerator.generate(catalog, id, SPEC).table();
    Set<Long> before = snapshotIds(table);
    String metadata = MaintenanceTables.files(warehouse).toString();

    SnapshotExpiryReport dry =
        new SnapshotExpiry(line -> {})
            .expire(table, new SnapshotExpirySettings(Duration.ofHours(1), 1, true, true), LATER);
    assertThat(dry.dryRun()).isTrue();
    assertThat(dry.expiredCount()).isEqualTo(before.size() - 1);
    assertThat(dry.filesDeleted()).isZero();

    SnapshotExpiryReport young =
        new SnapshotExpiry(line -> {})
            .expire(
                table,
                new SnapshotExpirySettings(Duration.ofDays(30), 1, true, false),
                Instant.now());
    assertThat(young.expiredCount()).isZero();
    assertThat(young.kept()).isEmpty();

    assertThat(snapshotIds(table)).isEqualTo(before);
    assertThat(MaintenanceTables.files(warehouse).toString()).isEqualTo(metadata);
    assertThat(Files.exists(warehouse)).isTrue();
  }

  /** What Flink's committer does on a checkpoint (here without files: an empty commit). */
  private static long flinkCommit(Table table, String jobId, long checkpoint) {
    table.refresh();
    // Distinct commit times, so the expected order does not depend on the clock's resolution.
    long previous = table.currentSnapshot().timestampMillis();
    while (System.currentTimeMillis() <= previous) {
      Thread.onSpinWait();
    }
    table
        .newAppend()
        .set("flink.job-id", jobId)
        .set("flink.operator-id", OPERATOR)
        .set("flink.max-committed-checkpoint-id", Long.toString(checkpoint))
        .commit();
    return table.currentSnapshot().snapshotId();
  }
}
