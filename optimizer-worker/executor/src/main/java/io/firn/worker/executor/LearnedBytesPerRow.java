/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.executor;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.iceberg.Table;

/**
 * What a merged file of a table costs per row, as a share of the guess its writer started from (the
 * bytes per row of a task's largest input file), learned from the tasks this JVM ran on that table
 * (ADR 0031). Merged files of small inputs can cost fewer bytes per row than even the largest input
 * (20 % fewer on the test kit's CDC table in {@code BloomFilteredDeletesTest}, 1 % on the matrix's
 * shape 7); a first guess that overstates them by more than the bounds allow makes {@link
 * SizedDataWriter} write its first file again, so later tasks of the table start from the learned
 * share instead.
 *
 * <p>A cache, not state: a wrong or missing entry only costs the writer's check one rewritten file.
 * Bounded to {@value #MAX_TABLES} tables, least recently used first out; thread-safe.
 */
final class LearnedBytesPerRow {
  static final int MAX_TABLES = 1024;
  static final double MIN_SHARE = 0.25;
  static final double MAX_SHARE = 4;

  private static final Map<String, Double> SHARES =
      Collections.synchronizedMap(
          new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Double> eldest) {
              return size() > MAX_TABLES;
            }
          });

  private LearnedBytesPerRow() {}

  /** The learned share for the table; 1 when none is known. */
  static double share(String table) {
    Double share = SHARES.get(table);
    return share == null ? 1 : share;
  }

  /**
   * Records one task's measured bytes per row over the guess it started from, averaged with what
   * was learned before (each task counts half) and kept within [{@value #MIN_SHARE}, {@value
   * #MAX_SHARE}]; nonsense (zero, negative, not a number) is ignored.
   */
  static void record(String table, double measured, double guess) {
    double share = measured / guess;
    if (!(share > 0) || Double.isInfinite(share)) {
      return;
    }
    double bounded = Math.max(MIN_SHARE, Math.min(MAX_SHARE, share));
    SHARES.merge(table, bounded, (before, now) -> (before + now) / 2);
  }

  /** The key of a table: its UUID where the catalog gives one, else its name. */
  static String key(Table table) {
    try {
      return table.uuid().toString();
    } catch (UnsupportedOperationException e) {
      return table.name();
    }
  }
}
