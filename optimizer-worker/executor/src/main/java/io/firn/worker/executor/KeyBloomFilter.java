/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.executor;

/**
 * A Bloom filter over equality keys (their {@link Object#hashCode()}, remixed), used to drop
 * equality-delete keys that cannot match any row of a task before they are held in memory. False
 * positives only cost memory, never correctness: every kept key is still compared exactly.
 */
final class KeyBloomFilter {
  private final long[] bits;
  private final int numBits;
  private final int hashes;

  /**
   * @param expectedKeys keys to be added
   * @param falsePositiveRate wanted false-positive rate, e.g. 0.01
   */
  KeyBloomFilter(long expectedKeys, double falsePositiveRate) {
    long n = Math.max(1, expectedKeys);
    long m = (long) Math.ceil(-n * Math.log(falsePositiveRate) / (Math.log(2) * Math.log(2)));
    this.numBits = (int) Math.max(64, Math.min(Integer.MAX_VALUE - 64, m));
    this.bits = new long[(numBits + 63) / 64];
    this.hashes = (int) Math.max(1, Math.min(12, Math.round((double) numBits / n * Math.log(2))));
  }

  void add(Object key) {
    addHash(key.hashCode());
  }

  /** Adds a key by its {@link Object#hashCode()}: a long key as {@link Long#hashCode(long)}. */
  void addHash(int hash) {
    long h = mix(hash);
    int h1 = (int) h;
    int h2 = (int) (h >>> 32);
    for (int i = 0; i < hashes; i++) {
      int bit = Math.floorMod(h1 + i * h2, numBits);
      bits[bit >>> 6] |= 1L << bit;
    }
  }

  boolean mightContain(Object key) {
    return mightContainHash(key.hashCode());
  }

  /** Whether a key of this {@link Object#hashCode()} may have been added. */
  boolean mightContainHash(int hash) {
    long h = mix(hash);
    int h1 = (int) h;
    int h2 = (int) (h >>> 32);
    for (int i = 0; i < hashes; i++) {
      int bit = Math.floorMod(h1 + i * h2, numBits);
      if ((bits[bit >>> 6] & (1L << bit)) == 0) {
        return false;
      }
    }
    return true;
  }

  long sizeInBytes() {
    return bits.length * 8L;
  }

  private static long mix(int hash) {
    long z = hash * 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
