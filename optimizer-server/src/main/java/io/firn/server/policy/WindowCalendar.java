/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.policy;

import io.firn.core.policy.InvalidPolicyException;
import io.firn.core.policy.PolicyFile;
import io.firn.core.policy.PolicyFile.Window;
import java.text.ParseException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.zone.ZoneOffsetTransition;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TimeZone;
import org.jspecify.annotations.Nullable;
import org.quartz.CronExpression;

/**
 * When the named windows of a policy are open. Pure: no threads, no clock; every question takes the
 * instant it is about.
 *
 * <p>An <em>opening</em> is a half-open interval {@code [start, end)} during which a window is
 * open.
 *
 * <p><b>Time-range windows</b> ({@code start}, {@code end}, {@code days}) open on each listed day
 * of the window's zone; when {@code end <= start} the opening ends on the next day and belongs to
 * the day it starts (a {@code 22:00-04:00} window with {@code days: [FRI]} is open from Friday
 * 22:00 to Saturday 04:00). Across daylight-saving changes the rule is the wall clock's: an opening
 * starts the first time the local clock shows the start time or later on its day, and ends the
 * first time it shows the end time or later on the end day. So a start (or end) in a spring-forward
 * gap takes effect at the end of the gap ({@code 02:30} on a day whose clocks jump from 02:00 to
 * 03:00 means 03:00), and a time that occurs twice on a fall-back day means its first occurrence (a
 * {@code 01:00-05:00} window on that day lasts five hours). An opening that the gap shrinks to
 * nothing is skipped.
 *
 * <p><b>Cron windows</b> open at every fire time of their Quartz cron expression, evaluated in the
 * window's zone (Quartz's own DST handling applies), and stay open for {@code duration}: open at
 * {@code t} when the first fire time after {@code t - duration} is at or before {@code t}. Openings
 * that overlap or touch form one opening. Quartz works to the second.
 *
 * <p>Immutable and thread-safe ({@link CronExpression} is only read after construction).
 */
public final class WindowCalendar {
  /** How far {@link #next} looks ahead before giving up. */
  static final int MAX_DAYS_AHEAD = 366 * 4 + 8;

  /** How many touching cron openings one opening may merge before it counts as never closing. */
  static final int MAX_MERGED = 10_000;

  private final String policyName;
  private final Map<String, Window> windows;
  private final Map<String, Cron> crons;

  /** A cron window's parsed expression and how long each opening lasts. */
  private record Cron(CronExpression expression, Duration duration) {}

  private WindowCalendar(String policyName, Map<String, Window> windows, Map<String, Cron> crons) {
    this.policyName = policyName;
    this.windows = windows;
    this.crons = crons;
  }

  /**
   * The calendar of a policy's windows.
   *
   * @throws InvalidPolicyException when Quartz rejects a window's cron expression; the message
   *     names the policy, the window and Quartz's reason
   */
  public static WindowCalendar of(PolicyFile policy) {
    Map<String, Cron> crons = new LinkedHashMap<>();
    for (Window window : policy.windows().values()) {
      String expression = window.cron();
      Duration duration = window.duration();
      if (expression != null && duration != null) {
        crons.put(window.name(), new Cron(cron(policy.name(), window, expression), duration));
      }
    }
    return new WindowCalendar(
        policy.name(), new LinkedHashMap<>(policy.windows()), new LinkedHashMap<>(crons));
  }

  private static CronExpression cron(String policyName, Window window, String text) {
    try {
      CronExpression expression = new CronExpression(text);
      expression.setTimeZone(TimeZone.getTimeZone(window.timeZone()));
      return expression;
    } catch (ParseException e) {
      throw new InvalidPolicyException(
          policyName
              + ": windows."
              + window.name()
              + ".cron = '"
              + text
              + "': not a valid Quartz cron expression: "
              + e.getMessage(),
          e);
    }
  }

  /** The name of the policy the windows come from. */
  public String policyName() {
    return policyName;
  }

  /** The windows by name, in file order. */
  public Map<String, Window> windows() {
    return Collections.unmodifiableMap(windows);
  }

  /**
   * One opening of a window.
   *
   * @param window the window's name
   * @param start first instant it is open
   * @param end first instant it is closed again; empty when it does not close within the calendar's
   *     horizon (a cron window whose openings keep touching)
   */
  public record Opening(String window, Instant start, Optional<Instant> end) {
    /** Whether the opening contains {@code t}. */
    public boolean contains(Instant t) {
      return !t.isBefore(start) && end.map(t::isBefore).orElse(true);
    }
  }

  /**
   * Whether window {@code name} is open at {@code t}.
   *
   * @throws IllegalArgumentException when the policy has no such window
   */
  public boolean isOpen(String name, Instant t) {
    return current(name, t).isPresent();
  }

  /**
   * The opening of window {@code name} that contains {@code t}, or empty when it is closed.
   *
   * @throws IllegalArgumentException when the policy has no such window
   */
  public Optional<Opening> current(String name, Instant t) {
    Window window = window(name);
    Cron cron = crons.get(name);
    if (cron != null) {
      Instant first = after(cron.expression(), t.minus(cron.duration()));
      if (first == null || first.isAfter(t)) {
        return Optional.empty();
      }
      return Optional.of(cronOpening(window, cron, first));
    }
    LocalDate today = LocalDate.ofInstant(t, window.timeZone());
    for (LocalDate day : List.of(today.minusDays(1), today)) {
      Opening opening = rangeOpening(window, day);
      if (opening != null && opening.contains(t)) {
        return Optional.of(opening);
      }
    }
    return Optional.empty();
  }

