/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.plan;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/** When a table last completed optimizing of each type; empty when never (or unknown). */
public record OptimizingHistory(Map<OptimizingType, Instant> lastCompleted) {
  public static final OptimizingHistory NONE = new OptimizingHistory(Map.of());

  public OptimizingHistory {
    lastCompleted = Map.copyOf(lastCompleted);
  }

  public Optional<Instant> last(OptimizingType type) {
    return Optional.ofNullable(lastCompleted.get(type));
  }
}
