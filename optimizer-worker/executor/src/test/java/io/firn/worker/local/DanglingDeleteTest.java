/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.core.commit.CommitOutcome;
import io.firn.core.plan.BinPackPlanner;
import io.firn.core.plan.OptimizingPlan;
import io.firn.core.plan.PartitionPlan;
import io.firn.core.policy.OptimizingPolicy;
import io.firn.testkit.KeyedPartTable;
import io.firn.testkit.RowSets;
import io.firn.testkit.TestCatalogs;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Delete files that can no longer apply to any live data file are found and removed. */
class DanglingDeleteTest {
  @TempDir Path warehouse;

  @Test
  void anEqualityDeleteOlderThanEveryLiveDataFileIsPlannedAndRemoved() throws Exception {
    KeyedPartTable keyed =
        KeyedPartTable.create(TestCatalogs.hadoop(warehouse), TableIdentifier.of("db", "dangling"));
    Table table = keyed.table();

    // Partition a keeps a file of the first sequence number, so Iceberg does not drop the
    // delete by itself (it drops deletes older than every live data file of the table).
    DataFile other = keyed.data("a", 10);
    DataFile first = keyed.data("b", 1, 2, 3);
    table.newAppend().appendFile(other).appendFile(first).commit();
    DeleteFile deleteTwo = keyed.equalityDelete("b", 2);
    table.newRowDelta().addDeletes(deleteTwo).commit();
    // Another tool rewrites partition b without dropping the delete: the new file has a higher
    // sequence number, so the delete applies to nothing any more.
    DataFile rewritten = keyed.data("b", 1, 3);
    table.newOverwrite().deleteFile(first).addFile(rewritten).commit();
    Map<String, Long> rows = RowSets.read(table);
    assertThat(rows).hasSize(3);
    assertThat(Tables.totalDeleteFiles(table)).isEqualTo(1);

    LocalOptimizer optimizer =
        new LocalOptimizer(OptimizingPolicy.DEFAULTS, new BinPackPlanner(), 1, line -> {});
    OptimizingPlan plan = optimizer.plan(table, null, Instant.now());
    PartitionPlan partition =
        plan.partitions().stream()
            .filter(p -> p.key().path().equals("part=b"))
            .findFirst()
            .orElseThrow();
    assertThat(partition.statistics().danglingDeleteFiles()).isEqualTo(1);
    assertThat(partition.deletesToRemove())
        .extracting(DeleteFile::location)
        .containsExactly(deleteTwo.location());
    assertThat(partition.reason()).isEqualTo("1 dangling delete file(s) to remove");

    OptimizeReport report = optimizer.optimize(table, null, Instant.now());
    assertThat(report.outcomes()).isNotEmpty().allMatch(CommitOutcome::committed);
    table.refresh();
    assertThat(Tables.liveDeleteFiles(table, FileContent.EQUALITY_DELETES)).isEmpty();
    assertThat(Tables.totalDeleteFiles(table)).isZero();
    assertThat(RowSets.read(table)).isEqualTo(rows);
  }
}
