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
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scanning only the flagged partitions (pushed into Iceberg's scan as a filter) sees exactly the
 * files and attached deletes the full scan sees for those partitions, across a spec change.
 */
class TableScannerPushdownTest {
  @TempDir Path warehouse;

  @Test
  void aPrunedScanSeesTheSameFilesAsTheFullScanForItsPartitions() {
    Table table = TestCatalogs.hadoopTable(warehouse, CdcTableSpec.small(4));
    long snapshot = table.currentSnapshot().snapshotId();
    TableFiles full = TableScanner.scan(table);
    Map<PartitionKey, StructLike> flagged =
        TableEvaluator.evaluate(table, OptimizingPolicy.DEFAULTS).partitions();
    assertThat(flagged.keySet()).isEqualTo(full.partitions().keySet());

    // One partition of the old spec and one of the current spec.
    Map<PartitionKey, StructLike> chosen = new LinkedHashMap<>();
    new TreeMap<>(flagged)
        .entrySet().stream()
            .filter(e -> e.getKey().specId() == 0)
            .findFirst()
            .ifPresent(e -> chosen.put(e.getKey(), e.getValue()));
    new TreeMap<>(flagged)
        .entrySet().stream()
            .filter(e -> e.getKey().specId() == 1)
            .reduce((a, b) -> b)
            .ifPresent(e -> chosen.put(e.getKey(), e.getValue()));
    assertThat(chosen).hasSize(2);

    TableFiles pruned = TableScanner.scan(table, snapshot, chosen);

    assertThat(pruned.complete()).isFalse();
    assertThat(pruned.partitions().keySet()).isEqualTo(chosen.keySet());
    for (PartitionKey key : chosen.keySet()) {
      assertThat(describe(pruned.partitions().get(key)))
          .as("files of %s", key)
          .isEqualTo(describe(full.partitions().get(key)));
    }
  }

  private static Set<String> describe(PartitionFiles partition) {
    Set<String> lines = new TreeSet<>();
    for (DataFileEntry entry : partition.dataFiles()) {
      Set<String> deletes = new TreeSet<>();
      for (DeleteFile delete : entry.deletes()) {
        deletes.add(delete.location());
      }
      lines.add(entry.path() + " <- " + deletes);
    }
    for (DeleteFile dangling : partition.danglingDeletes()) {
      lines.add("dangling " + dangling.location());
    }
    return lines;
  }
}
