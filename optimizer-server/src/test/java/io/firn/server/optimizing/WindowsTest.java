/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.core.plan.BinPackPlanner;
import io.firn.core.plan.OptimizingPlan;
import io.firn.core.plan.OptimizingType;
import io.firn.core.plan.PartitionPlan;
import io.firn.core.policy.OptimizingPolicy;
import io.firn.testkit.CdcTableGenerator;
import io.firn.testkit.CdcTableSpec;
import io.firn.worker.local.LocalOptimizer;
import java.nio.file.Path;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Cutting a plan to its windows: by allowed type, and by the bytes that fit before the close. */
class WindowsTest {
  @TempDir Path warehouse;
  private OptimizingPlan plan;

  @BeforeEach
  void plan() {
    HadoopCatalog catalog = new HadoopCatalog();
    catalog.setConf(new Configuration());
    catalog.initialize("test", Map.of("warehouse", warehouse.toUri().toString()));
    CdcTableGenerator.generate(
        catalog,
        TableIdentifier.of("db", "t"),
        new CdcTableSpec(4_000, 12, 0.05, 0.02, 0.02, 4, 9L, false, false));
    Table table = catalog.loadTable(TableIdentifier.of("db", "t"));
    plan =
        new LocalOptimizer(OptimizingPolicy.DEFAULTS, new BinPackPlanner(), 1, line -> {})
            .plan(table, OptimizingType.MAJOR, Instant.now());
    assertThat(plan.duePartitions()).hasSize(4);
  }

  @Test
  void fitKeepsWhatFitsInTheBudgetAndAlwaysTheFirstPartition() {
    PartitionPlan first = plan.duePartitions().get(0);
    OptimizingPlan cut =
        Windows.fit(plan, EnumSet.of(OptimizingType.MAJOR), first.rewriteBytes(), "test budget");
    assertThat(cut.duePartitions()).extracting(PartitionPlan::key).containsExactly(first.key());
    assertThat(cut.partitions())
        .filteredOn(p -> !p.due())
        .hasSize(3)
        .allSatisfy(
            p ->
                assertThat(p.reason())
                    .startsWith(
                        "left for later so the window's work finishes in time (test budget): "));
    assertThat(cut.note()).endsWith("3 partition(s) wait for the next window");

    OptimizingPlan none = Windows.fit(plan, EnumSet.of(OptimizingType.MAJOR), 0, "no time");
    assertThat(none.duePartitions()).hasSize(1);
    OptimizingPlan all = Windows.fit(plan, EnumSet.of(OptimizingType.MAJOR), Long.MAX_VALUE, "x");
    assertThat(all).isSameAs(plan);
  }

  @Test
  void partitionsOfTypesNotSizedOrAllowedAreTreatedByTheirOwnRule() {
    assertThat(Windows.fit(plan, Set.of(OptimizingType.FULL), 0, "x")).isSameAs(plan);
    OptimizingPlan restricted = Windows.restrict(plan, EnumSet.of(OptimizingType.MINOR));
    assertThat(restricted.duePartitions()).isEmpty();
    assertThat(restricted.partitions())
        .allSatisfy(
            p ->
                assertThat(p.reason())
                    .startsWith("major optimizing is due but outside its windows: "));
    assertThat(Windows.restrict(plan, EnumSet.of(OptimizingType.MAJOR))).isSameAs(plan);
  }
}
