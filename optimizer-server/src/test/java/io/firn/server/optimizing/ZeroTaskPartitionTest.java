/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.firn.core.plan.OptimizingPlan;
import io.firn.core.plan.OptimizingType;
import io.firn.core.plan.PartitionPlan;
import io.firn.testkit.CdcTableSpec;
import io.firn.testkit.GeneratedTable;
import io.firn.testkit.RowSets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A due partition whose only work is removing dangling delete files has no task for a worker: the
 * service commits it at once (issue 6: with CDC input such a process never finished and its table
 * stayed "optimizing" while delete files piled up).
 *
 * <p>The shape comes from Flink's upsert writer: a commit writes each partition's data file and an
 * equality-delete file for the same keys with the same sequence number, so on a partition's first
 * commit the equality deletes apply to no live data file (dangling) and its one data file needs no
 * rewrite.
 */
class ZeroTaskPartitionTest {
  private static final String POLICY = "version: 1\n";
  private static final Instant T0 = Instant.parse("2026-06-01T00:00:00Z");

  /** One Flink commit of 100 new keys into two buckets: per bucket 1 data + 1 dangling eq file. */
  private static final CdcTableSpec FIRST_COMMIT =
      new CdcTableSpec(100, 1, 0.0, 0.0, 0.0, 2, 7L, false, false);

  @TempDir Path dir;

  @Test
  void aProcessWhosePartitionsHaveNoTasksCommitsTheirDeleteRemovalAndTheTableIsPlannedAgain()
      throws Exception {
    try (ServiceHarness harness = new ServiceHarness(dir, POLICY, T0)) {
      GeneratedTable generated = harness.generate("users", FIRST_COMMIT);
      Map<String, Long> before = RowSets.read(generated.table());
      assertThat(deleteFiles(generated.table())).isEqualTo(2);

      // The dry run shows the shape: two due minor partitions, no task, a delete file each.
      OptimizingPlan plan = harness.service.preview("lake", "db", "users", null);
      assertThat(plan.tasks()).isEmpty();
      assertThat(plan.duePartitions())
          .hasSize(2)
          .allSatisfy(
              p -> {
                assertThat(p.type()).isEqualTo(OptimizingType.MINOR);
                assertThat(p.reason()).isEqualTo("1 dangling delete file(s) to remove");
                assertThat(p.deletesToRemove()).hasSize(1);
              });

      // No worker at all: nothing of this process needs one.
      harness.evaluate("users");
      ProcessRecord process = awaitSucceeded(harness, 30);
      assertThat(process)
          .extracting(
              ProcessRecord::type,
              ProcessRecord::partitions,
              ProcessRecord::tasks,
              ProcessRecord::committedGroups,
              ProcessRecord::message)
          .containsExactly("minor", 2, 0, 2, "2 of 2 partition(s) committed");
      Table table = harness.table("users");
      assertThat(deleteFiles(table)).isZero();
      assertThat(RowSets.read(table)).isEqualTo(before);
      // Planned once more after the process: nothing due, the table is idle.
      await()
          .atMost(30, TimeUnit.SECONDS)
          .untilAsserted(
              () -> {
                assertThat(harness.state("users").status()).isEqualTo(TableStatus.IDLE);
                assertThat(harness.state("users").needsPlan()).isFalse();
              });

      // New writes make the table due again: it is planned and optimized as usual.
      for (int i = 0; i < 12; i++) {
        generated.writer().commit(5, 0);
      }
      harness.startWorker(1);
      harness.evaluate("users");
      await()
          .atMost(60, TimeUnit.SECONDS)
          .untilAsserted(
              () -> {
                List<ProcessRecord> done =
                    harness.processes("users").stream()
                        .filter(p -> p.status() == ProcessStatus.SUCCEEDED && p.tasks() > 0)
                        .toList();
                assertThat(done).isNotEmpty();
                assertThat(harness.state("users").status()).isEqualTo(TableStatus.IDLE);
                assertThat(harness.state("users").needsPlan()).isFalse();
              });
      assertThat(RowSets.read(harness.table("users")))
          .isEqualTo(
              RowSets.of(generated.writer().expected().values(), harness.table("users").schema()));
    }
  }

  @Test
  void aZeroTaskPartitionBesideRewrittenOnesDoesNotHoldTheProcessBack() throws Exception {
    try (ServiceHarness harness = new ServiceHarness(dir, POLICY, T0)) {
      GeneratedTable generated = harness.generate("users", FIRST_COMMIT);
      // One more key: its bucket now has two fragments to rewrite, the other bucket only its
      // dangling delete file to remove.
      generated.writer().commit(1, 0);
      Map<String, Long> before = RowSets.read(generated.table());
      OptimizingPlan plan = harness.service.preview("lake", "db", "users", null);
      assertThat(plan.duePartitions()).extracting(p -> p.tasks().size()).containsOnly(0, 1);
      PartitionPlan metadataOnly =
          plan.duePartitions().stream().filter(p -> p.tasks().isEmpty()).findFirst().orElseThrow();

      harness.startWorker(1);
      harness.evaluate("users");
      ProcessRecord process = awaitSucceeded(harness, 60);
      assertThat(process)
          .extracting(ProcessRecord::partitions, ProcessRecord::tasks)
          .containsExactly(2, 1);
      assertThat(harness.store.tasks(process.processId()))
          .extracting(TaskRecord::status)
          .containsExactly(TaskStatus.COMMITTED);
      Table table = harness.table("users");
      assertThat(deleteFiles(table)).isZero();
      assertThat(RowSets.read(table)).isEqualTo(before);
      assertThat(metadataOnly.deletesToRemove()).hasSize(1);
      await()
          .atMost(30, TimeUnit.SECONDS)
          .untilAsserted(
              () -> assertThat(harness.state("users").status()).isEqualTo(TableStatus.IDLE));
    }
  }

  /** The table's last process once it succeeded. */
  private static ProcessRecord awaitSucceeded(ServiceHarness harness, int seconds) {
    await()
        .atMost(seconds, TimeUnit.SECONDS)
        .untilAsserted(
            () -> {
              ProcessRecord process = harness.lastProcess("users");
              assertThat(process).isNotNull();
              assertThat(process.status()).isEqualTo(ProcessStatus.SUCCEEDED);
            });
    return harness.lastProcess("users");
  }

  private static long deleteFiles(Table table) {
    table.refresh();
    return Long.parseLong(table.currentSnapshot().summary().get("total-delete-files"));
  }
}
