/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.core.plan.OptimizingType;
import io.firn.core.policy.OptimizingPolicy;
import io.firn.core.table.PartitionFiles;
import io.firn.core.table.TableEvaluator;
import io.firn.core.table.TableScanner;
import io.firn.testkit.CdcTableGenerator;
import io.firn.testkit.CdcTableSpec;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Cheap signals flag exactly the partitions the full read would find work in. */
class TableEvaluatorTest {
  @TempDir Path warehouse;

  @Test
  void flagsEveryPartitionWithDeletesOrSmallFilesAndNothingAfterFullOptimizing() {
    HadoopCatalog catalog = Tables.hadoopCatalog(warehouse);
    CdcTableGenerator.generate(catalog, TableIdentifier.of("db", "t"), CdcTableSpec.small(4));
    Table table = catalog.loadTable(TableIdentifier.of("db", "t"));
    OptimizingPolicy policy = OptimizingPolicy.DEFAULTS;

    TableEvaluator.Evaluation evaluation = TableEvaluator.evaluate(table, policy);

    Set<String> expected = new TreeSet<>();
    for (PartitionFiles partition : TableScanner.scan(table).partitionFiles()) {
      expected.add(partition.key().path());
    }
    assertThat(evaluation.needsPlan()).isTrue();
    // Both specs' partitions (id_bucket_2=*, id_bucket_4=*) all have small files and deletes.
    assertThat(new TreeSet<>(evaluation.partitionPaths())).isEqualTo(expected);
    assertThat(evaluation.reason())
        .isEqualTo("6 of 6 partition(s) have delete files or small data files");

    new LocalOptimizer(policy, 2, line -> {}).optimize(table, OptimizingType.FULL, Instant.now());
    table.refresh();

    TableEvaluator.Evaluation after = TableEvaluator.evaluate(table, policy);
    assertThat(after.needsPlan()).isFalse();
    assertThat(after.reason())
        .isEqualTo(
            "6 partition(s): none has delete files or 2 or more data files averaging below 96.0 MiB"
                + " (min-target-size-ratio × target-size)");
    assertThat(
            new LocalOptimizer(policy, 1, line -> {})
                .optimize(table, null, Instant.now())
                .plan()
                .note())
        .isEqualTo(after.reason());
  }
}
