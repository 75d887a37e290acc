/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.core.commit.CommitOutcome;
import io.firn.core.maintenance.OrphanCleanupSettings;
import io.firn.core.maintenance.OrphanFileCleanup;
import io.firn.core.maintenance.SnapshotExpiry;
import io.firn.core.maintenance.SnapshotExpirySettings;
import io.firn.core.plan.BinPackPlanner;
import io.firn.core.plan.OptimizingType;
import io.firn.core.policy.OptimizingPolicy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Readers that time-travel: a snapshot inside the retention window still returns its own rows after
 * Firn rewrote every file and removed every delete file it used, and after Firn's snapshot expiry
 * and orphan cleanup ran with their defaults; past the retention window it is gone.
 */
class TimeTravelTest {
  @TempDir Path warehouse;

  @Test
  void aRetainedSnapshotReadsItsOwnRowsAfterFirnRewroteItsFiles() {
    Table table =
        UpsertCommits.createTable(
            warehouse,
            "travel",
            PartitionSpec.builderFor(UpsertCommits.SCHEMA).bucket("id", 2).build());
    UpsertCommits writer = new UpsertCommits(table);
    writer.upsert(0, 99, "a");
    writer.upsert(0, 29, "b");
    writer.delete(List.of(5L, 6L, 70L));
    table.refresh();
    long travelTo = table.currentSnapshot().snapshotId();
    Instant committedAt = Instant.ofEpochMilli(table.currentSnapshot().timestampMillis());
    Map<String, Integer> then = rowsAt(table, travelTo);
    assertThat(then).hasSize(97);
    writer.upsert(30, 39, "c");

    LocalOptimizer optimizer =
        new LocalOptimizer(OptimizingPolicy.DEFAULTS, new BinPackPlanner(), 1, line -> {});
    OptimizeReport report = optimizer.optimize(table, OptimizingType.FULL, Instant.now());
    assertThat(report.outcomes()).isNotEmpty().allMatch(CommitOutcome::committed);
    assertThat(Tables.totalDeleteFiles(table)).isZero();
    DeleteScopeTest.assertSameRows(table, writer);

    // Firn's maintenance with its defaults: 12 h of snapshots kept, orphans older than 3 days.
    Instant inRetention = committedAt.plus(Duration.ofHours(11));
    new SnapshotExpiry(line -> {}).expire(table, SnapshotExpirySettings.DEFAULTS, inRetention);
    new OrphanFileCleanup(line -> {})
        .clean(
            table, OrphanCleanupSettings.DEFAULTS, Map.of(), inRetention.plus(Duration.ofDays(4)));
    table.refresh();
    assertThat(table.snapshot(travelTo)).isNotNull();
    assertThat(rowsAt(table, travelTo)).isEqualTo(then);

    new SnapshotExpiry(line -> {})
        .expire(table, SnapshotExpirySettings.DEFAULTS, committedAt.plus(Duration.ofHours(13)));
    table.refresh();
    assertThat(table.snapshot(travelTo)).as("past max-age the snapshot is expired").isNull();
    DeleteScopeTest.assertSameRows(table, writer);
  }

  /** The rows of a snapshot as {@code "id=v" -> count}. */
  private static Map<String, Integer> rowsAt(Table table, long snapshotId) {
    Map<String, Integer> rows = new HashMap<>();
    try (CloseableIterable<Record> records =
        IcebergGenerics.read(table).useSnapshot(snapshotId).build()) {
      for (Record record : records) {
        rows.merge(record.getField("id") + "=" + record.getField("v"), 1, Integer::sum);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }
}
