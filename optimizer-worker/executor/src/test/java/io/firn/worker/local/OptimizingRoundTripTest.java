/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.core.commit.CommitOutcome;
import io.firn.core.plan.BinPackPlanner;
import io.firn.core.plan.OptimizingPlan;
import io.firn.core.plan.OptimizingType;
import io.firn.core.plan.PartitionPlan;
import io.firn.core.policy.OptimizingPolicy;
import io.firn.core.table.DataFileEntry;
import io.firn.core.table.FileKind;
import io.firn.core.table.PartitionFiles;
import io.firn.core.table.PartitionKey;
import io.firn.core.table.TableFiles;
import io.firn.core.table.TableScanner;
import io.firn.testkit.CdcTableGenerator;
import io.firn.testkit.CdcTableSpec;
import io.firn.testkit.GeneratedTable;
import io.firn.testkit.RowSets;
import io.firn.testkit.TestCatalogs;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Minor, major and full optimizing on partitioned and unpartitioned Flink-shaped tables (schema and
 * spec change in their history) leave the table's rows, read by Iceberg's own generic reader,
 * exactly as they were.
 */
class OptimizingRoundTripTest {
  private static final OptimizingPolicy POLICY =
      OptimizingPolicy.DEFAULTS.withOverrides(Map.of("target-size", "64KiB"));

  @TempDir Path warehouse;

  static Stream<Arguments> cases() {
    return Stream.of(OptimizingType.MINOR, OptimizingType.MAJOR, OptimizingType.FULL)
        .flatMap(type -> Stream.of(Arguments.of(type, 4), Arguments.of(type, 0)));
  }

  @ParameterizedTest(name = "{0} optimizing, {1} buckets")
  @MethodSource("cases")
  void optimizingKeepsEveryRowAndRemovesWhatItPromises(OptimizingType type, int buckets) {
    HadoopCatalog catalog = TestCatalogs.hadoop(warehouse);
    GeneratedTable generated =
        CdcTableGenerator.generate(
            catalog, TableIdentifier.of("db", "cdc"), CdcTableSpec.small(buckets));
    Table table = catalog.loadTable(TableIdentifier.of("db", "cdc"));
    Map<String, Long> before = RowSets.read(table);
    assertThat(before)
        .isEqualTo(RowSets.of(generated.writer().expected().values(), table.schema()));
    Set<String> eqDeletesBefore = Tables.liveDeleteFiles(table, FileContent.EQUALITY_DELETES);
    assertThat(eqDeletesBefore).isNotEmpty();
    Set<String> dataBefore = dataFiles(table);
    TableFiles filesBefore = TableScanner.scan(table);

    LocalOptimizer optimizer = new LocalOptimizer(POLICY, new BinPackPlanner(), 2, line -> {});
    OptimizeReport report = optimizer.optimize(table, type, Instant.now());

    assertThat(report.outcomes()).isNotEmpty().allMatch(CommitOutcome::committed);
    table.refresh();
    assertThat(RowSets.read(table)).isEqualTo(before);
    assertThat(report.rowsRead() - report.results().stream().mapToLong(r -> r.rowsDeleted()).sum())
        .isEqualTo(report.rowsWritten());

    switch (type) {
      case FULL -> {
        assertThat(Tables.totalDeleteFiles(table)).isZero();
        for (PartitionPlan planned : report.plan().duePartitions()) {
          long bytes = planned.statistics().dataBytes();
          long files = countDataFiles(table, planned.key());
          assertThat(files)
              .as("data files in %s", planned.key())
              .isLessThanOrEqualTo((bytes + POLICY.targetSize() - 1) / POLICY.targetSize() + 1);
        }
      }
      case MINOR -> {
        // Every fragment of an optimized partition was rewritten; what is left is new output.
        OptimizingPlan plan = report.plan();
        Set<String> after = dataFiles(table);
        for (PartitionPlan planned : plan.duePartitions()) {
          List<DataFileEntry> read = filesBefore.partitions().get(planned.key()).dataFiles();
          for (DataFileEntry entry : read) {
            if (FileKind.of(entry.sizeInBytes(), POLICY) == FileKind.FRAGMENT
                && read.stream()
                        .filter(e -> FileKind.of(e.sizeInBytes(), POLICY) == FileKind.FRAGMENT)
                        .count()
                    >= 2) {
              assertThat(after)
                  .as("fragment %s left in %s", entry.path(), planned.key())
                  .doesNotContain(entry.path());
            }
          }
        }
        // Every equality delete applied only to rewritten or converted files, so none is left.
        assertThat(Tables.liveDeleteFiles(table, FileContent.EQUALITY_DELETES)).isEmpty();
      }
      case MAJOR -> {
        assertThat(Tables.liveDeleteFiles(table, FileContent.EQUALITY_DELETES)).isEmpty();
        assertThat(dataFiles(table)).hasSizeLessThan(dataBefore.size());
      }
      default -> throw new AssertionError(type);
    }

    // A second run right after finds less or nothing to do and keeps the rows.
    OptimizeReport again = optimizer.optimize(table, type, Instant.now());
    assertThat(again.outcomes()).allMatch(CommitOutcome::committed);
    table.refresh();
    assertThat(RowSets.read(table)).isEqualTo(before);
  }

  private static Set<String> dataFiles(Table table) {
    table.refresh();
    Set<String> paths = new HashSet<>();
    for (PartitionFiles partition : TableScanner.scan(table).partitionFiles()) {
      partition.dataFiles().forEach(e -> paths.add(e.path()));
    }
    return paths;
  }

  private static long countDataFiles(Table table, PartitionKey key) {
    PartitionFiles files = TableScanner.scan(table).partitions().get(key);
    return files == null ? 0 : files.dataFiles().size();
  }
}
