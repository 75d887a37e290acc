/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.policy;

import io.firn.core.policy.PolicyFile.EffectivePolicy;
import io.firn.core.policy.PolicyFile.OnWindowClose;
import io.firn.core.policy.PolicyFile.Window;
import io.firn.core.policy.PolicyFile.WorkKind;
import io.firn.core.policy.PolicyFile.WorkPolicy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Whether a table's work of one kind may start now, and what happens to running work when a window
 * closes. Pure functions over a table's {@link EffectivePolicy}, a {@link WindowCalendar} and an
 * instant; the caller logs, counts and acts.
 */
public final class PolicyDecisions {
  private PolicyDecisions() {}

  /**
   * What the scheduler knows about a table beyond its policy.
   *
   * @param critical whether the table's health is critical (the caller's threshold)
   * @param dueSince since when work of the kind asked about has been due and not started, or null
   *     when it is not known to be waiting
   */
  public record TableState(boolean critical, @Nullable Instant dueSince) {
    /** A healthy table not known to be waiting. */
    public static final TableState HEALTHY = new TableState(false, null);

    /** How long the table has waited at {@code now}; zero when not waiting. */
    public Duration waited(Instant now) {
      return dueSince == null || dueSince.isAfter(now)
          ? Duration.ZERO
          : Duration.between(dueSince, now);
    }
  }

  /** The answer to "may this work start now?". */
  public sealed interface Decision permits Start, MaxDelayOverride, Disabled, WindowClosed {
    /** The kind of work asked about. */
    WorkKind kind();

    /** Whether the work may start now. */
    boolean mayStart();

    /** One line for logs and REST: why it may or may not start. */
    String reason();
  }

  /**
   * The work may start: its kind runs at any time, or one of its windows is open.
   *
   * @param openWindows the kind's windows open now; empty when the kind runs at any time
   * @param windowsCloseAt when the last of the kind's windows closes (the end of the union of their
   *     openings around now); empty when the kind runs at any time or its windows stay open beyond
   *     the calendar's horizon. The planner sizes work to finish before it.
   */
  public record Start(WorkKind kind, List<String> openWindows, Optional<Instant> windowsCloseAt)
      implements Decision {
    public Start {
      openWindows = List.copyOf(openWindows);
    }

    @Override
    public boolean mayStart() {
      return true;
    }

    /** Time left until the windows close at {@code now}; empty when unlimited. */
    public Optional<Duration> remaining(Instant now) {
      return windowsCloseAt.map(
          end -> end.isAfter(now) ? Duration.between(now, end) : Duration.ZERO);
    }

    @Override
    public String reason() {
      if (openWindows.isEmpty()) {
        return kind.key() + " may run at any time";
      }
      return kind.key()
          + " may start: window "
          + String.join(", ", openWindows)
          + " open"
          + windowsCloseAt.map(t -> " until " + t).orElse("");
    }
  }

  /**
   * Minor work may start although its windows are closed: the table is critical and has waited
   * longer than its {@code max-delay}. The caller logs and counts every such start.
   *
   * @param waited how long the table has waited
   * @param maxDelay the policy's max-delay
   * @param nextOpening when one of the kind's windows next opens, if ever
   */
  public record MaxDelayOverride(
      WorkKind kind, Duration waited, Duration maxDelay, Optional<Instant> nextOpening)
      implements Decision {
    @Override
    public boolean mayStart() {
      return true;
    }

    @Override
    public String reason() {
      return kind.key()
          + " may start outside its windows: the table is critical and has waited "
          + waited
          + ", longer than max-delay "
          + maxDelay;
    }
  }

  /**
   * The kind of work is disabled for the table.
   *
   * @param rule the rule that disabled it, or null for the defaults
   */
  public record Disabled(WorkKind kind, String rule) implements Decision {
    @Override
    public boolean mayStart() {
      return false;
    }

    @Override
    public String reason() {
      return kind.key()
          + " is disabled by "
          + (rule == null ? "the defaults" : "rule '" + rule + "'");
    }
  }

