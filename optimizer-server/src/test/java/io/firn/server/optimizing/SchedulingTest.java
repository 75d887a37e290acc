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
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The server's scheduler obeys policy windows, groups and priorities, with a clock the test moves
 * (ADR 0007). Real tables; the worker runs in this JVM.
 */
class SchedulingTest {
  private static final CdcTableSpec SMALL =
      new CdcTableSpec(3_000, 14, 0.05, 0.02, 0.02, 2, 11L, false, false);

  @TempDir Path dir;

  @Test
  void fullOptimizingWaitsForItsShanghaiWindowAndRunsAfterOneAm() throws Exception {
    String policy =
        """
        version: 1
        windows:
          night: {time-zone: Asia/Shanghai, start: "01:00", end: "05:00"}
        defaults:
          minor: {enabled: false}
          major: {enabled: false}
          full: {enabled: true, windows: [night], interval: 1d}
        """;
    ZoneId shanghai = ZoneId.of("Asia/Shanghai");
    Instant noon = ZonedDateTime.of(2026, 6, 1, 12, 0, 0, 0, shanghai).toInstant();
    try (ServiceHarness harness = new ServiceHarness(dir, policy, noon)) {
      GeneratedTable generated = harness.generate("orders", SMALL);
      Map<String, Long> before = RowSets.read(generated.table());
      harness.evaluate("orders");
      harness.service.tick();
      TableStateRecord waiting = harness.state("orders");
      assertThat(waiting.status()).isEqualTo(TableStatus.PENDING);
      assertThat(waiting.reason())
          .isEqualTo(
              "full waits: window night is closed; next opening night at 2026-06-01T17:00:00Z");
      assertThat(harness.lastProcess("orders")).isNull();

      harness.clock.set(ZonedDateTime.of(2026, 6, 2, 1, 5, 0, 0, shanghai).toInstant());
      harness.startWorker(2);
      await()
          .atMost(60, TimeUnit.SECONDS)
          .untilAsserted(
              () -> {
                ProcessRecord process = harness.lastProcess("orders");
                assertThat(process).isNotNull();
                assertThat(process.status()).isEqualTo(ProcessStatus.SUCCEEDED);
                assertThat(process.type()).isEqualTo("full");
              });
      Table table = harness.table("orders");
      assertThat(RowSets.read(table)).isEqualTo(before);
      assertThat(table.currentSnapshot().summary()).containsEntry("total-delete-files", "0");
    }
  }

  /**
   * A table made due by a new snapshot, or by an operator's trigger, plans at once, not at the next
   * tick (ADR 0044): with the round's interval at an hour, only the wake can start either process.
   */
  @Test
  void aTableThatBecomesDueWakesTheRoundInsteadOfWaitingForTheNextTick() throws Exception {
    Instant start = Instant.parse("2026-06-01T00:00:00Z");
    try (ServiceHarness harness =
        new ServiceHarness(
            dir,
            "version: 1\n",
            start,
            config -> config.setSchedulingInterval(io.dropwizard.util.Duration.hours(1)))) {
      harness.generate("orders", SMALL);
      // The first round runs 200 ms after start; the next would be an hour later. Wait until the
      // first has surely run, so that it cannot be what plans the table.
      Thread.sleep(1_000);
      harness.evaluate("orders");
      await()
          .atMost(30, TimeUnit.SECONDS)
          .until(() -> harness.state("orders").status() == TableStatus.OPTIMIZING);
      String first = java.util.Objects.requireNonNull(harness.state("orders").lastProcessId());
      harness.service.cancel("lake", "db", "orders");
      await()
          .atMost(30, TimeUnit.SECONDS)
          .until(() -> harness.state("orders").status() == TableStatus.IDLE);

      harness.service.trigger("lake", "db", "orders", io.firn.core.plan.OptimizingType.FULL);
      await()
          .atMost(30, TimeUnit.SECONDS)
          .until(
              () ->
                  harness.state("orders").status() == TableStatus.OPTIMIZING
                      && !first.equals(harness.state("orders").lastProcessId()));
      String second = java.util.Objects.requireNonNull(harness.state("orders").lastProcessId());
      await()
          .atMost(30, TimeUnit.SECONDS)
          .untilAsserted(
              () -> {
                ProcessRecord process = harness.store.process(second);
                assertThat(process).isNotNull();
                assertThat(process.type()).isEqualTo("full");
              });
    }
  }

