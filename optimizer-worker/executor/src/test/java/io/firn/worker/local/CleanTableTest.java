/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.core.plan.BinPackPlanner;
import io.firn.core.plan.OptimizingType;
import io.firn.core.policy.OptimizingPolicy;
import io.firn.core.table.TableEvaluator;
import io.firn.testkit.CdcTableSpec;
import io.firn.testkit.TestCatalogs;
import java.nio.file.Path;
import java.time.Instant;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * After full optimizing, cheap signals flag nothing and a run plans nothing, for the same reason
 * (before it: core's {@code TableEvaluatorTest}).
 */
class CleanTableTest {
  @TempDir Path warehouse;

  @Test
  void cheapSignalsFlagNothingAfterFullOptimizing() {
    Table table = TestCatalogs.hadoopTable(warehouse, CdcTableSpec.small(4));
    OptimizingPolicy policy = OptimizingPolicy.DEFAULTS;
    assertThat(TableEvaluator.evaluate(table, policy).needsPlan()).isTrue();

    new LocalOptimizer(policy, new BinPackPlanner(), 2, line -> {})
        .optimize(table, OptimizingType.FULL, Instant.now());
    table.refresh();

    TableEvaluator.Evaluation after = TableEvaluator.evaluate(table, policy);
    assertThat(after.needsPlan()).isFalse();
    assertThat(after.reason())
        .isEqualTo(
            "6 partition(s): none has delete files or 2 or more data files averaging below 96.0 MiB"
                + " (min-target-size-ratio × target-size)");
    assertThat(
            new LocalOptimizer(policy, new BinPackPlanner(), 1, line -> {})
                .optimize(table, null, Instant.now())
                .plan()
                .note())
        .isEqualTo(after.reason());
  }
}
