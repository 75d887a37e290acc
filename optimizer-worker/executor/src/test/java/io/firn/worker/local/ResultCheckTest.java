/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.firn.core.commit.TaskResult;
import io.firn.core.plan.BinPackPlanner;
import io.firn.core.plan.OptimizingPlan;
import io.firn.core.plan.OptimizingType;
import io.firn.core.plan.RewriteTask;
import io.firn.core.policy.OptimizingPolicy;
import io.firn.worker.executor.ResultCheck;
import io.firn.worker.executor.RewriteExecutor;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server's check of a handed-in result ({@link ResultCheck}) on real executor output: what a
 * worker really wrote always passes, a result that names a file it may not have written does not.
 */
class ResultCheckTest {
  private static final long BLOOM = 1_000_000;
  private static final String ATTEMPT = "p1-t0-a1";

  @TempDir Path warehouse;

  /**
   * Found by the history soak (seeds 108, 109, 112): Iceberg names the position-delete file of an
   * unpartitioned spec {@code <data>//<file>} (an empty partition path), and the check refused the
   * empty segment as "not a plain path": every conversion on an unpartitioned table would have
   * failed on the server.
   */
  @Test
  void aConversionOnAnUnpartitionedTableIsAccepted() {
    Table table = converted("unpartitioned");
    RewriteTask task = convertTask(table);

    TaskResult result = new RewriteExecutor(BLOOM).execute(table, task, ATTEMPT);

    assertThat(result.positionDeletes()).isNotEmpty();
    assertThatCode(() -> ResultCheck.verify(table, task, ATTEMPT, result, BLOOM))
        .doesNotThrowAnyException();
  }

  /**
   * A path outside the plain data location ({@code ..}) or named for another attempt is refused by
   * its name, before the server opens it (found writing the test above: the check read a named
   * position-delete file first).
   */
  @Test
  void aPositionDeleteFileTheAttemptMayNotHaveWrittenIsRefusedUnread() {
    Table table = converted("dot-dot");
    RewriteTask task = convertTask(table);
    TaskResult result = new RewriteExecutor(BLOOM).execute(table, task, ATTEMPT);
    DeleteFile real = result.positionDeletes().get(0);
    String data = real.location().substring(0, real.location().indexOf("/data/") + 6);
    String name = real.location().substring(real.location().lastIndexOf('/') + 1);

    assertThatThrownBy(
            () ->
                ResultCheck.verify(
                    table, task, ATTEMPT, withDelete(table, result, data + "../" + name), BLOOM))
        .isInstanceOf(ResultCheck.RefusedException.class)
        .hasMessageContaining("not a plain path");
    assertThatThrownBy(() -> ResultCheck.verify(table, task, "p1-t0-a2", result, BLOOM))
        .isInstanceOf(ResultCheck.RefusedException.class)
        .hasMessageContaining("attempt id p1-t0-a2");
  }

  /**
   * A position-delete file holding exactly the checked positions of the converted file, whose
   * metadata names another data file or other positions, is refused: Iceberg would pair it by its
   * metadata (and not with the converted file, whose equality deletes the commit removes), and a
   * later task takes one or two positions from its bounds.
   */
  @Test
  void aPositionDeleteFileWhoseMetadataSaysOtherThanItsRowsIsRefused() {
    Table table = converted("forged-metadata");
    RewriteTask task = convertTask(table);
    TaskResult result = new RewriteExecutor(BLOOM).execute(table, task, ATTEMPT);
    DeleteFile real = result.positionDeletes().get(0);
    PartitionSpec spec = table.specs().get(real.specId());
    int pathId = MetadataColumns.DELETE_FILE_PATH.fieldId();
    int posId = MetadataColumns.DELETE_FILE_POS.fieldId();
    String other =
        real.location().substring(0, real.location().lastIndexOf('/')) + "/other.parquet";
    assertThat(real.lowerBounds())
        .as("Iceberg's writer keeps full bounds")
        .containsKeys(pathId, posId);

    DeleteFile referencingOther =
        FileMetadata.deleteFileBuilder(spec).copy(real).withReferencedDataFile(other).build();
    Map<Integer, ByteBuffer> otherPath = new HashMap<>(real.lowerBounds());
    otherPath.put(pathId, Conversions.toByteBuffer(Types.StringType.get(), other));
    DeleteFile boundsOfOther =
        FileMetadata.deleteFileBuilder(spec)
            .copy(real)
            .withMetrics(metrics(real, otherPath, otherPath))
            .build();
    Map<Integer, ByteBuffer> shifted = new HashMap<>(real.lowerBounds());
    long lowest = Conversions.fromByteBuffer(Types.LongType.get(), real.lowerBounds().get(posId));
    shifted.put(posId, Conversions.toByteBuffer(Types.LongType.get(), lowest + 1));
    DeleteFile otherPositions =
        FileMetadata.deleteFileBuilder(spec)
            .copy(real)
            .withMetrics(metrics(real, shifted, real.upperBounds()))
            .build();

    for (DeleteFile forged : List.of(referencingOther, boundsOfOther, otherPositions)) {
      assertThatThrownBy(
              () -> ResultCheck.verify(table, task, ATTEMPT, withDeleteFile(result, forged), BLOOM))
          .as("%s", forged)
          .isInstanceOf(ResultCheck.RefusedException.class)
          .hasMessageContaining("metadata");
    }
    assertThatCode(() -> ResultCheck.verify(table, task, ATTEMPT, result, BLOOM))
        .doesNotThrowAnyException();
  }