  /** Europe/Berlin springs forward on 2026-03-29 (02:00 → 03:00) and falls back on 2026-10-25. */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"2026-03-29", "2026-10-25"})
  void windowsFollowTheWallClockAcrossDaylightSavingChanges(String day) throws Exception {
    String policy =
        """
        version: 1
        windows:
          early: {time-zone: Europe/Berlin, start: "03:30", end: "05:00"}
        defaults:
          minor: {enabled: true, windows: [early]}
          major: {enabled: true, windows: [early]}
          full: {enabled: false}
        """;
    ZoneId berlin = ZoneId.of("Europe/Berlin");
    ZonedDateTime opening =
        ZonedDateTime.of(java.time.LocalDate.parse(day), java.time.LocalTime.of(3, 30), berlin);
    Instant before = opening.toInstant().minus(Duration.ofMinutes(20));
    try (ServiceHarness harness = new ServiceHarness(dir, policy, before)) {
      harness.generate("orders", SMALL);
      harness.evaluate("orders");
      harness.service.tick();
      assertThat(harness.state("orders").status()).isEqualTo(TableStatus.PENDING);
      assertThat(harness.state("orders").reason())
          .startsWith("minor waits: window early is closed; next opening early at ")
          .endsWith(opening.toInstant().toString());

      harness.clock.set(opening.toInstant().plus(Duration.ofMinutes(1)));
      harness.service.tick();
      await()
          .atMost(30, TimeUnit.SECONDS)
          .untilAsserted(() -> assertThat(harness.lastProcess("orders")).isNotNull());
    }
  }

  @ParameterizedTest(name = "on-window-close: {0}")
  @ValueSource(strings = {"cancel", "finish"})
  void aWindowClosingMidProcessCancelsOrFinishesPerPolicy(String onClose) throws Exception {
    String policy =
        """
        version: 1
        windows:
          evening: {time-zone: UTC, start: "22:00", end: "23:00"}
        defaults:
          minor: {enabled: true, windows: [evening]}
          major: {enabled: true, windows: [evening]}
          full: {enabled: false}
          on-window-close: %s
        """
            .formatted(onClose);
    Instant open = Instant.parse("2026-06-01T22:10:00Z");
    try (ServiceHarness harness = new ServiceHarness(dir, policy, open)) {
      GeneratedTable generated = harness.generate("orders", SMALL);
      Map<String, Long> before = RowSets.read(generated.table());
      long snapshot = generated.table().currentSnapshot().snapshotId();
      harness.evaluate("orders");
      harness.service.tick();
      await()
          .atMost(30, TimeUnit.SECONDS)
          .until(() -> harness.state("orders").status() == TableStatus.OPTIMIZING);
      String process = harness.state("orders").lastProcessId();

      // No worker yet: the window closes while every task is pending.
      harness.clock.set(Instant.parse("2026-06-01T23:00:01Z"));
      harness.service.windowClosed("evening");
      if (onClose.equals("cancel")) {
        ProcessRecord cancelled = harness.store.process(process);
        assertThat(cancelled.status()).isEqualTo(ProcessStatus.CANCELLED);
        assertThat(cancelled.message())
            .isEqualTo("window evening closed (on-window-close: cancel)");
        assertThat(harness.store.tasks(process))
            .allSatisfy(t -> assertThat(t.status()).isEqualTo(TaskStatus.CANCELLED));
        harness.startWorker(1);
        harness.clock.advance(Duration.ofMinutes(1));
        harness.service.tick();
        assertThat(harness.state("orders").status()).isEqualTo(TableStatus.PENDING);
        assertThat(harness.state("orders").reason())
            .isEqualTo(
                "minor waits: window evening is closed; next opening evening at"
                    + " 2026-06-02T22:00:00Z");
        Table table = harness.table("orders");
        assertThat(table.currentSnapshot().snapshotId()).isEqualTo(snapshot);
        assertThat(RowSets.read(table)).isEqualTo(before);
      } else {
        assertThat(harness.store.process(process).status()).isEqualTo(ProcessStatus.RUNNING);
        harness.startWorker(1);
        await()
            .atMost(60, TimeUnit.SECONDS)
            .until(() -> harness.store.process(process).status() == ProcessStatus.SUCCEEDED);
        assertThat(RowSets.read(harness.table("orders"))).isEqualTo(before);
      }
    }
  }

  @Test
  void aGroupOfCapacityOneRunsTheHigherPriorityTableFirstAndStarvesNeitherOverADay()
      throws Exception {
    String policy =
        """
        version: 1
        groups:
          shared: {capacity: 1}
        defaults:
          group: shared
        rules:
          - name: important
            match: "lake.db.important"
            priority: 10
        """;
    Instant start = Instant.parse("2026-06-01T00:00:00Z");
    try (ServiceHarness harness = new ServiceHarness(dir, policy, start)) {
      GeneratedTable important = harness.generate("important", SMALL.withSeed(1));
      GeneratedTable other = harness.generate("other", SMALL.withSeed(2));
      harness.evaluateTogether("other", "important");
      harness.service.tick();
      await()
          .atMost(30, TimeUnit.SECONDS)
          .until(() -> harness.state("important").status() == TableStatus.OPTIMIZING);
      harness.service.tick();
      assertThat(harness.state("other").status()).isEqualTo(TableStatus.PENDING);
      assertThat(harness.state("other").reason())
          .isEqualTo("group shared is full (capacity 1 task(s))");
      assertThat(harness.lastProcess("other")).isNull();

      harness.startWorker(2);
      // A simulated day: every 3 hours both tables receive writes; both keep being optimized.
      for (int round = 0; round < 8; round++) {
        await()
            .atMost(90, TimeUnit.SECONDS)
            .untilAsserted(
                () -> {
                  assertThat(harness.state("important").status()).isEqualTo(TableStatus.IDLE);
                  assertThat(harness.state("other").status()).isEqualTo(TableStatus.IDLE);
                  assertThat(harness.state("important").needsPlan()).isFalse();
                  assertThat(harness.state("other").needsPlan()).isFalse();
                });
        harness.clock.advance(Duration.ofHours(3));
        important.writer().commit(60, 6);
        other.writer().commit(60, 6);
        for (int i = 0; i < 6; i++) {
          important.writer().commit(10, 1);
          other.writer().commit(10, 1);
        }
        harness.evaluate("important");
        harness.evaluate("other");
      }
      assertThat(
              harness.processes("important").stream()
                  .filter(p -> p.status() == ProcessStatus.SUCCEEDED)
                  .count())
          .isGreaterThanOrEqualTo(8);
      assertThat(
              harness.processes("other").stream()
                  .filter(p -> p.status() == ProcessStatus.SUCCEEDED)
                  .count())
          .isGreaterThanOrEqualTo(8);
      assertThat(RowSets.read(harness.table("important")))
          .isEqualTo(
              RowSets.of(
                  important.writer().expected().values(), harness.table("important").schema()));
      assertThat(RowSets.read(harness.table("other")))
          .isEqualTo(
              RowSets.of(other.writer().expected().values(), harness.table("other").schema()));
    }
  }
}
