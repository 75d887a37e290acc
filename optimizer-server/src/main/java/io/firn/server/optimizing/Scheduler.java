/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import io.firn.core.plan.OptimizingType;
import io.firn.core.policy.PolicyFile;
import io.firn.core.policy.PolicyFile.EffectivePolicy;
import io.firn.server.policy.PolicyDecisions;
import io.firn.server.policy.WindowCalendar;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Which due tables start planning now, and why the others wait: a pure function of a snapshot of
 * the tables, the policy and the load (no lock, no I/O), so that it is tested like the planner.
 *
 * <p>Order: highest score first, where the score is the policy priority × health urgency, growing
 * with the time waited, so that every due table eventually runs (ADR 0009). A table waits when no
 * window of its work is open (or its work is disabled), when its optimizer group is full, or when
 * every process slot is taken.
 */
final class Scheduler {
  /** Health below this is critical: max-delay may let minor work run outside its windows. */
  static final int CRITICAL_HEALTH = 40;

  private Scheduler() {}

  /**
   * What the scheduler needs of a due table.
   *
   * @param dueSince since when it is due; null when not known (it then counts as just due)
   * @param requested the type an operator asked for; null when the triggers decide
   */
  record Due(
      String table, int health, @Nullable Instant dueSince, @Nullable OptimizingType requested) {}

  /**
   * What the policy says about a due table now.
   *
   * @param allowed the optimizing types whose windows are open (or that run any time)
   * @param overrode minor is allowed only through max-delay
   * @param disabled minor, major and full are all disabled
   * @param why for people, when nothing is allowed: the first reason
   * @param score scheduling order, higher first
   * @param closesAt when the open window of each allowed type closes (types without an end absent)
   */
  record Scheduling(
      EffectivePolicy effective,
      PolicyFile.Group group,
      Set<OptimizingType> allowed,
      boolean overrode,
      boolean disabled,
      String why,
      double score,
      Map<OptimizingType, Instant> closesAt) {}

  /**
   * One table's decision: plan now ({@link #waiting} null), or wait.
   *
   * @param deferred the counted reason of a wait (window, disabled, group), null for a full server
   */
  record Choice(
      Due table, Scheduling scheduling, @Nullable String waiting, @Nullable String deferred) {
    boolean starts() {
      return waiting == null;
    }
  }

  /** What the policy says about one due table. */
  static Scheduling schedule(
      Due table, EffectivePolicy effective, WindowCalendar calendar, Instant now) {
    PolicyDecisions.TableState state =
        new PolicyDecisions.TableState(table.health() < CRITICAL_HEALTH, table.dueSince());
    Set<OptimizingType> allowed = EnumSet.noneOf(OptimizingType.class);
    Map<OptimizingType, Instant> closesAt = new EnumMap<>(OptimizingType.class);
    boolean overrode = false;
    boolean disabled = true;
    String why = null;
    boolean windowWhy = false;
    for (PolicyFile.WorkKind kind :
        List.of(PolicyFile.WorkKind.MINOR, PolicyFile.WorkKind.MAJOR, PolicyFile.WorkKind.FULL)) {
      PolicyDecisions.Decision decision =
          PolicyDecisions.mayStart(effective, kind, calendar, now, state);
      if (!(decision instanceof PolicyDecisions.Disabled)) {
        disabled = false;
      }
      if (decision.mayStart()) {
        OptimizingType type = OptimizingType.parse(kind.key());
        allowed.add(type);
        if (decision instanceof PolicyDecisions.Start start) {
          start.windowsCloseAt().ifPresent(close -> closesAt.put(type, close));
        }
        if (decision instanceof PolicyDecisions.MaxDelayOverride) {
          overrode = true;
          why = decision.reason();
        }
      } else if (why == null || (decision instanceof PolicyDecisions.WindowClosed && !windowWhy)) {
        why = decision.reason();
        windowWhy = decision instanceof PolicyDecisions.WindowClosed;
      }
    }
    Instant dueSince = table.dueSince();
    double waitedHours =
        dueSince == null ? 0 : Math.max(0, Duration.between(dueSince, now).toMinutes()) / 60.0;
    double score = (effective.priority() + 1.0) * (101 - table.health()) * (1 + waitedHours);
    return new Scheduling(
        effective,
        effective.group(),
        allowed,
        overrode && allowed.size() == 1,
        disabled,
        why == null ? "" : why,
        score,
        closesAt);
  }

  /**
   * Decides every due table, in scheduling order.
   *
   * @param scheduling what the policy says about each due table ({@link #schedule})
   * @param freeSlots process slots free now (maxConcurrentProcesses − running − planning)
   * @param groupLoad tasks queued or leased and tables planning, per optimizer group
   * @param running processes running now (for the message of a full server)
   * @param maxProcesses optimizing.maxConcurrentProcesses (for the message)
   */
  static List<Choice> choose(
      Map<Due, Scheduling> scheduling,
      int freeSlots,
      Map<String, Integer> groupLoad,
      int running,
      int maxProcesses) {
    List<Map.Entry<Due, Scheduling>> due = new ArrayList<>(scheduling.entrySet());
    due.sort(
        Comparator.comparingDouble((Map.Entry<Due, Scheduling> e) -> -e.getValue().score())
            .thenComparing(e -> e.getKey().table()));
    Map<String, Integer> load = new HashMap<>(groupLoad);
    int free = freeSlots;
    List<Choice> choices = new ArrayList<>();
    for (Map.Entry<Due, Scheduling> entry : due) {
      Due table = entry.getKey();
      Scheduling decision = entry.getValue();
      String group = decision.group().name();
      if (decision.allowed().isEmpty() && table.requested() == null) {
        choices.add(
            new Choice(
                table, decision, decision.why(), decision.disabled() ? "disabled" : "window"));
      } else if (load.getOrDefault(group, 0) >= decision.group().capacity()) {
        choices.add(
            new Choice(
                table,
                decision,
                "group "
                    + group
                    + " is full (capacity "
                    + decision.group().capacity()
                    + " task(s))",
                "group"));
      } else if (free <= 0) {
        choices.add(
            new Choice(
                table,
                decision,
                "waiting for a free process slot ("
                    + running
                    + " running, optimizing.maxConcurrentProcesses = "
                    + maxProcesses
                    + ")",
                null));
      } else {
        free--;
        load.merge(group, 1, Integer::sum);
        choices.add(new Choice(table, decision, null, null));
      }
    }
    return choices;
  }
}
