/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.plan;

import java.util.Locale;

/**
 * What optimizing a partition gets, ordered by how much it rewrites (ARCHITECTURE.md,
 * "Vocabulary").
 */
public enum OptimizingType {
  NONE,
  MINOR,
  MAJOR,
  FULL;

  /** The lower-case name used in CLI flags, policies, summaries and metric labels. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * @throws IllegalArgumentException naming the accepted values
   */
  public static OptimizingType parse(String text) {
    for (OptimizingType type : values()) {
      if (type != NONE && type.label().equals(text.trim().toLowerCase(Locale.ROOT))) {
        return type;
      }
    }
    throw new IllegalArgumentException(
        "optimizing type '" + text + "' is not one of minor, major, full");
  }
}
