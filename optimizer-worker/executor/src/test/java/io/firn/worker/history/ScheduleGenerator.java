/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.history;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Function;

/**
 * Draws a random history from a seed, one concrete {@link Op} at a time, looking at the history's
 * state (live keys, plans in flight, file counts) so steps are meaningful: upserts mostly of live
 * keys, blind deletes, keys touched twice in a checkpoint, large and delete-only checkpoints, Spark
 * deletes of live rows, schema and spec changes in every direction, plans that go stale, partial
 * commits, and maintenance. Optimizing and expiry are drawn more often when the table grows, so it
 * stays small.
 */
final class ScheduleGenerator {
  private static final String[] SPECS = {
    "unpartitioned", "bucket[2]", "bucket[3]", "bucket[4]", "cat", "bucket[2]+cat", "bucket[3]+cat"
  };
  private static final String[] PLAN_MODES = {"minor", "major", "full", "auto", "cheap"};
  private static final String[] FORCED = {"minor", "major", "full"};
  private static final int SLOTS = 3;

  private final SplittableRandom random;
  private final Deque<Function<History, Op>> pending = new ArrayDeque<>();
  private final Mode mode;
  private final int keySpace;
  private int version;
  private int columnsAdded;

  /** Which steps a history has. */
  enum Mode {
    /** Everything. */
    ALL,
    /**
     * Only writer steps (checkpoints, Spark deletes, schema and spec changes): proves the writer
     * and the model alone.
     */
    WRITER_ONLY,
    /**
     * Everything except the triggers of the defects known on today's code (see the @Disabled tests
     * in {@code HistoryTest}): no writer checkpoint and no snapshot expiry while a plan is in
     * flight, and no spec change from a partitioned spec back to unpartitioned. Plans still go
     * stale against Firn's own commits and Spark-style deletes. For finding what else breaks until
     * the known defects are fixed.
     */
    WITHOUT_KNOWN_DEFECTS
  }

  ScheduleGenerator(long seed, Mode mode) {
    this.random = new SplittableRandom(seed);
    this.mode = mode;
    this.keySpace = new int[] {100, 300, 600}[random.nextInt(3)];
  }

  /** Small sizes and eager triggers, drawn from the seed, so every kind of run happens. */
  static Map<String, String> policy(long seed) {
    SplittableRandom random = new SplittableRandom(seed * 31 + 7);
    int targetKib = new int[] {4, 8, 16, 32}[random.nextInt(4)];
    Map<String, String> policy = new LinkedHashMap<>();
    policy.put("target-size", targetKib + "KiB");
    policy.put("fragment-ratio", Integer.toString(new int[] {2, 4, 8}[random.nextInt(3)]));
    policy.put(
        "minor.trigger.file-count", Integer.toString(new int[] {2, 3, 5}[random.nextInt(3)]));
    policy.put("minor.trigger.interval", random.nextBoolean() ? "0s" : "1h");
    policy.put(
        "major.trigger.duplicate-ratio", new String[] {"0.05", "0.1", "0.3"}[random.nextInt(3)]);
    policy.put("full.trigger.interval", new String[] {"off", "0s", "1h"}[random.nextInt(3)]);
    policy.put("max-task-size", (random.nextBoolean() ? targetKib : 4 * targetKib) + "KiB");
    policy.put(
        "equality-delete.bloom-threshold", new String[] {"0", "50", "1000000"}[random.nextInt(3)]);
    return policy;
  }