  /**
   * A rewritten data file whose key statistics leave out keys it holds is refused: Iceberg pairs a
   * later equality delete of such a key by those statistics, and would not apply it.
   */
  @Test
  void aDataFileWhoseKeyStatisticsLeaveOutKeysItHoldsIsRefused() {
    Table table = converted("forged-statistics");
    OptimizingPlan plan =
        new LocalOptimizer(OptimizingPolicy.DEFAULTS, new BinPackPlanner(), 1, line -> {})
            .plan(table, OptimizingType.FULL, Instant.now());
    RewriteTask task =
        plan.tasks().stream().filter(t -> !t.rewrite().isEmpty()).findFirst().orElseThrow();
    TaskResult result = new RewriteExecutor(BLOOM).execute(table, task, ATTEMPT);
    DataFile real = result.dataFiles().get(0);
    PartitionSpec spec = table.specs().get(real.specId());
    long lowest = Conversions.fromByteBuffer(Types.LongType.get(), real.lowerBounds().get(1));
    Map<Integer, ByteBuffer> raised = new HashMap<>(real.lowerBounds());
    raised.put(1, Conversions.toByteBuffer(Types.LongType.get(), lowest + 1));
    DataFile narrowed =
        DataFiles.builder(spec)
            .copy(real)
            .withMetrics(
                new Metrics(
                    real.recordCount(),
                    real.columnSizes(),
                    real.valueCounts(),
                    real.nullValueCounts(),
                    real.nanValueCounts(),
                    raised,
                    real.upperBounds()))
            .build();
    Map<Integer, Long> allNull = new HashMap<>(real.nullValueCounts());
    allNull.put(1, real.recordCount());
    DataFile nulled =
        DataFiles.builder(spec)
            .copy(real)
            .withMetrics(
                new Metrics(
                    real.recordCount(),
                    real.columnSizes(),
                    real.valueCounts(),
                    allNull,
                    real.nanValueCounts(),
                    real.lowerBounds(),
                    real.upperBounds()))
            .build();

    assertThatThrownBy(
            () -> ResultCheck.verify(table, task, ATTEMPT, withDataFile(result, narrowed), BLOOM))
        .isInstanceOf(ResultCheck.RefusedException.class)
        .hasMessageContaining("bounds");
    assertThatThrownBy(
            () -> ResultCheck.verify(table, task, ATTEMPT, withDataFile(result, nulled), BLOOM))
        .isInstanceOf(ResultCheck.RefusedException.class)
        .hasMessageContaining("metadata says");
    assertThatCode(() -> ResultCheck.verify(table, task, ATTEMPT, result, BLOOM))
        .doesNotThrowAnyException();
  }

  private static TaskResult withDataFile(TaskResult result, DataFile replacement) {
    List<DataFile> files = new java.util.ArrayList<>(result.dataFiles());
    files.set(0, replacement);
    return withFiles(result, files, result.positionDeletes());
  }

  private static Metrics metrics(
      DeleteFile file, Map<Integer, ByteBuffer> lowers, Map<Integer, ByteBuffer> uppers) {
    return new Metrics(
        file.recordCount(),
        file.columnSizes(),
        file.valueCounts(),
        file.nullValueCounts(),
        file.nanValueCounts(),
        lowers,
        uppers);
  }

  /** An unpartitioned table whose data file has equality deletes for 10 of its 100 keys. */
  private Table converted(String name) {
    Table table = UpsertCommits.createTable(warehouse, name, PartitionSpec.unpartitioned());
    UpsertCommits writer = new UpsertCommits(table);
    writer.upsert(0, 99, "a");
    writer.upsert(0, 9, "b");
    return table;
  }

  /** Minor with small targets converts the 100-row file's equality deletes. */
  private static RewriteTask convertTask(Table table) {
    OptimizingPlan plan =
        new LocalOptimizer(
                OptimizingPolicy.DEFAULTS.withOverrides(Map.of("target-size", "1KiB")),
                new BinPackPlanner(),
                1,
                line -> {})
            .plan(table, OptimizingType.MINOR, Instant.now());
    List<RewriteTask> converting =
        plan.tasks().stream().filter(t -> !t.convert().isEmpty()).toList();
    assertThat(converting).as("a converting task in %s", plan).isNotEmpty();
    return converting.get(0);
  }

  private static TaskResult withDelete(Table table, TaskResult result, String location) {
    DeleteFile real = result.positionDeletes().get(0);
    DeleteFile moved =
        FileMetadata.deleteFileBuilder(table.specs().get(real.specId()))
            .copy(real)
            .withPath(location)
            .build();
    return withDeleteFile(result, moved);
  }

  private static TaskResult withDeleteFile(TaskResult result, DeleteFile moved) {
    return withFiles(result, result.dataFiles(), List.of(moved));
  }

  /** The result as handed in, with other files: what a worker could forge. */
  private static TaskResult withFiles(
      TaskResult result, List<DataFile> dataFiles, List<DeleteFile> positionDeletes) {
    return new TaskResult(
        result.taskId(),
        dataFiles,
        positionDeletes,
        result.rowsRead(),
        result.rowsDeleted(),
        result.rowsWritten(),
        result.positionsWritten(),
        result.bytesRead(),
        result.bytesWritten(),
        result.equalityDeleteRecordsRead(),
        result.equalityDeleteKeysHeld(),
        result.nanos());
  }
}