  /**
   * All windows of the kind are closed.
   *
   * @param windows the kind's windows
   * @param nextWindow the window that opens first, if any ever does
   * @param nextOpening when it opens
   */
  public record WindowClosed(
      WorkKind kind,
      List<String> windows,
      Optional<String> nextWindow,
      Optional<Instant> nextOpening)
      implements Decision {
    public WindowClosed {
      windows = List.copyOf(windows);
    }

    @Override
    public boolean mayStart() {
      return false;
    }

    @Override
    public String reason() {
      return kind.key()
          + " waits: window"
          + (windows.size() == 1 ? " " : "s ")
          + String.join(", ", windows)
          + (windows.size() == 1 ? " is" : " are")
          + " closed; "
          + nextOpening
              .map(t -> "next opening " + nextWindow.orElseThrow() + " at " + t)
              .orElse("no opening ahead");
    }
  }

  /** {@link #mayStart(EffectivePolicy, WorkKind, WindowCalendar, Instant, TableState)} now. */
  public static Decision mayStart(
      EffectivePolicy policy,
      WorkKind kind,
      WindowCalendar calendar,
      Clock clock,
      TableState table) {
    return mayStart(policy, kind, calendar, clock.instant(), table);
  }

  /**
   * Whether work of {@code kind} may start at {@code now} for a table with {@code policy}.
   *
   * <p>Disabled kinds never start. A kind without windows starts at any time. Otherwise it starts
   * while one of its windows is open; when all are closed, only minor work of a critical table that
   * has waited longer than {@code max-delay} (not {@code off}) starts, as a {@link
   * MaxDelayOverride}.
   *
   * @param policy the table's resolved policy ({@code PolicyFile.resolve})
   * @param calendar the calendar of the same policy file
   */
  public static Decision mayStart(
      EffectivePolicy policy,
      WorkKind kind,
      WindowCalendar calendar,
      Instant now,
      TableState table) {
    WorkPolicy work = policy.work(kind);
    if (!work.enabled()) {
      return new Disabled(kind, policy.rule());
    }
    if (work.anyTime()) {
      return new Start(kind, List.of(), Optional.empty());
    }
    List<String> names = work.windows().stream().map(Window::name).toList();
    List<String> open = names.stream().filter(n -> calendar.isOpen(n, now)).toList();
    if (!open.isEmpty()) {
      return new Start(kind, open, calendar.unionClosesAt(names, now));
    }
    Optional<WindowCalendar.Opening> next = calendar.firstNext(names, now);
    Duration maxDelay = policy.maxDelay();
    Duration waited = table.waited(now);
    if (kind == WorkKind.MINOR
        && !maxDelay.isNegative()
        && table.critical()
        && table.dueSince() != null
        && waited.compareTo(maxDelay) > 0) {
      return new MaxDelayOverride(kind, waited, maxDelay, next.map(WindowCalendar.Opening::start));
    }
    return new WindowClosed(
        kind,
        names,
        next.map(WindowCalendar.Opening::window),
        next.map(WindowCalendar.Opening::start));
  }

  /** What to do with a running task when a window closes. */
  public enum CloseAction {
    /**
     * Another window of its kind is still open, its kind runs at any time, or it was an override.
     */
    KEEP_RUNNING,
    /** Let it finish and commit; start nothing new of its kind. */
    FINISH,
    /** Cancel it and discard its output. */
    CANCEL
  }

  /**
   * What happens at {@code now} (a window just closed) to a running task of {@code kind} of a table
   * with {@code policy}: nothing while any window of its kind is open (or it runs at any time, or
   * it was started by a {@link MaxDelayOverride}, which ran outside windows anyway); else the
   * policy's {@code on-window-close}.
   *
   * @param startedByOverride whether the task was started as a {@link MaxDelayOverride}
   */
  public static CloseAction atWindowClose(
      EffectivePolicy policy,
      WorkKind kind,
      WindowCalendar calendar,
      Instant now,
      boolean startedByOverride) {
    WorkPolicy work = policy.work(kind);
    if (work.anyTime() || startedByOverride) {
      return CloseAction.KEEP_RUNNING;
    }
    for (Window window : work.windows()) {
      if (calendar.isOpen(window.name(), now)) {
        return CloseAction.KEEP_RUNNING;
      }
    }
    return policy.onWindowClose() == OnWindowClose.CANCEL ? CloseAction.CANCEL : CloseAction.FINISH;
  }

  /** {@link #atWindowClose(EffectivePolicy, WorkKind, WindowCalendar, Instant, boolean)} now. */
  public static CloseAction atWindowClose(
      EffectivePolicy policy,
      WorkKind kind,
      WindowCalendar calendar,
      Clock clock,
      boolean startedByOverride) {
    return atWindowClose(policy, kind, calendar, clock.instant(), startedByOverride);
  }
}
