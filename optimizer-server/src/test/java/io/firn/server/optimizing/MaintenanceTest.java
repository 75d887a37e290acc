/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.firn.testkit.CdcTableSpec;
import io.firn.testkit.GeneratedTable;
import io.firn.testkit.RowSets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server runs snapshot expiry and orphan cleanup when the table's policy enables them, and
 * records what they changed in the process history; rows stay the same.
 */
class MaintenanceTest {
  @TempDir Path dir;

  @Test
  void policyEnabledExpiryAndOrphanCleanupRunAndKeepRows() throws Exception {
    String policy =
        """
        version: 1
        defaults:
          minor: {enabled: false}
          major: {enabled: false}
          full: {enabled: false}
          expire-snapshots: {enabled: true, interval: 1h}
          orphan-files: {enabled: true, interval: 1d}
        """;
    // Two days after the table is written: its snapshots are older than max-age.
    Instant later = Instant.now().plus(Duration.ofDays(2));
    try (ServiceHarness harness =
        new ServiceHarness(
            dir,
            policy,
            later,
            config -> {},
            Map.of("expire-snapshots.max-age", "1h", "expire-snapshots.retain-last", "1"))) {
      GeneratedTable generated =
          harness.generate(
              "events", new CdcTableSpec(1_000, 6, 0.1, 0.0, 0.0, 2, 5L, false, false));
      Table table = generated.table();
      Map<String, Long> before = RowSets.read(table);
      int snapshotsBefore = toList(table.snapshots()).size();
      assertThat(snapshotsBefore).isGreaterThan(2);
      Path orphan = Path.of(table.location().replaceFirst("^file:", ""), "data", "stray.parquet");
      Files.createDirectories(orphan.getParent());
      Files.writeString(orphan, "not referenced by any snapshot");
      Files.setLastModifiedTime(orphan, FileTime.from(Instant.now().minus(Duration.ofDays(10))));

      harness.evaluate("events");
      await()
          .atMost(60, TimeUnit.SECONDS)
          .untilAsserted(
              () -> {
                List<ProcessRecord> runs = harness.processes("events");
                assertThat(runs)
                    .extracting(ProcessRecord::type, ProcessRecord::status)
                    .contains(
                        org.assertj.core.groups.Tuple.tuple(
                            "expire-snapshots", ProcessStatus.SUCCEEDED),
                        org.assertj.core.groups.Tuple.tuple(
                            "orphan-files", ProcessStatus.SUCCEEDED));
              });
      ProcessRecord expiry =
          harness.processes("events").stream()
              .filter(p -> p.type().equals("expire-snapshots"))
              .findFirst()
              .orElseThrow();
      assertThat(expiry.message())
          .startsWith((snapshotsBefore - 1) + " of " + snapshotsBefore + " snapshot(s) expired");
      table.refresh();
      assertThat(toList(table.snapshots())).hasSize(1);
      assertThat(orphan).doesNotExist();
      assertThat(RowSets.read(table)).isEqualTo(before);

      // Nothing is due again within the interval: no new history rows.
      int recorded = harness.processes("events").size();
      harness.service.tick();
      harness.service.tick();
      assertThat(harness.processes("events")).hasSize(recorded);
    }
  }

  @Test
  void manifestRewriteMergesSmallDataManifestsAndKeepsRows() throws Exception {
    String policy =
        """
        version: 1
        defaults:
          minor: {enabled: false}
          major: {enabled: false}
          full: {enabled: false}
        """;
    try (ServiceHarness harness =
        new ServiceHarness(
            dir,
            policy,
            Instant.now(),
            config -> {},
            Map.of(
                "dangling-deletes.enabled", "false",
                "rewrite-manifests.interval", "1h",
                "rewrite-manifests.min-count", "3"))) {
      GeneratedTable generated =
          harness.generate(
              "stream", new CdcTableSpec(1_000, 8, 0.1, 0.0, 0.0, 2, 7L, false, false));
      Table table = generated.table();
      Map<String, Long> before = RowSets.read(table);
      int manifestsBefore = table.currentSnapshot().dataManifests(table.io()).size();
      assertThat(manifestsBefore).isGreaterThanOrEqualTo(3);

      harness.evaluate("stream");
      await()
          .atMost(60, TimeUnit.SECONDS)
          .untilAsserted(
              () ->
                  assertThat(harness.processes("stream"))
                      .extracting(ProcessRecord::type, ProcessRecord::status)
                      .contains(
                          org.assertj.core.groups.Tuple.tuple(
                              "rewrite-manifests", ProcessStatus.SUCCEEDED)));
      ProcessRecord run =
          harness.processes("stream").stream()
              .filter(p -> p.type().equals("rewrite-manifests"))
              .findFirst()
              .orElseThrow();
      assertThat(run.message())
          .isEqualTo(
              "committed: rewrote "
                  + manifestsBefore
                  + " of "
                  + manifestsBefore
                  + " data manifest(s) into 1");
      table.refresh();
      assertThat(table.currentSnapshot().dataManifests(table.io())).hasSize(1);
      // The snapshot leads to its run in the process history.
      assertThat(table.currentSnapshot().summary())
          .containsEntry("firn.optimizing-type", "rewrite-manifests")
          .containsEntry("firn.process-id", run.processId());
      assertThat(RowSets.read(table)).isEqualTo(before);

      // Not due again within the interval, and nothing left to merge anyway: no new history rows.
      int recorded = harness.processes("stream").size();
      harness.service.tick();
      harness.service.tick();
      assertThat(harness.processes("stream")).hasSize(recorded);
    }
  }

  private static <T> List<T> toList(Iterable<T> iterable) {
    List<T> list = new java.util.ArrayList<>();
    iterable.forEach(list::add);
    return list;
  }
}
