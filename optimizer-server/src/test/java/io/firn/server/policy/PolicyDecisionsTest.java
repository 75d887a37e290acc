/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.core.policy.PolicyFile;
import io.firn.core.policy.PolicyFile.EffectivePolicy;
import io.firn.core.policy.PolicyFile.WorkKind;
import io.firn.core.policy.PolicyParser;
import io.firn.server.policy.PolicyDecisions.CloseAction;
import io.firn.server.policy.PolicyDecisions.Decision;
import io.firn.server.policy.PolicyDecisions.Disabled;
import io.firn.server.policy.PolicyDecisions.MaxDelayOverride;
import io.firn.server.policy.PolicyDecisions.Start;
import io.firn.server.policy.PolicyDecisions.TableState;
import io.firn.server.policy.PolicyDecisions.WindowClosed;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PolicyDecisionsTest {
  private static final PolicyFile POLICY =
      PolicyParser.parse(
          "p.yaml",
          """
          version: 1
          windows:
            shanghai-night: {time-zone: Asia/Shanghai, start: "01:00", end: "05:00"}
            berlin-night: {time-zone: Europe/Berlin, start: "01:00", end: "05:00"}
            late: {time-zone: UTC, start: "22:00", end: "04:00"}
            early: {time-zone: UTC, start: "03:00", end: "06:00"}
            evening: {time-zone: UTC, cron: "0 0 22 * * ?", duration: 2h}
          defaults:
            minor: {enabled: true}
            major: {enabled: true, windows: [late]}
            full: {enabled: true, windows: [shanghai-night], interval: 1d}
            expire-snapshots: {enabled: false}
            max-delay: 6h
          rules:
            - name: berlin
              match: "eu.*.*"
              full: {windows: [berlin-night]}
              minor: {windows: [evening]}
              on-window-close: cancel
            - name: night-minor
              match: "lake.night.*"
              minor: {windows: [late, early]}
            - name: strict
              match: "lake.strict.*"
              minor: {windows: [late]}
              max-delay: off
          """);
  private static final WindowCalendar CALENDAR = WindowCalendar.of(POLICY);

  private static Decision decide(
      String table, WorkKind kind, MutableClock clock, TableState state) {
    return PolicyDecisions.mayStart(POLICY.resolve(table), kind, CALENDAR, clock, state);
  }

  @Test
  void fullLimitedToOneToFiveShanghaiDoesNotStartAtNoonAndStartsAfterOne() {
    MutableClock clock = MutableClock.at("2026-12-01T04:00:00Z"); // 12:00 in Shanghai
    Decision noon = decide("lake.db.t", WorkKind.FULL, clock, TableState.HEALTHY);
    assertThat(noon)
        .isEqualTo(
            new WindowClosed(
                WorkKind.FULL,
                List.of("shanghai-night"),
                Optional.of("shanghai-night"),
                Optional.of(Instant.parse("2026-12-01T17:00:00Z"))));
    assertThat(noon.mayStart()).isFalse();
    assertThat(noon.reason())
        .isEqualTo(
            "full waits: window shanghai-night is closed; next opening shanghai-night at"
                + " 2026-12-01T17:00:00Z");

    clock.set("2026-12-01T17:00:01Z"); // 01:00:01 in Shanghai
    Decision night = decide("lake.db.t", WorkKind.FULL, clock, TableState.HEALTHY);
    assertThat(night)
        .isEqualTo(
            new Start(
                WorkKind.FULL,
                List.of("shanghai-night"),
                Optional.of(Instant.parse("2026-12-01T21:00:00Z"))));
    assertThat(((Start) night).remaining(clock.instant()))
        .contains(Duration.ofHours(4).minusSeconds(1));
    assertThat(night.reason())
        .isEqualTo("full may start: window shanghai-night open until 2026-12-01T21:00:00Z");

    clock.set("2026-12-01T21:00:00Z"); // 05:00
    assertThat(decide("lake.db.t", WorkKind.FULL, clock, TableState.HEALTHY).mayStart()).isFalse();
  }

  @Test
  void fullInBerlinFollowsTheSpringForwardAndFallBackDays() {
    MutableClock clock = MutableClock.at("2026-03-28T23:59:59Z"); // 00:59:59 CET
    assertThat(decide("eu.db.t", WorkKind.FULL, clock, TableState.HEALTHY).mayStart()).isFalse();
    clock.set("2026-03-29T00:00:00Z"); // 01:00 CET
    assertThat(decide("eu.db.t", WorkKind.FULL, clock, TableState.HEALTHY))
        .isEqualTo(
            new Start(
                WorkKind.FULL,
                List.of("berlin-night"),
                Optional.of(Instant.parse("2026-03-29T03:00:00Z")))); // 05:00 CEST
    clock.set("2026-03-29T03:00:00Z");
    assertThat(decide("eu.db.t", WorkKind.FULL, clock, TableState.HEALTHY).mayStart()).isFalse();

    clock.set("2026-10-24T22:59:59Z"); // 00:59:59 CEST
    assertThat(decide("eu.db.t", WorkKind.FULL, clock, TableState.HEALTHY).mayStart()).isFalse();
    clock.set("2026-10-24T23:00:00Z"); // 01:00 CEST
    assertThat(decide("eu.db.t", WorkKind.FULL, clock, TableState.HEALTHY))
        .isEqualTo(
            new Start(
                WorkKind.FULL,
                List.of("berlin-night"),
                Optional.of(Instant.parse("2026-10-25T04:00:00Z")))); // 05:00 CET
    clock.set("2026-10-25T03:59:59Z");
    assertThat(decide("eu.db.t", WorkKind.FULL, clock, TableState.HEALTHY).mayStart()).isTrue();
  }

  @Test
  void anOvernightWindowAllowsWorkOnBothSidesOfMidnight() {
    MutableClock clock = MutableClock.at("2026-12-01T21:59:00Z");
    assertThat(decide("lake.db.t", WorkKind.MAJOR, clock, TableState.HEALTHY).mayStart()).isFalse();
    clock.set("2026-12-01T23:30:00Z");
    assertThat(decide("lake.db.t", WorkKind.MAJOR, clock, TableState.HEALTHY).mayStart()).isTrue();
    clock.set("2026-12-02T03:30:00Z");
    assertThat(decide("lake.db.t", WorkKind.MAJOR, clock, TableState.HEALTHY))
        .isEqualTo(
            new Start(
                WorkKind.MAJOR,
                List.of("late"),
                Optional.of(Instant.parse("2026-12-02T04:00:00Z"))));
    clock.set("2026-12-02T04:00:00Z");
    assertThat(decide("lake.db.t", WorkKind.MAJOR, clock, TableState.HEALTHY).mayStart()).isFalse();
  }

  @Test
  void aCronWindowGatesMinorWork() {
    MutableClock clock = MutableClock.at("2026-12-01T21:00:00Z");
    assertThat(decide("eu.db.t", WorkKind.MINOR, clock, TableState.HEALTHY))
        .isEqualTo(
            new WindowClosed(
                WorkKind.MINOR,
                List.of("evening"),
                Optional.of("evening"),
                Optional.of(Instant.parse("2026-12-01T22:00:00Z"))));
    clock.set("2026-12-01T22:00:00Z");
    assertThat(decide("eu.db.t", WorkKind.MINOR, clock, TableState.HEALTHY))
        .isEqualTo(
            new Start(
                WorkKind.MINOR,
                List.of("evening"),
                Optional.of(Instant.parse("2026-12-02T00:00:00Z"))));
  }

  @Test
  void workWithSeveralWindowsRunsUntilTheirUnionCloses() {
    MutableClock clock = MutableClock.at("2026-12-02T03:30:00Z");
    assertThat(decide("lake.night.t", WorkKind.MINOR, clock, TableState.HEALTHY))
        .isEqualTo(
            new Start(
                WorkKind.MINOR,
                List.of("late", "early"),
                Optional.of(Instant.parse("2026-12-02T06:00:00Z"))));
  }

  @Test
  void kindsWithoutWindowsRunAnyTimeAndDisabledKindsNever() {
    MutableClock clock = MutableClock.at("2026-12-01T12:00:00Z");
    Decision minor = decide("lake.db.t", WorkKind.MINOR, clock, TableState.HEALTHY);
    assertThat(minor).isEqualTo(new Start(WorkKind.MINOR, List.of(), Optional.empty()));
    assertThat(minor.reason()).isEqualTo("minor may run at any time");
    Decision expire = decide("lake.db.t", WorkKind.EXPIRE_SNAPSHOTS, clock, TableState.HEALTHY);
    assertThat(expire).isEqualTo(new Disabled(WorkKind.EXPIRE_SNAPSHOTS, null));
    assertThat(expire.reason()).isEqualTo("expire-snapshots is disabled by the defaults");
    assertThat(decide("eu.db.t", WorkKind.EXPIRE_SNAPSHOTS, clock, TableState.HEALTHY).reason())
        .isEqualTo("expire-snapshots is disabled by rule 'berlin'");
  }

  @Test
  void aCriticalTableThatWaitedLongerThanMaxDelayRunsMinorOutsideItsWindows() {
    MutableClock clock = MutableClock.at("2026-12-01T12:00:00Z");
    Instant due = Instant.parse("2026-12-01T05:59:59Z");
    Decision d = decide("eu.db.t", WorkKind.MINOR, clock, new TableState(true, due));
    assertThat(d)
        .isEqualTo(
            new MaxDelayOverride(
                WorkKind.MINOR,
                Duration.ofHours(6).plusSeconds(1),
                Duration.ofHours(6),
                Optional.of(Instant.parse("2026-12-01T22:00:00Z"))));
    assertThat(d.mayStart()).isTrue();
    assertThat(d.reason())
        .isEqualTo(
            "minor may start outside its windows: the table is critical and has waited PT6H1S,"
                + " longer than max-delay PT6H");

    // exactly max-delay is not longer
    assertThat(
            decide(
                    "eu.db.t",
                    WorkKind.MINOR,
                    clock,
                    new TableState(true, Instant.parse("2026-12-01T06:00:00Z")))
                .getClass())
        .isEqualTo(WindowClosed.class);
    // not critical, not waiting, or max-delay off: wait for the window
    assertThat(decide("eu.db.t", WorkKind.MINOR, clock, new TableState(false, due)))
        .isInstanceOf(WindowClosed.class);
    assertThat(decide("eu.db.t", WorkKind.MINOR, clock, new TableState(true, null)))
        .isInstanceOf(WindowClosed.class);
    assertThat(decide("lake.strict.t", WorkKind.MINOR, clock, new TableState(true, due)))
        .isInstanceOf(WindowClosed.class);
    // only minor work is overridden
    assertThat(decide("lake.db.t", WorkKind.MAJOR, clock, new TableState(true, due)))
        .isInstanceOf(WindowClosed.class);
  }

  @Test
  void atWindowCloseRunningWorkFinishesOrIsCancelledPerPolicy() {
    EffectivePolicy finish = POLICY.resolve("lake.db.t");
    EffectivePolicy cancel = POLICY.resolve("eu.db.t");
    Instant closed = Instant.parse("2026-12-02T04:00:00Z"); // late closed
    assertThat(PolicyDecisions.atWindowClose(finish, WorkKind.MAJOR, CALENDAR, closed, false))
        .isEqualTo(CloseAction.FINISH);
    Instant berlinClosed = Instant.parse("2026-12-02T04:00:00Z"); // 05:00 CET
    assertThat(PolicyDecisions.atWindowClose(cancel, WorkKind.FULL, CALENDAR, berlinClosed, false))
        .isEqualTo(CloseAction.CANCEL);
    // another window of the kind is still open
    assertThat(
            PolicyDecisions.atWindowClose(
                POLICY.resolve("lake.night.t"), WorkKind.MINOR, CALENDAR, closed, false))
        .isEqualTo(CloseAction.KEEP_RUNNING);
    // any-time kinds and max-delay overrides are not bound to windows
    assertThat(PolicyDecisions.atWindowClose(finish, WorkKind.MINOR, CALENDAR, closed, false))
        .isEqualTo(CloseAction.KEEP_RUNNING);
    assertThat(
            PolicyDecisions.atWindowClose(
                cancel, WorkKind.MINOR, CALENDAR, Instant.parse("2026-12-02T00:00:00Z"), true))
        .isEqualTo(CloseAction.KEEP_RUNNING);
    assertThat(
            PolicyDecisions.atWindowClose(
                cancel, WorkKind.MINOR, CALENDAR, Instant.parse("2026-12-02T00:00:00Z"), false))
        .isEqualTo(CloseAction.CANCEL);
  }
}
