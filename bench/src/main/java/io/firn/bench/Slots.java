/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** The plain baselines' threads: slot {@code s} of {@code n} takes every n-th file from s. */
final class Slots {
  private Slots() {}

  /** What one slot does; returns the rows it handled. */
  interface Work {
    long run(int slot) throws Exception;
  }

  /** Runs {@code threads} slots in parallel and sums their rows. */
  static long sum(int threads, Work work) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<Long>> slots = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int slot = t;
        slots.add(pool.submit(() -> work.run(slot)));
      }
      long rows = 0;
      for (Future<Long> slot : slots) {
        rows += slot.get();
      }
      return rows;
    } finally {
      pool.shutdown();
    }
  }
}
