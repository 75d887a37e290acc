/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import java.time.Duration;
import java.util.function.Supplier;

/** What the optimizing gauges read from {@link OptimizingState}, each reading under its lock. */
final class StateReadings implements OptimizingMeters.Readings {
  private final OptimizingState state;

  StateReadings(OptimizingState state) {
    this.state = state;
  }

  private double locked(Supplier<Number> reading) {
    state.lock.lock();
    try {
      return reading.get().doubleValue();
    } finally {
      state.lock.unlock();
    }
  }

  @Override
  public double pendingTasks() {
    return locked(state.queue::pendingCount);
  }

  @Override
  public double leasedTasks() {
    return locked(state.queue::leasedCount);
  }

  @Override
  public double tablesIn(TableStatus status) {
    return locked(() -> state.tables.values().stream().filter(t -> t.status == status).count());
  }

  @Override
  public double tablesWithoutSeries() {
    return locked(() -> state.tables.values().stream().filter(t -> t.meters.isEmpty()).count());
  }

  @Override
  public double workers(String group) {
    return locked(() -> state.workers.count(group));
  }

  @Override
  public double slots(String group) {
    return locked(() -> state.workers.slots(group));
  }

  @Override
  public double backlog(String group) {
    return locked(() -> state.queue.backlog(group));
  }

  @Override
  public double maxDelaySeconds(TableState table) {
    Duration maxDelay = state.policies.get().policy().resolve(table.qualified()).maxDelay();
    return maxDelay.isNegative() ? Double.POSITIVE_INFINITY : maxDelay.toMillis() / 1e3;
  }
}