  /**
   * When the opening of window {@code name} that contains {@code t} ends; empty when the window is
   * closed at {@code t} or does not close within the horizon.
   */
  public Optional<Instant> closesAt(String name, Instant t) {
    return current(name, t).flatMap(Opening::end);
  }

  /**
   * The next opening of window {@code name} that starts after {@code t} and is not the one
   * containing {@code t}; empty when there is none within about four years (a cron expression with
   * past years only, or days that never come).
   */
  public Optional<Opening> next(String name, Instant t) {
    Window window = window(name);
    Optional<Opening> current = current(name, t);
    if (current.isPresent() && current.get().end().isEmpty()) {
      return Optional.empty();
    }
    Instant from = current.flatMap(Opening::end).orElse(t);
    Cron cron = crons.get(name);
    if (cron != null) {
      Instant fire =
          after(cron.expression(), from); // strictly after: a fire at t would make it open now
      return fire == null ? Optional.empty() : Optional.of(cronOpening(window, cron, fire));
    }
    LocalDate day = LocalDate.ofInstant(from, window.timeZone()).minusDays(1);
    for (int i = 0; i < MAX_DAYS_AHEAD; i++, day = day.plusDays(1)) {
      Opening opening = rangeOpening(window, day);
      if (opening != null && opening.start().isAfter(t) && !opening.start().isBefore(from)) {
        return Optional.of(opening);
      }
    }
    return Optional.empty();
  }

  /** When window {@code name} next opens after {@code t} (see {@link #next}). */
  public Optional<Instant> nextOpensAt(String name, Instant t) {
    return next(name, t).map(Opening::start);
  }

  /** The names of the windows open at {@code t}, in file order. */
  public List<String> openWindows(Instant t) {
    List<String> open = new ArrayList<>();
    for (String name : windows.keySet()) {
      if (isOpen(name, t)) {
        open.add(name);
      }
    }
    return open;
  }

  /**
   * When the last of {@code names} that are open at {@code t} closes, following openings of other
   * windows in {@code names} that start before (or when) the previous ones end: the end of the
   * union of their openings around {@code t}. Empty when none is open at {@code t}, or when the
   * union does not end within the horizon.
   */
  public Optional<Instant> unionClosesAt(Collection<String> names, Instant t) {
    Instant end = null;
    Instant probe = t;
    for (int i = 0; i < MAX_MERGED; i++) {
      Instant furthest = null;
      for (String name : names) {
        Optional<Opening> opening = current(name, probe);
        if (opening.isPresent()) {
          if (opening.get().end().isEmpty()) {
            return Optional.empty();
          }
          Instant e = opening.get().end().get();
          if (furthest == null || e.isAfter(furthest)) {
            furthest = e;
          }
        }
      }
      if (furthest == null) {
        return Optional.ofNullable(end);
      }
      end = furthest;
      probe = furthest;
    }
    return Optional.empty();
  }

  /** The earliest next opening among {@code names} after {@code t} (see {@link #next}). */
  public Optional<Opening> firstNext(Collection<String> names, Instant t) {
    Opening first = null;
    for (String name : names) {
      Optional<Opening> next = next(name, t);
      if (next.isPresent() && (first == null || next.get().start().isBefore(first.start()))) {
        first = next.get();
      }
    }
    return Optional.ofNullable(first);
  }

  private Window window(String name) {
    Window window = windows.get(name);
    if (window == null) {
      throw new IllegalArgumentException(
          "no window '" + name + "' in policy " + policyName + "; windows are " + windows.keySet());
    }
    return window;
  }

  /** The opening of a time-range window that starts on {@code day}, or null. */
  private static @Nullable Opening rangeOpening(Window window, LocalDate day) {
    LocalTime from = window.start();
    LocalTime to = window.end();
    if (from == null || to == null || !window.days().contains(day.getDayOfWeek())) {
      return null;
    }
    Instant start = wallClock(day, from, window.timeZone());
    LocalDate endDay = window.wrapsMidnight() ? day.plusDays(1) : day;
    Instant end = wallClock(endDay, to, window.timeZone());
    if (!end.isAfter(start)) {
      return null; // a DST gap swallowed it
    }
    return new Opening(window.name(), start, Optional.of(end));
  }

  /**
   * The first instant at which the local clock in {@code zone} shows {@code time} or later on
   * {@code day}: the end of a gap for a time inside it, the earlier offset in an overlap.
   */
  static Instant wallClock(LocalDate day, LocalTime time, ZoneId zone) {
    LocalDateTime local = LocalDateTime.of(day, time);
    ZoneOffsetTransition transition = zone.getRules().getTransition(local);
    if (transition != null && transition.isGap()) {
      return transition.getInstant();
    }
    return local.atZone(zone).toInstant(); // an overlap resolves to the earlier offset
  }

  /** An opening of a cron window that starts at fire time {@code first}, touching ones merged. */
  private static Opening cronOpening(Window window, Cron cron, Instant first) {
    Instant end = first.plus(cron.duration());
    Instant fire = first;
    for (int i = 0; i < MAX_MERGED; i++) {
      Instant next = after(cron.expression(), fire);
      if (next == null || next.isAfter(end)) {
        return new Opening(window.name(), first, Optional.of(end));
      }
      fire = next;
      Instant e = next.plus(cron.duration());
      if (e.isAfter(end)) {
        end = e;
      }
    }
    return new Opening(window.name(), first, Optional.empty());
  }

  /** Quartz's next fire time strictly after {@code t}, or null when it never fires again. */
  private static @Nullable Instant after(CronExpression cron, Instant t) {
    Date next = cron.getNextValidTimeAfter(Date.from(t));
    return next == null ? null : next.toInstant();
  }
}
