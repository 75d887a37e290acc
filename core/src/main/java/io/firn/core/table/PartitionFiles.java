/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.table;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;

/**
 * The live files of one partition at one snapshot: data files with their applicable deletes, and
 * the delete files of this partition that apply to no live data file (dangling).
 */
public final class PartitionFiles {
  private final PartitionKey key;
  private final PartitionSpec spec;
  private final StructLike partition;
  private final List<DataFileEntry> dataFiles = new ArrayList<>();
  private final Map<String, DeleteFile> attachedDeletes = new LinkedHashMap<>();
  private final List<DeleteFile> danglingDeletes = new ArrayList<>();

  /** For {@link #attachAll}: the positions of each index array already attached, by identity. */
  private final Map<DeleteFile[], BitSet> seenByArray = new IdentityHashMap<>();

  public PartitionFiles(PartitionKey key, PartitionSpec spec, StructLike partition) {
    this.key = key;
    this.spec = spec;
    this.partition = partition;
  }

  public void add(DataFileEntry entry) {
    dataFiles.add(entry);
    attachAll(entry.deletes(), delete -> {});
  }

  /**
   * Adds a data file without its deletes, which the caller {@link #attach}es one by one (the
   * scanner does, to learn which deletes are new to this partition).
   */
  void addDataFile(DataFileEntry entry) {
    dataFiles.add(entry);
  }

  /**
   * Records a delete file that applies to a data file of this partition.
   *
   * @return true when this partition had no delete file at its location yet
   */
  private boolean attach(DeleteFile delete) {
    return attachedDeletes.putIfAbsent(delete.location(), delete) == null;
  }

  /**
   * Records the deletes of one of this partition's data files, telling {@code added} each that is
   * new to the partition. A scanner's list ({@link DeleteList}) is taken run by run: a position of
   * the index's array seen once for this partition is skipped without looking at its file, so the 9
   * million pairs of a streaming table cost a few word operations each, not a hash lookup.
   */
  void attachAll(List<DeleteFile> deletes, Consumer<DeleteFile> added) {
    if (deletes instanceof DeleteList list) {
      list.forEachRun(
          (array, from, to) -> {
            BitSet seen = seenByArray.computeIfAbsent(array, a -> new BitSet(a.length));
            for (int i = seen.nextClearBit(from); i < to; i = seen.nextClearBit(i + 1)) {
              seen.set(i);
              if (attach(array[i])) {
                added.accept(array[i]);
              }
            }
          });
      return;
    }
    for (DeleteFile delete : deletes) {
      if (attach(delete)) {
        added.accept(delete);
      }
    }
  }

  /** Lets go of what {@link #attachAll} kept to skip what it saw; later calls still work. */
  void finishAttaching() {
    seenByArray.clear();
  }

  public void addDangling(DeleteFile delete) {
    danglingDeletes.add(delete);
  }

  public PartitionKey key() {
    return key;
  }

  public PartitionSpec spec() {
    return spec;
  }

  /** The partition tuple; output files of this partition are written with it. */
  public StructLike partition() {
    return partition;
  }

  public List<DataFileEntry> dataFiles() {
    return dataFiles;
  }

  /** Delete files that apply to at least one data file of this partition, by location. */
  public Collection<DeleteFile> attachedDeletes() {
    return attachedDeletes.values();
  }

  public List<DeleteFile> danglingDeletes() {
    return danglingDeletes;
  }
}
