/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.core.plan.OptimizingType;
import io.firn.core.policy.PolicyFile;
import io.firn.core.policy.PolicyParser;
import io.firn.server.policy.WindowCalendar;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The scheduler as a pure function: a snapshot of due tables in, decisions out. */
class SchedulerTest {
  private static final PolicyFile POLICY =
      PolicyParser.parse(
          "p.yaml",
          """
          version: 1
          groups:
            shared: {capacity: 2}
          windows:
            night: {time-zone: UTC, start: "01:00", end: "05:00"}
          defaults:
            group: shared
            full: {enabled: false}
            major: {enabled: false}
          rules:
            - name: important
              match: "lake.db.important*"
              priority: 10
            - name: nightly
              match: "lake.night.*"
              minor: {windows: [night]}
              max-delay: off
            - name: off
              match: "lake.off.*"
              minor: {enabled: false}
          """);
  private static final WindowCalendar CALENDAR = WindowCalendar.of(POLICY);
  private static final Instant NOON = Instant.parse("2026-06-01T12:00:00Z");

  @Test
  void higherPriorityWorseHealthAndLongerWaitsGoFirst() {
    Scheduler.Due important = due("lake.db.important", 80, NOON);
    Scheduler.Due sick = due("lake.db.sick", 10, NOON);
    Scheduler.Due healthy = due("lake.db.healthy", 90, NOON);
    Scheduler.Due old = due("lake.db.old", 90, NOON.minus(Duration.ofDays(2)));

    List<Scheduler.Choice> choices = choose(List.of(healthy, sick, important, old), 10, Map.of());

    // score = (priority + 1) × (101 − health) × (1 + hours waited)
    assertThat(score(important)).isEqualTo(11.0 * 21);
    assertThat(score(sick)).isEqualTo(91.0);
    assertThat(score(healthy)).isEqualTo(11.0);
    assertThat(score(old)).isEqualTo(11.0 * 49);
    assertThat(choices)
        .extracting(c -> c.table().table())
        .containsExactly("lake.db.old", "lake.db.important", "lake.db.sick", "lake.db.healthy");
  }

  @Test
  void aFullGroupAndAFullServerMakeTablesWaitWithTheirReason() {
    List<Scheduler.Choice> choices =
        choose(
            List.of(
                due("lake.db.important", 50, NOON),
                due("lake.db.a", 50, NOON),
                due("lake.db.b", 50, NOON)),
            10,
            Map.of("shared", 1));

    assertThat(choices.get(0).starts()).isTrue();
    assertThat(choices.get(1).waiting()).isEqualTo("group shared is full (capacity 2 task(s))");
    assertThat(choices.get(1).deferred()).isEqualTo("group");
    assertThat(choices.get(2).deferred()).isEqualTo("group");

    List<Scheduler.Choice> slots =
        choose(
            List.of(due("lake.db.important", 50, NOON), due("lake.db.a", 50, NOON)), 1, Map.of());
    assertThat(slots.get(0).starts()).isTrue();
    assertThat(slots.get(1).waiting())
        .isEqualTo(
            "waiting for a free process slot (3 running, optimizing.maxConcurrentProcesses = 4)");
    assertThat(slots.get(1).deferred()).as("a full server is not a deferral").isNull();
  }

  @Test
  void closedWindowsAndDisabledWorkWaitUnlessAnOperatorAsked() {
    Scheduler.Due night = due("lake.night.t", 50, NOON);
    Scheduler.Due off = due("lake.off.t", 50, NOON);
    Scheduler.Due asked = new Scheduler.Due("lake.night.asked", 50, NOON, OptimizingType.MINOR);

    List<Scheduler.Choice> choices = choose(List.of(night, off, asked), 10, Map.of());

    Map<String, Scheduler.Choice> byTable = new HashMap<>();
    choices.forEach(c -> byTable.put(c.table().table(), c));
    assertThat(byTable.get("lake.night.t").deferred()).isEqualTo("window");
    assertThat(byTable.get("lake.night.t").waiting()).contains("night");
    assertThat(byTable.get("lake.off.t").deferred()).isEqualTo("disabled");
    assertThat(byTable.get("lake.night.asked").starts()).isTrue();

    Scheduler.Scheduling atNight =
        Scheduler.schedule(
            night, POLICY.resolve(night.table()), CALENDAR, Instant.parse("2026-06-01T02:00:00Z"));
    assertThat(atNight.allowed()).containsExactly(OptimizingType.MINOR);
    assertThat(atNight.closesAt())
        .containsEntry(OptimizingType.MINOR, Instant.parse("2026-06-01T05:00:00Z"));
  }

  @Test
  void aCriticalTableMayRunMinorOutsideItsWindowAfterMaxDelay() {
    Scheduler.Due critical = due("lake.db.late", Scheduler.CRITICAL_HEALTH - 1, NOON);
    Scheduler.Scheduling noWindow =
        Scheduler.schedule(
            critical, POLICY.resolve("lake.night.late"), CALENDAR, NOON.plus(Duration.ofDays(1)));
    assertThat(noWindow.allowed()).as("max-delay off for lake.night.*").isEmpty();
  }

  private static List<Scheduler.Choice> choose(
      List<Scheduler.Due> due, int free, Map<String, Integer> load) {
    Map<Scheduler.Due, Scheduler.Scheduling> scheduling = new LinkedHashMap<>();
    due.forEach(
        d -> scheduling.put(d, Scheduler.schedule(d, POLICY.resolve(d.table()), CALENDAR, NOON)));
    return Scheduler.choose(scheduling, free, load, 3, 4);
  }

  private static double score(Scheduler.Due due) {
    return Scheduler.schedule(due, POLICY.resolve(due.table()), CALENDAR, NOON).score();
  }

  private static Scheduler.Due due(String table, int health, Instant since) {
    return new Scheduler.Due(table, health, since, null);
  }
}
