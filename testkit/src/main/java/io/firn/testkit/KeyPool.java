/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.testkit;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/** A set of keys with O(1) add, remove and uniform random sampling; deterministic for a seed. */
final class KeyPool {
  private final List<Long> keys = new ArrayList<>();
  private final Map<Long, Integer> index = new HashMap<>();

  int size() {
    return keys.size();
  }

  void add(long key) {
    if (!index.containsKey(key)) {
      index.put(key, keys.size());
      keys.add(key);
    }
  }

  void remove(long key) {
    Integer position = index.remove(key);
    if (position == null) {
      return;
    }
    int last = keys.size() - 1;
    Long moved = keys.remove(last);
    if (position != last) {
      keys.set(position, moved);
      index.put(moved, position);
    }
  }

  void clear() {
    keys.clear();
    index.clear();
  }

  /** Returns {@code count} distinct keys chosen uniformly (a partial Fisher-Yates shuffle). */
  List<Long> sample(int count, SplittableRandom random) {
    if (count > keys.size()) {
      throw new IllegalArgumentException(
          "Cannot sample " + count + " keys from a pool of " + keys.size());
    }
    List<Long> result = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      int j = i + random.nextInt(keys.size() - i);
      Long picked = keys.get(j);
      if (j != i) {
        Long displaced = keys.get(i);
        keys.set(i, picked);
        keys.set(j, displaced);
        index.put(picked, i);
        index.put(displaced, j);
      }
      result.add(picked);
    }
    return result;
  }
}
