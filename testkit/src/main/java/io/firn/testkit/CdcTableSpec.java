/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.testkit;

/**
 * The shape of a generated CDC table: how many keys, how many Flink-shaped commits, and which kinds
 * of change each commit carries.
 *
 * <p>The ratios are relative to the number of new keys a commit inserts ({@code rows / commits}):
 * with 200 new keys per commit and {@code updateRatio = 0.05}, each commit also updates 10 existing
 * keys.
 *
 * @param rows number of distinct keys inserted over the whole history (before deletes)
 * @param commits number of data ({@code RowDelta}) commits; schema and spec changes come on top
 * @param updateRatio updates of existing keys per new key in a commit
 * @param deleteRatio deletes of existing keys per new key in a commit
 * @param inCommitDuplicateRatio second writes of a key already written in the same commit, per new
 *     key; each produces a file-scoped position delete
 * @param buckets final number of {@code bucket(id)} partitions; 0 for an unpartitioned table
 * @param seed seed of the pseudo-random stream; same spec and seed give the same rows and files
 * @param schemaChange add the optional column {@code note} after about a third of the commits
 * @param specChange change the partition spec after about two thirds of the commits: from {@code
 *     bucket(buckets / 2, id)} to {@code bucket(buckets, id)}, or from unpartitioned to {@code
 *     bucket(4, id)}
 */
public record CdcTableSpec(
    long rows,
    int commits,
    double updateRatio,
    double deleteRatio,
    double inCommitDuplicateRatio,
    int buckets,
    long seed,
    boolean schemaChange,
    boolean specChange) {

  /** Number of buckets an unpartitioned table gets when {@link #specChange()} is set. */
  public static final int UNPARTITIONED_SPEC_CHANGE_BUCKETS = 4;

  public CdcTableSpec {
    if (rows < 0) {
      throw new IllegalArgumentException("rows must be >= 0, was " + rows);
    }
    if (commits < 1) {
      throw new IllegalArgumentException("commits must be >= 1, was " + commits);
    }
    checkRatio("updateRatio", updateRatio);
    checkRatio("deleteRatio", deleteRatio);
    checkRatio("inCommitDuplicateRatio", inCommitDuplicateRatio);
    if (buckets < 0) {
      throw new IllegalArgumentException("buckets must be >= 0, was " + buckets);
    }
    if (specChange && buckets == 1) {
      throw new IllegalArgumentException(
          "specChange starts with buckets / 2 buckets, so buckets must be 0 or >= 2, was 1");
    }
  }

  /**
   * A small table that still has every feature: 6,000 keys in 30 commits, 5% updates, 1% deletes,
   * 2% in-commit duplicates, a schema change and a partition-spec change.
   *
   * @param buckets final number of buckets, 0 for unpartitioned
   */
  public static CdcTableSpec small(int buckets) {
    return new CdcTableSpec(6_000, 30, 0.05, 0.01, 0.02, buckets, 42L, true, true);
  }

  /** This spec with another seed. */
  public CdcTableSpec withSeed(long newSeed) {
    return new CdcTableSpec(
        rows,
        commits,
        updateRatio,
        deleteRatio,
        inCommitDuplicateRatio,
        buckets,
        newSeed,
        schemaChange,
        specChange);
  }

  /** Buckets of the spec the table is created with. */
  int initialBuckets() {
    return specChange && buckets > 0 ? buckets / 2 : buckets;
  }

  /** Number of data commits written before the schema change. */
  int schemaChangeAfter() {
    return commits / 3;
  }

  /** Number of data commits written before the partition-spec change. */
  int specChangeAfter() {
    return 2 * commits / 3;
  }

  private static void checkRatio(String name, double value) {
    if (!(value >= 0 && value <= 1)) {
      throw new IllegalArgumentException(name + " must be in [0, 1], was " + value);
    }
  }
}
