/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.core.commit.CommitOutcome;
import io.firn.core.commit.TaskResult;
import io.firn.core.plan.BinPackPlanner;
import io.firn.core.plan.OptimizingType;
import io.firn.core.policy.OptimizingPolicy;
import io.firn.testkit.CdcTableGenerator;
import io.firn.testkit.CdcTableSpec;
import io.firn.testkit.RowSets;
import io.firn.testkit.TestCatalogs;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With the Bloom pre-filter forced on (threshold 0), equality-delete keys that no row of a task has
 * are never held, and the rows stay exactly the same.
 */
class BloomFilteredDeletesTest {
  @TempDir Path warehouse;

  @Test
  void bloomFilteredDeleteKeysGiveTheSameRowsAndHoldFewerKeys() {
    HadoopCatalog catalog = TestCatalogs.hadoop(warehouse);
    // Small tasks: each carries the equality deletes of its whole partition, but rows of only a
    // few of its files, so most delete keys cannot match any of its rows.
    CdcTableSpec spec = new CdcTableSpec(8_000, 24, 0.10, 0.02, 0.02, 0, 11L, false, false);
    long heldWithBloom = optimize(catalog, "bloom", spec, "0");
    long heldWithout = optimize(catalog, "plain", spec, "1000000000");
    assertThat(heldWithBloom).isPositive().isLessThan(heldWithout);
  }

  /** Optimizes a fresh table fully; checks its rows; returns the delete keys held in memory. */
  private static long optimize(
      HadoopCatalog catalog, String name, CdcTableSpec spec, String bloomThreshold) {
    CdcTableGenerator.generate(catalog, TableIdentifier.of("db", name), spec);
    Table table = catalog.loadTable(TableIdentifier.of("db", name));
    Map<String, Long> before = RowSets.read(table);
    OptimizingPolicy policy =
        OptimizingPolicy.DEFAULTS.withOverrides(
            Map.of(
                "equality-delete.bloom-threshold",
                bloomThreshold,
                "target-size",
                "48KiB",
                "max-task-size",
                "48KiB"));
    OptimizeReport report =
        new LocalOptimizer(policy, new BinPackPlanner(), 2, line -> {})
            .optimize(table, OptimizingType.FULL, Instant.now());
    assertThat(report.outcomes()).isNotEmpty().allMatch(CommitOutcome::committed);
    assertThat(report.results()).hasSizeGreaterThan(2);
    table.refresh();
    assertThat(RowSets.read(table)).isEqualTo(before);
    return report.results().stream().mapToLong(TaskResult::equalityDeleteKeysHeld).sum();
  }
}
