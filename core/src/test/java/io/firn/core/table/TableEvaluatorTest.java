/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.core.policy.OptimizingPolicy;
import io.firn.testkit.CdcTableSpec;
import io.firn.testkit.TestCatalogs;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Cheap signals flag exactly the partitions the full read would find work in (after optimizing:
 * {@code CleanTableTest} of the executor).
 */
class TableEvaluatorTest {
  @TempDir Path warehouse;

  @Test
  void flagsEveryPartitionWithDeletesOrSmallFiles() {
    Table table = TestCatalogs.hadoopTable(warehouse, CdcTableSpec.small(4));

    TableEvaluator.Evaluation evaluation =
        TableEvaluator.evaluate(table, OptimizingPolicy.DEFAULTS);

    Set<String> expected = new TreeSet<>();
    for (PartitionFiles partition : TableScanner.scan(table).partitionFiles()) {
      expected.add(partition.key().path());
    }
    assertThat(evaluation.needsPlan()).isTrue();
    // Both specs' partitions (id_bucket_2=*, id_bucket_4=*) all have small files and deletes.
    assertThat(new TreeSet<>(evaluation.partitionPaths())).isEqualTo(expected);
    assertThat(evaluation.reason())
        .isEqualTo("6 of 6 partition(s) have delete files or small data files");
  }
}
