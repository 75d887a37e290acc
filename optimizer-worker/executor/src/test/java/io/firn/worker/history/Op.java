/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.history;

/**
 * One step of a history, with every parameter concrete (keys, versions, slots), so a recorded
 * schedule replays on a fresh table without the random generator and prints as Java calls on a
 * {@link History} named {@code h}. A step whose precondition is gone after shrinking (an empty plan
 * slot, a column that already exists) does nothing.
 */
sealed interface Op {
  void apply(History h);

  /** The step as a Java statement. */
  String java();

  /** A writer checkpoint: Flink-style upserts and deletes; see {@link Notation#touches}. */
  record Write(int version, String touches) implements Op {
    @Override
    public void apply(History h) {
      h.write(version, touches);
    }

    @Override
    public String java() {
      return "h.write(" + version + ", \"" + touches + "\");";
    }
  }

  /** Spark-style position deletes of the live rows among these keys. */
  record SparkDelete(String keys) implements Op {
    @Override
    public void apply(History h) {
      h.sparkDelete(keys);
    }

    @Override
    public String java() {
      return "h.sparkDelete(\"" + keys + "\");";
    }
  }

  record AddColumn(String name, String type) implements Op {
    @Override
    public void apply(History h) {
      h.addColumn(name, type);
    }

    @Override
    public String java() {
      return "h.addColumn(\"" + name + "\", \"" + type + "\");";
    }
  }

  /** Widens column {@code n} from int to long. */
  record Widen() implements Op {
    @Override
    public void apply(History h) {
      h.widen();
    }

    @Override
    public String java() {
      return "h.widen();";
    }
  }

  /** Evolves the default partition spec; see {@link UpsertWriter#spec}. */
  record Spec(String spec) implements Op {
    @Override
    public void apply(History h) {
      h.spec(spec);
    }

    @Override
    public String java() {
      return "h.spec(\"" + spec + "\");";
    }
  }

  /**
   * Plans into a slot and keeps the plan in flight: {@code minor}, {@code major}, {@code full}
   * (forced), {@code auto} (triggers decide on a full scan) or {@code cheap} ({@code
   * planFromCheapSignals}).
   */
  record Plan(int slot, String mode) implements Op {
    @Override
    public void apply(History h) {
      h.plan(slot, mode);
    }

    @Override
    public String java() {
      return "h.plan(" + slot + ", \"" + mode + "\");";
    }
  }

  /** Runs a slot's tasks, in process or through the remote encode/decode path. */
  record Run(int slot, boolean remote) implements Op {
    @Override
    public void apply(History h) {
      h.run(slot, remote);
    }

    @Override
    public String java() {
      return "h.run(" + slot + ", " + (remote ? "REMOTE" : "IN_PROCESS") + ");";
    }
  }

  /**
   * Commits the slot's not yet committed due partitions selected by the mask (bit i: the i-th of
   * them; -1: all); {@code finish} then commits the shared deletes and empties the slot.
   */
  record Commit(int slot, long mask, boolean finish) implements Op {
    @Override
    public void apply(History h) {
      h.commit(slot, mask, finish);
    }

    @Override
    public String java() {
      return "h.commit("
          + slot
          + ", "
          + (mask == -1 ? "ALL" : "0x" + Long.toHexString(mask) + "L")
          + ", "
          + (finish ? "FINISH" : "KEEP")
          + ");";
    }
  }

  /** {@code LocalOptimizer.optimize}: plan, run and commit at once ({@code auto}: triggers). */
  record Optimize(String mode) implements Op {
    @Override
    public void apply(History h) {
      h.optimize(mode);
    }

    @Override
    public String java() {
      return "h.optimize(\"" + mode + "\");";
    }
  }

  record Expire(int retainLast) implements Op {
    @Override
    public void apply(History h) {
      h.expire(retainLast);
    }

    @Override
    public String java() {
      return "h.expire(" + retainLast + ");";
    }
  }

  record Orphans() implements Op {
    @Override
    public void apply(History h) {
      h.orphans();
    }

    @Override
    public String java() {
      return "h.orphans();";
    }
  }

  record Dangling() implements Op {
    @Override
    public void apply(History h) {
      h.dangling();
    }

    @Override
    public String java() {
      return "h.dangling();";
    }
  }

  record Manifests() implements Op {
    @Override
    public void apply(History h) {
      h.manifests();
    }

    @Override
    public String java() {
      return "h.manifests();";
    }
  }
}
