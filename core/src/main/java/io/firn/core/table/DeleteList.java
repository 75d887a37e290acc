/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.table;

import java.util.AbstractList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.iceberg.DeleteFile;

/**
 * The deletes of one data file as runs of the {@link DeleteIndex}'s own sorted arrays: a data file
 * pairs with every later equality delete of its partition, so on a streaming table its list is most
 * of one long array, and 25,600 data files pair with 9 million deletes. Holding a run instead of
 * copying it keeps the pairing from writing and then copying 9 million references, and lets {@link
 * PartitionFiles} learn which deletes a partition has from the runs (ADR 0042).
 *
 * <p>Immutable: the arrays are the index's, never changed once the index is built, and a run is
 * never written through.
 */
final class DeleteList extends AbstractList<DeleteFile> {
  /** Receives one run: {@code array[from]} to {@code array[to - 1]}. */
  interface RunVisitor {
    void run(DeleteFile[] array, int from, int to);
  }

  private static final DeleteFile[] NONE = new DeleteFile[0];

  private final DeleteFile[][] arrays;
  private final int[] froms;
  private final int[] tos;
  private final int size;

  private DeleteList(DeleteFile[][] arrays, int[] froms, int[] tos, int size) {
    this.arrays = arrays;
    this.froms = froms;
    this.tos = tos;
    this.size = size;
  }

  @Override
  public DeleteFile get(int index) {
    if (index < 0 || index >= size) {
      throw new IndexOutOfBoundsException("index " + index + ", size " + size);
    }
    int at = index;
    for (int r = 0; ; r++) {
      int length = tos[r] - froms[r];
      if (at < length) {
        return arrays[r][froms[r] + at];
      }
      at -= length;
    }
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public Iterator<DeleteFile> iterator() {
    return new Iterator<>() {
      private int run;
      private int at = froms.length == 0 ? 0 : froms[0];

      @Override
      public boolean hasNext() {
        while (run < arrays.length && at >= tos[run]) {
          run++;
          at = run < arrays.length ? froms[run] : 0;
        }
        return run < arrays.length;
      }

      @Override
      public DeleteFile next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        return arrays[run][at++];
      }
    };
  }

  /** Visits the runs in list order. */
  void forEachRun(RunVisitor visitor) {
    for (int r = 0; r < arrays.length; r++) {
      visitor.run(arrays[r], froms[r], tos[r]);
    }
  }

  /** Collects runs and single files in list order. */
  static final class Builder {
    private DeleteFile[][] arrays = new DeleteFile[4][];
    private int[] froms = new int[4];
    private int[] tos = new int[4];
    private int runs;
    private int size;
    private DeleteFile[] singles = NONE;
    private int singleCount;

    /** Adds {@code array[from]} to {@code array[to - 1]}; {@code array} must never change. */
    Builder addRun(DeleteFile[] array, int from, int to) {
      if (from >= to) {
        return this;
      }
      closeSingles();
      if (runs > 0 && arrays[runs - 1] == array && tos[runs - 1] == from) {
        tos[runs - 1] = to;
      } else {
        grow();
        arrays[runs] = array;
        froms[runs] = from;
        tos[runs] = to;
        runs++;
      }
      size += to - from;
      return this;
    }

    /** Adds one file, kept in a small array of this list's own. */
    Builder add(DeleteFile file) {
      if (singleCount == singles.length) {
        singles = Arrays.copyOf(singles, Math.max(2, singleCount * 2));
      }
      singles[singleCount++] = file;
      size++;
      return this;
    }

    /** The list; an empty one is {@link List#of()}. */
    List<DeleteFile> build() {
      closeSingles();
      if (size == 0) {
        return List.of();
      }
      return new DeleteList(
          Arrays.copyOf(arrays, runs), Arrays.copyOf(froms, runs), Arrays.copyOf(tos, runs), size);
    }

    private void closeSingles() {
      if (singleCount == 0) {
        return;
      }
      DeleteFile[] own = Arrays.copyOf(singles, singleCount);
      singles = NONE;
      int count = singleCount;
      singleCount = 0;
      size -= count;
      addRun(own, 0, count);
    }

    private void grow() {
      if (runs == arrays.length) {
        arrays = Arrays.copyOf(arrays, runs * 2);
        froms = Arrays.copyOf(froms, runs * 2);
        tos = Arrays.copyOf(tos, runs * 2);
      }
    }
  }
}
