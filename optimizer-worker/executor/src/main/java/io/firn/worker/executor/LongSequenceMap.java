/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.executor;

/**
 * An open-addressing map from a {@code long} key to the highest sequence number seen for it, for
 * equality deletes on one integral column (the common primary key). Keys and values are interleaved
 * in one array so a probe touches one cache line; about a third of the memory of a {@code
 * HashMap<Long, Long>} and no boxing on lookups, which dominate a rewrite.
 */
final class LongSequenceMap {
  private static final long ABSENT = -1;

  // slots[2i] = key, slots[2i + 1] = sequence number + 1 (0 marks an empty slot)
  private long[] slots;
  private int mask;
  private int size;
  private long nullSequence = ABSENT;

  LongSequenceMap(long expected) {
    int capacity =
        Integer.highestOneBit((int) Math.min(1 << 21, Math.max(16, expected * 2)) - 1) << 1;
    slots = new long[capacity * 2];
    mask = capacity - 1;
  }

  void mergeNull(long sequence) {
    nullSequence = Math.max(nullSequence, sequence);
  }

  long nullSequence() {
    return nullSequence;
  }

  /** Keeps the higher of the stored and the given sequence number. */
  void merge(long key, long sequence) {
    if (size * 3L >= (mask + 1L) * 2L) {
      grow();
    }
    int slot = (int) mix(key) & mask;
    while (true) {
      int at = slot << 1;
      long stored = slots[at + 1];
      if (stored == 0) {
        slots[at] = key;
        slots[at + 1] = sequence + 1;
        size++;
        return;
      }
      if (slots[at] == key) {
        if (sequence + 1 > stored) {
          slots[at + 1] = sequence + 1;
        }
        return;
      }
      slot = (slot + 1) & mask;
    }
  }

  /** The highest sequence number deleting this key, or -1. */
  long get(long key) {
    int slot = (int) mix(key) & mask;
    while (true) {
      int at = slot << 1;
      long stored = slots[at + 1];
      if (stored == 0) {
        return ABSENT;
      }
      if (slots[at] == key) {
        return stored - 1;
      }
      slot = (slot + 1) & mask;
    }
  }

  int size() {
    return size + (nullSequence == ABSENT ? 0 : 1);
  }

  private void grow() {
    long[] old = slots;
    slots = new long[old.length * 2];
    mask = (slots.length >> 1) - 1;
    size = 0;
    for (int at = 0; at < old.length; at += 2) {
      if (old[at + 1] != 0) {
        merge(old[at], old[at + 1] - 1);
      }
    }
  }

  private static long mix(long key) {
    long z = key * 0x9E3779B97F4A7C15L;
    return z ^ (z >>> 32);
  }
}
