/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.core.commit.CommitOutcome;
import io.firn.core.commit.Committer;
import io.firn.core.commit.TaskResult;
import io.firn.core.plan.BinPackPlanner;
import io.firn.core.plan.OptimizingPlan;
import io.firn.core.plan.OptimizingType;
import io.firn.core.plan.PartitionPlan;
import io.firn.core.policy.OptimizingPolicy;
import io.firn.core.table.DataFileEntry;
import io.firn.testkit.CdcTableGenerator;
import io.firn.testkit.CdcTableSpec;
import io.firn.testkit.CdcWriter;
import io.firn.testkit.GeneratedTable;
import io.firn.testkit.RowSets;
import io.firn.testkit.TestCatalogs;
import io.firn.worker.executor.RewriteExecutor;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.OutputFileFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Optimizing commits next to a live upserting writer (ARCHITECTURE.md, "Committing next to live
 * writers").
 */
class ConcurrentWriterTest {
  private static final OptimizingPolicy POLICY =
      OptimizingPolicy.DEFAULTS.withOverrides(Map.of("target-size", "64KiB"));

  @TempDir Path warehouse;

  @Test
  void everyOptimizingCommitSucceedsOrFailsCleanlyWhileAWriterKeepsUpserting() throws Exception {
    HadoopCatalog catalog = TestCatalogs.hadoop(warehouse);
    TableIdentifier id = TableIdentifier.of("db", "live");
    GeneratedTable generated = CdcTableGenerator.generate(catalog, id, CdcTableSpec.small(4));
    CdcWriter writer = generated.writer();
    Table table = catalog.loadTable(id);

    AtomicBoolean stop = new AtomicBoolean();
    AtomicReference<Throwable> writerError = new AtomicReference<>();
    Thread upserts =
        new Thread(
            () -> {
              try {
                while (!stop.get()) {
                  writer.commit(120, 4);
                  // A streaming writer commits once per checkpoint (seconds); 5 per second is
                  // harsh.
                  Thread.sleep(200);
                }
              } catch (Throwable t) {
                writerError.set(t);
              }
            },
            "upserting-writer");
    upserts.start();

    List<CommitOutcome> outcomes = new ArrayList<>();
    LocalOptimizer optimizer = new LocalOptimizer(POLICY, new BinPackPlanner(), 2, line -> {});
    long writerCommitsBefore = writer.commits();
    try {
      for (OptimizingType type :
          List.of(
              OptimizingType.MINOR,
              OptimizingType.MAJOR,
              OptimizingType.FULL,
              OptimizingType.MINOR)) {
        table.refresh();
        outcomes.addAll(optimizer.optimize(table, type, Instant.now()).outcomes());
      }
    } finally {
      stop.set(true);
      upserts.join();
    }
    assertThat(writerError.get()).isNull();
    assertThat(writer.commits())
        .as("the writer kept committing")
        .isGreaterThan(writerCommitsBefore);
    assertThat(outcomes)
        .allSatisfy(
            o ->
                assertThat(o.result())
                    .isIn(CommitOutcome.Result.COMMITTED, CommitOutcome.Result.CONFLICT));
    assertThat(outcomes).anyMatch(CommitOutcome::committed);

    table.refresh();
    assertThat(RowSets.read(table))
        .isEqualTo(RowSets.of(writer.expected().values(), table.schema()));
  }

  @Test
  void aConcurrentPartitionScopedPositionDeleteFailsThatGroupAndALaterRunSucceeds()
      throws Exception {
    HadoopCatalog catalog = TestCatalogs.hadoop(warehouse);
    TableIdentifier id = TableIdentifier.of("db", "conflict");
    CdcTableSpec spec = new CdcTableSpec(3_000, 12, 0.05, 0.01, 0.02, 2, 7L, false, false);
    CdcTableGenerator.generate(catalog, id, spec);
    Table table = catalog.loadTable(id);
    long snapshotBefore = table.currentSnapshot().snapshotId();

    LocalOptimizer optimizer = new LocalOptimizer(POLICY, new BinPackPlanner(), 2, line -> {});
    OptimizingPlan plan = optimizer.plan(table, OptimizingType.FULL, Instant.now());
    String processId = RewriteExecutor.newOperationId();
    List<TaskResult> results = optimizer.runTasks(table, plan, processId);

    // Meanwhile, another engine deletes two rows with one partition-scoped position-delete file
    // (it names two data files, like Spark merge-on-read with partition granularity).
    PartitionPlan victim = plan.duePartitions().get(0);
    List<DataFileEntry> targets =
        victim.tasks().stream().flatMap(t -> t.rewrite().stream()).limit(2).toList();
    assertThat(targets).hasSize(2);
    DeleteFile scoped = writePartitionScopedDelete(table, victim, targets);
    table.newRowDelta().addDeletes(scoped).commit();
    Map<String, Long> expected = RowSets.read(table);
    assertThat(expected.values().stream().mapToLong(Long::longValue).sum())
        .isEqualTo(RowSets.read(table).values().stream().mapToLong(Long::longValue).sum());

    List<CommitOutcome> outcomes = optimizer.commit(table, plan, results, processId);

    CommitOutcome failed =
        outcomes.stream().filter(o -> victim.key().equals(o.partition())).findFirst().orElseThrow();
    assertThat(failed.result()).isEqualTo(CommitOutcome.Result.CONFLICT);
    assertThat(failed.message())
        .contains("found new position delete for replaced data file")
        .contains("partition left unchanged");
    table.refresh();
    assertThat(RowSets.read(table)).isEqualTo(expected);
    assertThat(table.currentSnapshot().snapshotId()).isNotEqualTo(snapshotBefore);

    OptimizeReport again = optimizer.optimize(table, OptimizingType.FULL, Instant.now());
    assertThat(again.outcomes()).isNotEmpty().allMatch(CommitOutcome::committed);
    table.refresh();
    assertThat(RowSets.read(table)).isEqualTo(expected);
    assertThat(Tables.totalDeleteFiles(table)).isZero();
  }

  @Test
  void aCommitBegunWhileTheTasksRanKeepsTheDeletesAWriterCommittedMeanwhile() throws Exception {
    HadoopCatalog catalog = TestCatalogs.hadoop(warehouse);
    TableIdentifier id = TableIdentifier.of("db", "prepared");
    GeneratedTable generated = CdcTableGenerator.generate(catalog, id, CdcTableSpec.small(4));
    CdcWriter writer = generated.writer();
    Table table = catalog.loadTable(id);

    LocalOptimizer optimizer = new LocalOptimizer(POLICY, new BinPackPlanner(), 2, line -> {});
    OptimizingPlan plan = optimizer.plan(table, OptimizingType.FULL, Instant.now());
    String processId = RewriteExecutor.newOperationId();
    Committer.Prepared prepared = new Committer().prepare(table, plan, processId).orElseThrow();
    List<TaskResult> results = optimizer.runTasks(table, plan, processId);
    // After the commit was begun: upserts of keys the rewritten files hold (equality deletes with
    // a sequence number above the plan's) and new rows.
    writer.commit(200, 4);
    writer.commit(200, 4);

    List<CommitOutcome> outcomes = optimizer.commit(table, plan, results, processId, prepared);

    assertThat(outcomes).isNotEmpty().allMatch(CommitOutcome::committed);
    table.refresh();
    assertThat(prepared.committedSnapshotId())
        .as("committed through the prepared transaction")
        .hasValue(table.currentSnapshot().snapshotId());
    assertThat(RowSets.read(table))
        .isEqualTo(RowSets.of(writer.expected().values(), table.schema()));
  }

  @Test
  void aCommitBegunWhileTheTasksRanConflictsWithANewPositionDeleteAndTheOtherPartitionsCommit()
      throws Exception {
    HadoopCatalog catalog = TestCatalogs.hadoop(warehouse);
    TableIdentifier id = TableIdentifier.of("db", "prepared_conflict");
    CdcTableSpec spec = new CdcTableSpec(3_000, 12, 0.05, 0.01, 0.02, 2, 7L, false, false);
    CdcTableGenerator.generate(catalog, id, spec);
    Table table = catalog.loadTable(id);

    LocalOptimizer optimizer = new LocalOptimizer(POLICY, new BinPackPlanner(), 2, line -> {});
    OptimizingPlan plan = optimizer.plan(table, OptimizingType.FULL, Instant.now());
    assertThat(plan.duePartitions()).hasSizeGreaterThan(1);
    String processId = RewriteExecutor.newOperationId();
    Committer.Prepared prepared = new Committer().prepare(table, plan, processId).orElseThrow();
    List<TaskResult> results = optimizer.runTasks(table, plan, processId);
    PartitionPlan victim = plan.duePartitions().get(0);
    List<DataFileEntry> targets =
        victim.tasks().stream().flatMap(t -> t.rewrite().stream()).limit(2).toList();
    table.newRowDelta().addDeletes(writePartitionScopedDelete(table, victim, targets)).commit();
    Map<String, Long> expected = RowSets.read(table);

    List<CommitOutcome> outcomes = optimizer.commit(table, plan, results, processId, prepared);

    assertThat(prepared.committedSnapshotId()).isEmpty();
    CommitOutcome failed =
        outcomes.stream().filter(o -> victim.key().equals(o.partition())).findFirst().orElseThrow();
    assertThat(failed.result()).isEqualTo(CommitOutcome.Result.CONFLICT);
    assertThat(failed.message()).contains("found new position delete for replaced data file");
    assertThat(outcomes.stream().filter(o -> !victim.key().equals(o.partition())))
        .isNotEmpty()
        .allMatch(CommitOutcome::committed);
    table.refresh();
    assertThat(RowSets.read(table)).isEqualTo(expected);
  }

  @Test
  void aCommitBegunAndNotUsedLeavesNoFileInTheTableMetadata() throws Exception {
    HadoopCatalog catalog = TestCatalogs.hadoop(warehouse);
    TableIdentifier id = TableIdentifier.of("db", "prepared_unused");
    CdcTableGenerator.generate(catalog, id, CdcTableSpec.small(4));
    Table table = catalog.loadTable(id);
    Map<String, Long> expected = RowSets.read(table);
    Path metadata = Path.of(table.location().replaceFirst("^file:", ""), "metadata");
    Set<Path> before = Tables.filesUnder(metadata);

    LocalOptimizer optimizer = new LocalOptimizer(POLICY, new BinPackPlanner(), 2, line -> {});
    OptimizingPlan plan = optimizer.plan(table, OptimizingType.FULL, Instant.now());
    String processId = RewriteExecutor.newOperationId();
    Committer.Prepared prepared = new Committer().prepare(table, plan, processId).orElseThrow();
    List<TaskResult> results = optimizer.runTasks(table, plan, processId);
    // One partition's result is lost (a worker that never reported): that partition is not
    // committed, so the combined commit begun for all of them cannot be used.
    PartitionPlan lost = plan.duePartitions().get(0);
    Set<Integer> lostTasks = new HashSet<>();
    lost.tasks().forEach(t -> lostTasks.add(t.id()));
    List<TaskResult> kept = results.stream().filter(r -> !lostTasks.contains(r.taskId())).toList();
    long snapshotBefore = table.currentSnapshot().snapshotId();

    prepared.discard();

    assertThat(Tables.filesUnder(metadata))
        .as("the early apply's manifests and manifest list are deleted")
        .isEqualTo(before);
    List<CommitOutcome> outcomes = optimizer.commit(table, plan, kept, processId, prepared);
    assertThat(prepared.committedSnapshotId()).isEmpty();
    assertThat(outcomes.stream().filter(o -> lost.key().equals(o.partition())))
        .singleElement()
        .satisfies(o -> assertThat(o.result()).isEqualTo(CommitOutcome.Result.FAILED));
    table.refresh();
    assertThat(table.currentSnapshot().snapshotId()).isNotEqualTo(snapshotBefore);
    assertThat(RowSets.read(table)).isEqualTo(expected);
  }

  private static DeleteFile writePartitionScopedDelete(
      Table table, PartitionPlan partition, List<DataFileEntry> targets) throws Exception {
    PartitionSpec spec = table.specs().get(partition.key().specId());
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table).deleteFileFormat(FileFormat.PARQUET).build();
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 99, 99).format(FileFormat.PARQUET).build();
    PositionDeleteWriter<Record> writer =
        writers.newPositionDeleteWriter(
            files.newOutputFile(spec, partition.partition()), spec, partition.partition());
    List<String> paths = targets.stream().map(DataFileEntry::path).sorted().toList();
    try (writer) {
      PositionDelete<Record> delete = PositionDelete.create();
      for (String path : paths) {
        writer.write(delete.set(path, 0L));
      }
    }
    return writer.toDeleteFile();
  }
}