  Op next(History h) {
    Op op = draw(h);
    if (mode != Mode.WITHOUT_KNOWN_DEFECTS) {
      return op;
    }
    if (op instanceof Op.Expire && !h.slots().isEmpty()) {
      // Move a plan in flight on instead: run it (either way) or commit some or all of it.
      List<Integer> slots = new ArrayList<>(h.slots().keySet());
      int slot = slots.get(random.nextInt(slots.size()));
      if (!h.slots().get(slot) && random.nextInt(100) < 40) {
        return new Op.Run(slot, random.nextBoolean());
      }
      long mask = random.nextInt(100) < 65 ? History.ALL : random.nextLong();
      op = new Op.Commit(slot, mask, random.nextInt(100) < 70);
    }
    if (op instanceof Op.Commit commit && h.meetsIceberg10962(commit.slot(), commit.mask())) {
      // Abandon the plan instead: commit none of its partitions.
      return new Op.Commit(commit.slot(), 0, true);
    }
    if (op instanceof Op.Spec spec
        && spec.spec().equals("unpartitioned")
        && h.table().spec().isPartitioned()) {
      return new Op.Spec(SPECS[1 + random.nextInt(SPECS.length - 1)]);
    }
    return op;
  }

  private Op draw(History h) {
    if (!pending.isEmpty()) {
      return pending.removeFirst().apply(h);
    }
    if (version == 0) {
      version++;
      int initial = keySpace / 2 + random.nextInt(keySpace / 2);
      return new Op.Write(version, "U0-" + (initial - 1));
    }
    Map<String, Long> counts = TableReads.counts(h.table());
    long snapshots = 0;
    for (var ignored : h.table().snapshots()) {
      snapshots++;
    }
    if (mode == Mode.WRITER_ONLY) {
      return writerStep(random.nextInt(49), h);
    }
    if ((counts.get("data") > 40 || counts.get("deletes") > 40) && random.nextInt(3) == 0) {
      return new Op.Optimize(random.nextBoolean() ? "full" : "major");
    }
    if (snapshots > 30 && random.nextInt(3) == 0) {
      return new Op.Expire(1 + random.nextInt(5));
    }
    if (random.nextInt(100) < 8) {
      return burst(h);
    }
    int r = random.nextInt(100);
    return r < 49 ? writerStep(r, h) : firnStep(r, h);
  }

  /**
   * A short scenario of known hazards, queued step by step: a plan that goes stale while the writer
   * commits (often delete-only checkpoints) before it is committed; or a spec change followed by
   * checkpoints and optimizing.
   */
  private Op burst(History h) {
    int writes = 1 + random.nextInt(3);
    if (random.nextBoolean()) {
      int slot = emptySlot(h);
      String mode = random.nextBoolean() ? "full" : PLAN_MODES[random.nextInt(PLAN_MODES.length)];
      boolean deleteOnly = random.nextBoolean();
      for (int i = 0; i < writes; i++) {
        pending.addLast(
            deleteOnly || random.nextBoolean()
                ? g -> write(1 + random.nextInt(15), 0.0, g)
                : g -> write(1 + random.nextInt(30), 0.8, g));
      }
      boolean remote = random.nextBoolean();
      if (random.nextBoolean()) {
        pending.addLast(g -> new Op.Run(slot, remote));
      }
      if (random.nextInt(100) < 30) {
        int retain = 1 + random.nextInt(3);
        pending.addLast(g -> new Op.Expire(retain));
      }
      long mask = random.nextInt(100) < 65 ? History.ALL : random.nextLong();
      pending.addLast(g -> new Op.Commit(slot, mask, true));
      return new Op.Plan(slot, mode);
    }
    String spec = SPECS[random.nextInt(SPECS.length)];
    if (random.nextBoolean()) {
      pending.addLast(g -> new Op.Optimize("full"));
    }
    for (int i = 0; i < writes; i++) {
      pending.addLast(g -> write(1 + random.nextInt(40), 0.8, g));
    }
    String mode = random.nextBoolean() ? "auto" : FORCED[random.nextInt(FORCED.length)];
    pending.addLast(g -> new Op.Optimize(mode));
    return new Op.Spec(spec);
  }

  private int emptySlot(History h) {
    for (int slot = 0; slot < SLOTS; slot++) {
      if (!h.slots().containsKey(slot)) {
        return slot;
      }
    }
    return random.nextInt(SLOTS);
  }

