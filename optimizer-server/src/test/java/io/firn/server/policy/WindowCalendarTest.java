/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.firn.core.policy.InvalidPolicyException;
import io.firn.core.policy.PolicyParser;
import io.firn.server.policy.WindowCalendar.Opening;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class WindowCalendarTest {

  /** A calendar of the given {@code windows:} entries (each one line, indented by two). */
  static WindowCalendar calendar(String... windows) {
    return WindowCalendar.of(
        PolicyParser.parse(
            "p.yaml", "version: 1\nwindows:\n  " + String.join("\n  ", windows) + "\n"));
  }

  static Instant at(String instant) {
    return Instant.parse(instant);
  }

  static Opening opening(String window, String start, String end) {
    return new Opening(window, at(start), Optional.of(at(end)));
  }

  @Test
  void aShanghaiNightWindowIsClosedAtNoonAndOpenFromOneToFive() {
    WindowCalendar c =
        calendar("night: {time-zone: Asia/Shanghai, start: \"01:00\", end: \"05:00\"}");
    // 12:00 in Shanghai is 04:00 UTC
    assertThat(c.isOpen("night", at("2026-12-01T04:00:00Z"))).isFalse();
    assertThat(c.nextOpensAt("night", at("2026-12-01T04:00:00Z")))
        .contains(at("2026-12-01T17:00:00Z"));
    assertThat(c.isOpen("night", at("2026-12-01T16:59:59Z"))).isFalse();
    assertThat(c.isOpen("night", at("2026-12-01T17:00:00Z"))).isTrue();
    assertThat(c.current("night", at("2026-12-01T18:00:00Z")))
        .contains(opening("night", "2026-12-01T17:00:00Z", "2026-12-01T21:00:00Z"));
    assertThat(c.isOpen("night", at("2026-12-01T20:59:59.999Z"))).isTrue();
    assertThat(c.isOpen("night", at("2026-12-01T21:00:00Z"))).isFalse();
    assertThat(c.closesAt("night", at("2026-12-01T21:00:00Z"))).isEmpty();
  }

  @Test
  void onASpringForwardDayInBerlinTheWindowIsShorterAndAStartInTheGapOpensWhenTheGapEnds() {
    // 2026-03-29: clocks jump from 02:00 CET (01:00Z) to 03:00 CEST
    WindowCalendar c =
        calendar(
            "night: {time-zone: Europe/Berlin, start: \"01:00\", end: \"05:00\"}",
            "gap: {time-zone: Europe/Berlin, start: \"02:30\", end: \"05:00\"}",
            "swallowed: {time-zone: Europe/Berlin, start: \"02:10\", end: \"02:50\"}");
    assertThat(c.current("night", at("2026-03-29T00:30:00Z")))
        .contains(opening("night", "2026-03-29T00:00:00Z", "2026-03-29T03:00:00Z"));
    assertThat(c.isOpen("gap", at("2026-03-29T00:59:59Z"))).isFalse();
    assertThat(c.nextOpensAt("gap", at("2026-03-29T00:00:00Z")))
        .contains(at("2026-03-29T01:00:00Z"));
    assertThat(c.current("gap", at("2026-03-29T01:00:00Z")))
        .contains(opening("gap", "2026-03-29T01:00:00Z", "2026-03-29T03:00:00Z"));
    // the day before and after: the usual 02:30 local
    assertThat(c.nextOpensAt("gap", at("2026-03-28T00:00:00Z")))
        .contains(at("2026-03-28T01:30:00Z"));
    assertThat(c.nextOpensAt("gap", at("2026-03-29T12:00:00Z")))
        .contains(at("2026-03-30T00:30:00Z"));
    // a window entirely inside the gap does not open that day
    assertThat(c.isOpen("swallowed", at("2026-03-29T01:00:00Z"))).isFalse();
    assertThat(c.nextOpensAt("swallowed", at("2026-03-28T12:00:00Z")))
        .contains(at("2026-03-30T00:10:00Z"));
  }

  @Test
  void onAFallBackDayInBerlinTheWindowIsLongerAndARepeatedTimeMeansItsFirstOccurrence() {
    // 2026-10-25: clocks fall back from 03:00 CEST (01:00Z) to 02:00 CET
    WindowCalendar c =
        calendar(
            "night: {time-zone: Europe/Berlin, start: \"01:00\", end: \"05:00\"}",
            "twice: {time-zone: Europe/Berlin, start: \"02:30\", end: \"04:00\"}");
    assertThat(c.current("night", at("2026-10-25T02:00:00Z")))
        .contains(opening("night", "2026-10-24T23:00:00Z", "2026-10-25T04:00:00Z"));
    assertThat(c.current("twice", at("2026-10-25T01:10:00Z")))
        .contains(opening("twice", "2026-10-25T00:30:00Z", "2026-10-25T03:00:00Z"));
    assertThat(c.isOpen("twice", at("2026-10-25T00:29:59Z"))).isFalse();
  }

  @Test
  void newYorkDaylightSavingChangesFollowTheSameRules() {
    WindowCalendar c =
        calendar(
            "night: {time-zone: America/New_York, start: \"01:00\", end: \"05:00\"}",
            "gap: {time-zone: America/New_York, start: \"02:30\", end: \"04:00\"}",
            "late: {time-zone: America/New_York, start: \"22:00\", end: \"04:00\"}");
    // 2026-03-08: 02:00 EST (07:00Z) jumps to 03:00 EDT
    assertThat(c.current("night", at("2026-03-08T07:30:00Z")))
        .contains(opening("night", "2026-03-08T06:00:00Z", "2026-03-08T09:00:00Z"));
    assertThat(c.nextOpensAt("gap", at("2026-03-08T05:00:00Z")))
        .contains(at("2026-03-08T07:00:00Z"));
    // 2026-11-01: 02:00 EDT (06:00Z) falls back to 01:00 EST
    assertThat(c.current("night", at("2026-11-01T09:30:00Z")))
        .contains(opening("night", "2026-11-01T05:00:00Z", "2026-11-01T10:00:00Z"));
    // an overnight window over the fall-back night lasts seven hours
    assertThat(c.current("late", at("2026-11-01T05:30:00Z")))
        .contains(opening("late", "2026-11-01T02:00:00Z", "2026-11-01T09:00:00Z"));
  }

  @Test
  void anOvernightWindowWrapsAndBelongsToTheDayItStarts() {
    WindowCalendar c =
        calendar(
            "late: {time-zone: UTC, start: \"22:00\", end: \"04:00\"}",
            "friday-night: {time-zone: UTC, start: \"22:00\", end: \"04:00\", days: [FRI]}");
    assertThat(c.isOpen("late", at("2026-12-01T21:59:59Z"))).isFalse();
    assertThat(c.current("late", at("2026-12-01T23:00:00Z")))
        .contains(opening("late", "2026-12-01T22:00:00Z", "2026-12-02T04:00:00Z"));
    assertThat(c.isOpen("late", at("2026-12-02T03:59:59Z"))).isTrue();
    assertThat(c.isOpen("late", at("2026-12-02T04:00:00Z"))).isFalse();
    assertThat(c.next("late", at("2026-12-01T23:00:00Z")))
        .contains(opening("late", "2026-12-02T22:00:00Z", "2026-12-03T04:00:00Z"));
    // Friday 2026-12-04 22:00 to Saturday 04:00, not Saturday night
    assertThat(c.isOpen("friday-night", at("2026-12-04T23:00:00Z"))).isTrue();
    assertThat(c.isOpen("friday-night", at("2026-12-05T03:00:00Z"))).isTrue();
    assertThat(c.isOpen("friday-night", at("2026-12-05T23:00:00Z"))).isFalse();
    assertThat(c.isOpen("friday-night", at("2026-12-04T03:00:00Z"))).isFalse();
    assertThat(c.nextOpensAt("friday-night", at("2026-12-05T05:00:00Z")))
        .contains(at("2026-12-11T22:00:00Z"));
  }

  @Test
  void theDaysFilterSkipsOtherDays() {
    WindowCalendar c =
        calendar(
            "office: {time-zone: UTC, start: \"09:00\", end: \"17:00\", days: [MON, TUE, WED,"
                + " THU, FRI]}");
    assertThat(c.isOpen("office", at("2026-12-04T10:00:00Z"))).isTrue(); // Friday
    assertThat(c.isOpen("office", at("2026-12-05T10:00:00Z"))).isFalse(); // Saturday
    assertThat(c.nextOpensAt("office", at("2026-12-04T10:00:00Z")))
        .contains(at("2026-12-07T09:00:00Z")); // Monday
  }

  @Test
  void aCronWindowIsOpenFromEachFireTimeForItsDuration() {
    WindowCalendar c =
        calendar(
            "evening: {time-zone: UTC, cron: \"0 0 22 * * ?\", duration: 6h}",
            "shanghai: {time-zone: Asia/Shanghai, cron: \"0 0 1 * * ?\", duration: 4h}",
            "weekdays: {time-zone: UTC, cron: \"0 0 22 ? * MON-FRI\", duration: 2h}");
    assertThat(c.isOpen("evening", at("2026-12-01T21:59:59Z"))).isFalse();
    assertThat(c.isOpen("evening", at("2026-12-01T22:00:00Z"))).isTrue();
    assertThat(c.current("evening", at("2026-12-01T23:00:00Z")))
        .contains(opening("evening", "2026-12-01T22:00:00Z", "2026-12-02T04:00:00Z"));
    assertThat(c.isOpen("evening", at("2026-12-02T03:59:59Z"))).isTrue();
    assertThat(c.isOpen("evening", at("2026-12-02T04:00:00Z"))).isFalse();
    assertThat(c.nextOpensAt("evening", at("2026-12-01T23:00:00Z")))
        .contains(at("2026-12-02T22:00:00Z"));
    assertThat(c.nextOpensAt("evening", at("2026-12-02T12:00:00Z")))
        .contains(at("2026-12-02T22:00:00Z"));
    // the expression is read in the window's zone: 01:00 in Shanghai is 17:00 UTC
    assertThat(c.current("shanghai", at("2026-12-01T17:30:00Z")))
        .contains(opening("shanghai", "2026-12-01T17:00:00Z", "2026-12-01T21:00:00Z"));
    // Friday evening opens, Saturday evening does not
    assertThat(c.isOpen("weekdays", at("2026-12-04T23:00:00Z"))).isTrue();
    assertThat(c.isOpen("weekdays", at("2026-12-05T23:00:00Z"))).isFalse();
    assertThat(c.nextOpensAt("weekdays", at("2026-12-05T00:00:00Z")))
        .contains(at("2026-12-07T22:00:00Z"));
  }

  @Test
  void overlappingCronOpeningsFormOneOpening() {
    WindowCalendar c =
        calendar(
            "twice: {time-zone: UTC, cron: \"0 0 8,9 * * ?\", duration: 90m}",
            "always: {time-zone: UTC, cron: \"0 0 * * * ?\", duration: 1h}");
    assertThat(c.closesAt("twice", at("2026-12-01T08:30:00Z")))
        .contains(at("2026-12-01T10:30:00Z"));
    assertThat(c.closesAt("twice", at("2026-12-01T09:45:00Z")))
        .contains(at("2026-12-01T10:30:00Z"));
    assertThat(c.nextOpensAt("twice", at("2026-12-01T08:30:00Z")))
        .contains(at("2026-12-02T08:00:00Z"));
    // hourly openings of an hour touch: open, and no end within the horizon
    assertThat(c.isOpen("always", at("2026-12-01T08:30:00Z"))).isTrue();
    assertThat(c.closesAt("always", at("2026-12-01T08:30:00Z"))).isEmpty();
    assertThat(c.next("always", at("2026-12-01T08:30:00Z"))).isEmpty();
  }

  @Test
  void openWindowsAndTheEndOfTheirUnion() {
    WindowCalendar c =
        calendar(
            "a: {time-zone: UTC, start: \"01:00\", end: \"03:00\"}",
            "b: {time-zone: UTC, start: \"02:30\", end: \"05:00\"}",
            "c: {time-zone: UTC, start: \"05:00\", end: \"06:00\"}",
            "d: {time-zone: UTC, start: \"07:00\", end: \"08:00\"}");
    assertThat(c.openWindows(at("2026-12-01T02:45:00Z"))).containsExactly("a", "b");
    assertThat(c.openWindows(at("2026-12-01T06:30:00Z"))).isEmpty();
    // a then b then c (touching at 05:00); d starts later
    assertThat(c.unionClosesAt(List.of("a", "b", "c", "d"), at("2026-12-01T01:30:00Z")))
        .contains(at("2026-12-01T06:00:00Z"));
    assertThat(c.unionClosesAt(List.of("a", "d"), at("2026-12-01T01:30:00Z")))
        .contains(at("2026-12-01T03:00:00Z"));
    assertThat(c.unionClosesAt(List.of("d"), at("2026-12-01T01:30:00Z"))).isEmpty();
    assertThat(c.firstNext(List.of("c", "d"), at("2026-12-01T06:30:00Z")))
        .contains(opening("d", "2026-12-01T07:00:00Z", "2026-12-01T08:00:00Z"));
  }

  @Test
  void quartzChecksTheCronExpressionFullyNamingTheWindowAndItsReason() {
    // The parser checks with Quartz itself (ADR 0007), so the server and `policies check` agree.
    assertThatThrownBy(
            () -> calendar("evening: {time-zone: UTC, cron: \"0 0 25 * * ?\", duration: 1h}"))
        .isInstanceOf(InvalidPolicyException.class)
        .hasMessage(
            "p.yaml line 3: windows.evening.cron = '0 0 25 * * ?': not a valid Quartz cron"
                + " expression: Hour values must be between 0 and 23");
    assertThatThrownBy(
            () -> calendar("evening: {time-zone: UTC, cron: \"0 0 1 ? * MOX\", duration: 1h}"))
        .isInstanceOf(InvalidPolicyException.class)
        .hasMessage(
            "p.yaml line 3: windows.evening.cron = '0 0 1 ? * MOX': not a valid Quartz cron"
                + " expression: Invalid Day-of-Week value: 'MOX'");
  }

  @Test
  void anUnknownWindowNameIsAnError() {
    WindowCalendar c = calendar("a: {time-zone: UTC, start: \"01:00\", end: \"03:00\"}");
    assertThatThrownBy(() -> c.isOpen("b", at("2026-12-01T01:30:00Z")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("no window 'b' in policy p.yaml; windows are [a]");
  }
}
