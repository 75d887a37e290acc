/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.firn.testkit.CdcTableSpec;
import io.firn.testkit.HistoryRewritingCatalog;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The integrity alarm after a commit, for real: right after each Firn commit a concurrent party
 * moves the table back past the writer's last commit ({@link HistoryRewritingCatalog}). The
 * server's check after the commit notices, counts {@code firn.integrity.check.failures}, records
 * the process as failed with the reason, and records the tasks as committed (their output is in the
 * snapshot Firn committed).
 */
class IntegrityAlarmTest {
  private static final Instant T0 = Instant.parse("2026-06-01T00:00:00Z");

  @TempDir Path dir;

  @Test
  void aHistoryThatLosesFirnsCommitIsAnAlarmWithTheCommittedSnapshot() throws Exception {
    try (ServiceHarness harness =
        new ServiceHarness(
            dir,
            "version: 1\n",
            T0,
            config -> {},
            Map.of("dangling-deletes.enabled", "false", "rewrite-manifests.enabled", "false"),
            HistoryRewritingCatalog.class.getName())) {
      harness.generate("orders", CdcTableSpec.small(2));
      harness.startWorker(2);
      harness.evaluate("orders");

      ProcessRecord process =
          await()
              .atMost(60, TimeUnit.SECONDS)
              .until(() -> harness.lastProcess("orders"), p -> p != null && p.finishedAt() != null);

      assertThat(process.status()).isEqualTo(ProcessStatus.FAILED);
      assertThat(process.message()).contains("snapshot history check failed", "(committed, it");
      assertThat(harness.registry.get("firn.integrity.check.failures").counter().count())
          .isGreaterThanOrEqualTo(1);
      // The alarmed partition's tasks are committed (their files are live); nothing else of the
      // process is committed after the alarm.
      List<TaskRecord> tasks = harness.store.tasks(process.processId());
      List<TaskRecord> alarmed =
          tasks.stream().filter(t -> t.message().startsWith("integrity_failed: ")).toList();
      assertThat(alarmed).isNotEmpty().allMatch(t -> t.status() == TaskStatus.COMMITTED);
      assertThat(tasks)
          .filteredOn(t -> !alarmed.contains(t))
          .allMatch(t -> t.status() == TaskStatus.FAILED, "failed");
    }
  }
}
