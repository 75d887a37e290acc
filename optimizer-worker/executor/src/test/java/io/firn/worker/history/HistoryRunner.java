/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.history;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs seeded random histories and, on a failure, shrinks the recorded schedule by delta debugging
 * (drop chunks of steps while a fresh table still fails with the same kind, within a time budget)
 * and prints the smallest schedule found as Java that can be pasted into a named test.
 */
final class HistoryRunner {
  private static final AtomicInteger TABLES = new AtomicInteger();

  private HistoryRunner() {}

  /**
   * Runs one seed for {@code ops} steps; throws an AssertionError with the minimized schedule.
   *
   * @return how many steps of each kind ran (the op's class name), when every step passed
   */
  static Map<String, Integer> run(
      Path warehouse, long seed, int ops, ScheduleGenerator.Mode mode, Duration shrinkBudget) {
    Map<String, String> policy = ScheduleGenerator.policy(seed);
    ScheduleGenerator generator = new ScheduleGenerator(seed, mode);
    History history =
        History.create(warehouse, "seed" + seed, "seed " + seed + " (" + mode + ")", policy);
    HistoryFailure failure = null;
    try {
      for (int i = 0; i < ops; i++) {
        generator.next(history).apply(history);
      }
      history.verifyWithIcebergGenerics();
    } catch (HistoryFailure e) {
      failure = e;
    } finally {
      history.close();
    }
    if (failure == null) {
      Map<String, Integer> mix = new java.util.TreeMap<>();
      history.schedule().forEach(op -> mix.merge(op.getClass().getSimpleName(), 1, Integer::sum));
      return mix;
    }
    List<Op> failing = history.schedule().subList(0, failure.step());
    long started = System.nanoTime();
    List<Op> minimal = shrink(warehouse, policy, failing, failure.kind(), shrinkBudget);
    throw new AssertionError(
        failure.getMessage()
            + "\n\nseed "
            + seed
            + ": minimized schedule, "
            + minimal.size()
            + " of "
            + failing.size()
            + " steps (shrunk in "
            + Duration.ofNanos(System.nanoTime() - started).toSeconds()
            + " s), still failing with "
            + failure.kind()
            + "; paste into a named test:\n"
            + java(policy, minimal),
        failure);
  }

  /** Replays a schedule on a fresh table; the failure, or null when every step passed. */
  static HistoryFailure replay(Path warehouse, Map<String, String> policy, List<Op> schedule) {
    History history =
        History.create(warehouse, "replay" + TABLES.incrementAndGet(), "a replay", policy);
    try {
      for (Op op : schedule) {
        op.apply(history);
      }
      return null;
    } catch (HistoryFailure e) {
      return e;
    } finally {
      history.drop();
    }
  }

  /**
   * Delta debugging (ddmin): remove chunks of ever smaller size while the rest still fails with the
   * same kind; each success also cuts the steps after the new failing step.
   */
  static List<Op> shrink(
      Path warehouse,
      Map<String, String> policy,
      List<Op> failing,
      HistoryFailure.Kind kind,
      Duration budget) {
    long deadline = System.nanoTime() + budget.toNanos();
    List<Op> current = new ArrayList<>(failing);
    int chunks = 2;
    while (current.size() >= 2 && System.nanoTime() < deadline) {
      int size = (current.size() + chunks - 1) / chunks;
      boolean reduced = false;
      for (int start = 0; start < current.size() && System.nanoTime() < deadline; start += size) {
        List<Op> candidate = new ArrayList<>(current.subList(0, start));
        candidate.addAll(current.subList(Math.min(current.size(), start + size), current.size()));
        if (candidate.isEmpty()) {
          continue;
        }
        HistoryFailure result = replay(warehouse, policy, candidate);
        if (result != null && result.kind() == kind) {
          current = new ArrayList<>(candidate.subList(0, result.step()));
          chunks = Math.max(chunks - 1, 2);
          reduced = true;
          break;
        }
      }
      if (!reduced) {
        if (size <= 1) {
          break;
        }
        chunks = Math.min(current.size(), chunks * 2);
      }
    }
    // Then fewer touches in each checkpoint, and fewer keys in each Spark delete.
    for (int i = 0; i < current.size() && System.nanoTime() < deadline; i++) {
      List<UpsertWriter.Touch> touches = touchesOf(current.get(i));
      if (touches == null || touches.size() < 2) {
        continue;
      }
      int parts = 2;
      while (touches.size() >= 2 && System.nanoTime() < deadline) {
        int size = (touches.size() + parts - 1) / parts;
        boolean reduced = false;
        for (int start = 0; start < touches.size() && System.nanoTime() < deadline; start += size) {
          List<UpsertWriter.Touch> fewer = new ArrayList<>(touches.subList(0, start));
          fewer.addAll(touches.subList(Math.min(touches.size(), start + size), touches.size()));
          if (fewer.isEmpty()) {
            continue;
          }
          List<Op> candidate = new ArrayList<>(current);
          candidate.set(i, withTouches(current.get(i), fewer));
          HistoryFailure result = replay(warehouse, policy, candidate);
          if (result != null && result.kind() == kind && result.step() > i) {
            current = new ArrayList<>(candidate.subList(0, result.step()));
            touches = fewer;
            parts = Math.max(parts - 1, 2);
            reduced = true;
            break;
          }
        }
        if (!reduced) {
          if (size <= 1) {
            break;
          }
          parts = Math.min(touches.size(), parts * 2);
        }
      }
    }
    return current;
  }

  private static List<UpsertWriter.Touch> touchesOf(Op op) {
    if (op instanceof Op.Write write) {
      return Notation.touches(write.touches());
    }
    if (op instanceof Op.SparkDelete delete) {
      List<UpsertWriter.Touch> keys = new ArrayList<>();
      Notation.keys(delete.keys()).forEach(k -> keys.add(new UpsertWriter.Touch(k, false)));
      return keys;
    }
    return null;
  }

  private static Op withTouches(Op op, List<UpsertWriter.Touch> touches) {
    if (op instanceof Op.Write write) {
      return new Op.Write(write.version(), Notation.touches(touches));
    }
    List<Long> keys = new ArrayList<>();
    touches.forEach(t -> keys.add(t.key()));
    return new Op.SparkDelete(Notation.keys(keys));
  }

  static String java(Map<String, String> policy, List<Op> schedule) {
    StringBuilder text = new StringBuilder();
    text.append(
        "try (History h = History.create(warehouse, \"regression\", \"regression\", Map.of(");
    List<String> entries = new ArrayList<>();
    policy.forEach((k, v) -> entries.add("\"" + k + "\", \"" + v + "\""));
    text.append(String.join(", ", entries)).append("))) {\n");
    for (Op op : schedule) {
      text.append("  ").append(op.java()).append('\n');
    }
    return text.append("}").toString();
  }
}
