/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.firn.server.policy.WindowScheduler.Transition;
import io.firn.server.policy.WindowScheduler.WindowListener;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WindowSchedulerTest {
  @TempDir Path dir;

  /** Records callbacks as "open:name" / "close:name". */
  static final class Recorder implements WindowListener {
    final List<String> events = new ArrayList<>();
    final AtomicBoolean failFirst = new AtomicBoolean();

    @Override
    public synchronized void windowOpened(String name) {
      events.add("open:" + name);
      if (failFirst.compareAndSet(true, false)) {
        throw new IllegalStateException("listener failure");
      }
    }

    @Override
    public synchronized void windowClosed(String name) {
      events.add("close:" + name);
    }

    synchronized List<String> events() {
      return List.copyOf(events);
    }
  }

  @Test
  void quartzFiresOpenAndCloseCallbacksOfAShortCronWindow() throws Exception {
    // opens at every even second for one second
    WindowCalendar calendar =
        WindowCalendarTest.calendar(
            "blink: {time-zone: UTC, cron: \"0/2 * * * * ?\", duration: 1s}");
    Recorder recorder = new Recorder();
    recorder.failFirst.set(true); // a failing listener does not stop the schedule
    WindowScheduler scheduler = new WindowScheduler(calendar, recorder, Clock.systemUTC());
    scheduler.start();
    try {
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> recorder.events().stream().filter(e -> e.startsWith("close")).count() >= 2);
      List<String> events = recorder.events();
      for (int i = 1; i < events.size(); i++) {
        assertThat(events.get(i))
            .as("events alternate: %s", events)
            .isNotEqualTo(events.get(i - 1));
      }
      assertThat(events).allMatch(e -> e.equals("open:blink") || e.equals("close:blink"));
      assertThat(scheduler.pending()).hasSize(1);
    } finally {
      scheduler.stop();
    }
  }

  @Test
  void startingTellsWhichWindowsAreOpenAndAReloadTellsWhatChanged() throws Exception {
    Path file = dir.resolve("policy.yaml");
    Files.writeString(
        file,
        """
        version: 1
        windows:
          night: {time-zone: UTC, start: "01:00", end: "05:00"}
          day: {time-zone: UTC, start: "10:00", end: "11:00"}
        """);
    // far in the future: nothing scheduled here fires during the test
    MutableClock clock = MutableClock.at("2099-01-01T02:00:00Z");
    PolicyRegistry registry = new PolicyRegistry(file, clock);
    Recorder recorder = new Recorder();
    WindowScheduler scheduler = WindowScheduler.following(registry, recorder, clock);
    scheduler.start();
    try {
      assertThat(recorder.events()).containsExactly("open:night");
      assertThat(scheduler.openWindows()).containsExactly("night");
      assertThat(scheduler.pending())
          .containsExactly(
              new Transition("night", false, Instant.parse("2099-01-01T05:00:00Z")),
              new Transition("day", true, Instant.parse("2099-01-01T10:00:00Z")));

      // the night window goes away, a new one is open now
      Files.writeString(
          file,
          """
          version: 1
          windows:
            day: {time-zone: UTC, start: "10:00", end: "11:00"}
            early: {time-zone: UTC, cron: "0 0 1 * * ?", duration: 2h}
          """);
      registry.reload();
      assertThat(recorder.events()).containsExactly("open:night", "close:night", "open:early");
      assertThat(scheduler.openWindows()).containsExactly("early");
      assertThat(scheduler.pending())
          .containsExactly(
              new Transition("day", true, Instant.parse("2099-01-01T10:00:00Z")),
              new Transition("early", false, Instant.parse("2099-01-01T03:00:00Z")));

      // an invalid reload changes nothing
      Files.writeString(file, "version: 1\nwindows: [oops]\n");
      registry.reload();
      assertThat(recorder.events()).hasSize(3);
      assertThat(scheduler.pending()).hasSize(2);
    } finally {
      scheduler.stop();
    }
    assertThat(scheduler.pending()).isEmpty();
  }
}