  private Op writerStep(int r, History h) {
    if (r < 30) {
      return write(1 + random.nextInt(30), 0.8, h);
    } else if (r < 33) {
      return write(keySpace / 2 + random.nextInt(keySpace), 0.9, h);
    } else if (r < 39) {
      return write(1 + random.nextInt(20), 0.0, h);
    } else if (r < 43) {
      List<Long> live = new ArrayList<>(h.model().rows().keySet());
      if (live.isEmpty()) {
        return write(10, 1.0, h);
      }
      List<Long> keys = new ArrayList<>();
      int n = 1 + random.nextInt(10);
      for (int i = 0; i < n; i++) {
        keys.add(live.get(random.nextInt(live.size())));
      }
      return new Op.SparkDelete(Notation.keys(keys));
    } else if (r < 44) {
      if (columnsAdded >= 4) {
        return write(5, 0.8, h);
      }
      columnsAdded++;
      return new Op.AddColumn("x" + columnsAdded, random.nextBoolean() ? "long" : "string");
    } else if (r < 45) {
      return new Op.Widen();
    }
    return new Op.Spec(SPECS[random.nextInt(SPECS.length)]);
  }

  private Op firnStep(int r, History h) {
    if (r < 59 || (r < 75 && h.slots().isEmpty())) {
      return new Op.Plan(emptySlot(h), PLAN_MODES[random.nextInt(PLAN_MODES.length)]);
    } else if (r < 65) {
      return new Op.Run(slot(h, false), random.nextBoolean());
    } else if (r < 75) {
      long mask = random.nextInt(100) < 65 ? History.ALL : random.nextLong();
      return new Op.Commit(slot(h, true), mask, random.nextInt(100) < 70);
    } else if (r < 83) {
      return new Op.Optimize("auto");
    } else if (r < 87) {
      return new Op.Optimize(FORCED[random.nextInt(FORCED.length)]);
    } else if (r < 91) {
      return new Op.Expire(1 + random.nextInt(5));
    } else if (r < 94) {
      return new Op.Orphans();
    } else if (r < 96) {
      return new Op.Dangling();
    } else if (r < 98) {
      return new Op.Manifests();
    }
    return write(1 + random.nextInt(5), 0.5, h);
  }

  /** A slot with a plan (that has not run yet, unless {@code ranOk}), or any slot. */
  private int slot(History h, boolean ranOk) {
    List<Integer> candidates = new ArrayList<>();
    h.slots()
        .forEach(
            (slot, ran) -> {
              if (ranOk || !ran) {
                candidates.add(slot);
              }
            });
    return candidates.isEmpty()
        ? random.nextInt(SLOTS)
        : candidates.get(random.nextInt(candidates.size()));
  }

  /**
   * A checkpoint of {@code n} touches; {@code upsertShare} of them upserts. Keys are mostly live
   * ones; some are touched twice; deletes are sometimes blind (keys never written).
   */
  private Op write(int n, double upsertShare, History h) {
    version++;
    List<Long> live = new ArrayList<>(h.model().rows().keySet());
    List<UpsertWriter.Touch> touches = new ArrayList<>();
    List<Long> touched = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      long key;
      if (!touched.isEmpty() && random.nextInt(100) < 12) {
        key = touched.get(random.nextInt(touched.size()));
      } else if (!live.isEmpty() && random.nextInt(100) < 70) {
        key = live.get(random.nextInt(live.size()));
      } else if (random.nextInt(100) < 10) {
        key = keySpace + random.nextInt(keySpace); // never upserted by anyone: a blind delete
      } else {
        key = random.nextInt(keySpace);
      }
      boolean upsert = random.nextDouble() < upsertShare && key < keySpace;
      touches.add(new UpsertWriter.Touch(key, upsert));
      touched.add(key);
    }
    // Only the order of a key's own touches matters; sorting by key prints short ranges.
    touches.sort(java.util.Comparator.comparingLong(UpsertWriter.Touch::key));
    return new Op.Write(version, Notation.touches(touches));
  }
}
