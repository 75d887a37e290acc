/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.executor;

import io.firn.core.table.DataFileEntry;
import io.firn.core.table.DeleteFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.jspecify.annotations.Nullable;

/**
 * All deletes of one task, each delete file read exactly once (Iceberg's generic reader re-reads
 * every applicable equality-delete file for every data file; on streaming tables that is most of
 * the cost, ARCHITECTURE.md "Performance facts").
 *
 * <p>Equality deletes become, per equality-field set, a map from key to the highest data sequence
 * number that deletes it: a row of a data file with sequence number s is deleted when that number
 * is greater than s. This equals Iceberg's per-file rule because all data files of a task share one
 * partition, so a partition-scoped or global equality delete attached to one of them applies to
 * every one of them with a lower sequence number (attachment differences come only from statistics
 * pruning, where no key can match).
 *
 * <p>Memory: when the task's equality-delete files hold more than {@code bloomThreshold} records,
 * the keys of the task's own data files are read first into a Bloom filter and only delete keys
 * that may match are kept, so the map is bounded by the task's rows, not by the delete backlog.
 *
 * <p>Position deletes are matched by data file path, and only from delete files that Iceberg
 * attached to that data file. A position-delete file of one or two records for one data file is not
 * opened: its statistics give its positions exactly ({@link DeleteFiles#positionsFromMetadata}). A
 * streaming writer leaves one such file per data file and checkpoint, for the keys it wrote twice.
 */
final class TaskDeletes {
  /**
   * The keys of one equality-field set with the highest sequence number deleting each. Keys of one
   * integral column (the usual primary key) live in a primitive map; others in a hash map of {@link
   * Keys} values.
   */
  static final class EqualitySet {
    final List<Integer> fieldIds;
    final Schema keySchema;

    /**
     * The keys of one integral column; null for any other key (then {@link #objects} holds them).
     */
    private final @Nullable LongSequenceMap longs;

    /** The keys when they are not one integral column; empty otherwise. */
    private final Map<Object, Long> objects = new HashMap<>();

    EqualitySet(List<Integer> fieldIds, Schema keySchema, long expectedKeys) {
      this.fieldIds = fieldIds;
      this.keySchema = keySchema;
      boolean integral =
          fieldIds.size() == 1
              && (keySchema.findType(fieldIds.get(0)).typeId() == Type.TypeID.LONG
                  || keySchema.findType(fieldIds.get(0)).typeId() == Type.TypeID.INTEGER);
      this.longs = integral ? new LongSequenceMap(expectedKeys) : null;
    }

    /** Records that the key of {@code row} (read with {@code keys}) is deleted at {@code seq}. */
    void merge(Keys keys, StructLike row, long seq) {
      if (longs != null) {
        Object value = keys.value(row);
        if (value == null) {
          longs.mergeNull(seq);
        } else {
          longs.merge(((Number) value).longValue(), seq);
        }
      } else {
        objects.merge(keys.key(row), seq, Math::max);
      }
    }

    /** The highest sequence number deleting the key of {@code row}, or -1. */
    long sequence(Keys keys, StructLike row) {
      if (longs != null) {
        Object value = keys.value(row);
        return value == null ? longs.nullSequence() : longs.get(((Number) value).longValue());
      }
      Long seq = objects.get(keys.key(row));
      return seq == null ? -1 : seq;
    }

    int size() {
      return longs != null ? longs.size() : objects.size();
    }

    /** Whether the keys are one integral column, readable with {@link ParquetLongColumn}. */
    boolean integral() {
      return longs != null;
    }

    /** The highest sequence number deleting this integral key, or -1. */
    long sequence(long key) {
      return longs().get(key);
    }

    /** The highest sequence number deleting the null key, or -1. */
    long nullSequence() {
      return longs().nullSequence();
    }

    private LongSequenceMap longs() {
      if (longs == null) {
        throw new IllegalStateException("equality field ids " + fieldIds + " are not one integer");
      }
      return longs;
    }
  }

  static final Schema PATH_POS =
      new Schema(MetadataColumns.DELETE_FILE_PATH, MetadataColumns.DELETE_FILE_POS);
  private static final long[] NO_POSITIONS = new long[0];

  private final List<EqualitySet> equality;
  private final Map<String, long[]> positions;
  private final long equalityRecordsRead;
  private final long positionRecordsRead;
  private final boolean bloomFiltered;

  private TaskDeletes(
      List<EqualitySet> equality,
      Map<String, long[]> positions,
      long equalityRecordsRead,
      long positionRecordsRead,
      boolean bloomFiltered) {
    this.equality = equality;
    this.positions = positions;
    this.equalityRecordsRead = equalityRecordsRead;
    this.positionRecordsRead = positionRecordsRead;
    this.bloomFiltered = bloomFiltered;
  }

  /**
   * @param specs the table's partition specs by id: a data file's identity partition values are
   *     read as Iceberg's readers read them, from its partition (files imported from Hive tables
   *     omit those columns)
   */
  static TaskDeletes load(
      FileIO io,
      Schema tableSchema,
      Map<Integer, PartitionSpec> specs,
      List<DataFileEntry> files,
      long bloomThreshold) {
    Map<String, DeleteFile> deletes = new LinkedHashMap<>();
    Map<String, Set<String>> attachedPositionDeletes = new HashMap<>();
    for (DataFileEntry entry : files) {
      for (DeleteFile delete : entry.deletes()) {
        deletes.putIfAbsent(delete.location(), delete);
        if (delete.content() == FileContent.POSITION_DELETES) {
          attachedPositionDeletes
              .computeIfAbsent(entry.path(), p -> new HashSet<>())
              .add(delete.location());
        }
      }
    }

    Map<List<Integer>, Long> recordsBySet = new LinkedHashMap<>();
    long equalityRecords = 0;
    for (DeleteFile delete : deletes.values()) {
      if (delete.content() == FileContent.EQUALITY_DELETES) {
        List<Integer> ids = new ArrayList<>(new TreeSet<>(delete.equalityFieldIds()));
        recordsBySet.merge(ids, delete.recordCount(), Long::sum);
        equalityRecords += delete.recordCount();
      }
    }
    Map<List<Integer>, EqualitySet> sets = new LinkedHashMap<>();
    recordsBySet.forEach(
        (ids, records) ->
            sets.put(
                ids,
                new EqualitySet(ids, TypeUtil.select(tableSchema, new HashSet<>(ids)), records)));

    Map<List<Integer>, KeyBloomFilter> blooms =
        equalityRecords > bloomThreshold && !sets.isEmpty()
            ? buildBlooms(io, specs, files, sets.values())
            : Map.of();

    long equalityRead = 0;
    long positionRead = 0;
    Map<String, LongList> collected = new HashMap<>();
    for (DeleteFile delete : deletes.values()) {
      long seq = delete.dataSequenceNumber() == null ? 0 : delete.dataSequenceNumber();
      if (delete.content() == FileContent.EQUALITY_DELETES) {
        List<Integer> ids = new ArrayList<>(new TreeSet<>(delete.equalityFieldIds()));
        EqualitySet set = sets.get(ids);
        if (set == null) {
          // The sets were made from these very files above.
          throw new IllegalStateException("no equality set for field ids " + ids);
        }
        KeyBloomFilter bloom = blooms.get(set.fieldIds);
        long fast = set.integral() ? readLongKeys(io, delete, set, bloom, seq) : -1;
        if (fast >= 0) {
          equalityRead += fast;
          continue;
        }
        Keys keys = Keys.of(set.keySchema, set.fieldIds);
        try (CloseableIterable<Record> rows = Readers.open(io, delete, set.keySchema, Map.of())) {
          for (Record row : rows) {
            equalityRead++;
            if (bloom == null || bloom.mightContain(keys.key(row))) {
              set.merge(keys, row, seq);
            }
          }
        } catch (IOException e) {
          throw new UncheckedIOException(
              "cannot read equality-delete file " + delete.location(), e);
        } catch (RuntimeException e) {
          throw new TaskFailedException("cannot read equality-delete file " + delete.location(), e);
        }
      } else {
        String deletePath = delete.location();
        long[] pinned = DeleteFiles.positionsFromMetadata(delete);
        if (pinned != null) {
          // One or two positions of one data file, given exactly by the file's statistics.
          String path = DeleteFiles.referencedDataFile(delete);
          Set<String> attached = attachedPositionDeletes.get(path);
          if (attached != null && attached.contains(deletePath)) {
            LongList list = collected.computeIfAbsent(path, p -> new LongList());
            for (long position : pinned) {
              list.add(position);
            }
          }
          positionRead += delete.recordCount();
          continue;
        }
        String referenced = DeleteFiles.referencedDataFile(delete);
        if (referenced != null) {
          // Every row names one data file (ADR 0043): only the positions are read, the way
          // integer keys are (ADR 0046), and none at all when that file is not this task's.
          Set<String> attached = attachedPositionDeletes.get(referenced);
          if (attached == null || !attached.contains(deletePath)) {
            positionRead += delete.recordCount();
            continue;
          }
          LongList list = collected.computeIfAbsent(referenced, p -> new LongList());
          long read = readPositions(io, delete, list);
          if (read >= 0) {
            positionRead += read;
            continue;
          }
        }
        try (CloseableIterable<Record> rows = Readers.open(io, delete, PATH_POS, Map.of())) {
          for (Record row : rows) {
            positionRead++;
            String path = row.get(0).toString();
            Set<String> attached = attachedPositionDeletes.get(path);
            if (attached != null && attached.contains(deletePath)) {
              collected.computeIfAbsent(path, p -> new LongList()).add((Long) row.get(1));
            }
          }
        } catch (IOException e) {
          throw new UncheckedIOException("cannot read position-delete file " + deletePath, e);
        } catch (RuntimeException e) {
          throw new TaskFailedException("cannot read position-delete file " + deletePath, e);
        }
      }
    }
    Map<String, long[]> positions = new HashMap<>();
    collected.forEach((path, list) -> positions.put(path, list.sortedDistinct()));
    return new TaskDeletes(
        new ArrayList<>(sets.values()), positions, equalityRead, positionRead, !blooms.isEmpty());
  }

  private static Map<List<Integer>, KeyBloomFilter> buildBlooms(
      FileIO io,
      Map<Integer, PartitionSpec> specs,
      List<DataFileEntry> files,
      Iterable<EqualitySet> sets) {
    long rows = files.stream().mapToLong(DataFileEntry::recordCount).sum();
    Map<List<Integer>, KeyBloomFilter> blooms = new HashMap<>();
    for (EqualitySet set : sets) {
      KeyBloomFilter bloom = new KeyBloomFilter(rows, 0.01);
      Keys keys = Keys.of(set.keySchema, set.fieldIds);
      for (DataFileEntry entry : files) {
        PartitionSpec spec = specs.get(entry.file().specId());
        if (spec == null) {
          throw new IllegalStateException(
              "the table has no partition spec "
                  + entry.file().specId()
                  + " (it has "
                  + specs.keySet()
                  + "), yet data file "
                  + entry.path()
                  + " names it");
        }
        // The key's identity partition values, as Iceberg's readers take them.
        Map<Integer, ?> constants =
            Readers.constants(spec, entry.file().partition(), set.keySchema);
        if (set.integral() && constants.isEmpty() && addLongKeys(io, entry, set, bloom)) {
          continue;
        }
        try (CloseableIterable<Record> records =
            Readers.open(io, entry.file(), set.keySchema, constants)) {
          for (Record row : records) {
            bloom.add(keys.key(row));
          }
        } catch (IOException e) {
          throw new UncheckedIOException("cannot read data file " + entry.path(), e);
        }
      }
      blooms.put(set.fieldIds, bloom);
    }
    return blooms;
  }

  /**
   * Adds the positions of a position-delete file whose rows all name one data file, read as an
   * integer column.
   *
   * @return the records read, or -1 (nothing added) when the file must be read as records
   */
  private static long readPositions(FileIO io, DeleteFile delete, LongList into) {
    return ParquetLongColumn.read(
        io,
        delete,
        MetadataColumns.DELETE_FILE_POS.fieldId(),
        new ParquetLongColumn.Visitor() {
          @Override
          public void value(long position, long value) {
            into.add(value);
          }

          @Override
          public void nullValue(long position) {
            throw new TaskFailedException(
                "position-delete file " + delete.location() + " has a null position");
          }
        });
  }

  /**
   * Merges the keys of an equality-delete file on one integral column without building records.
   *
   * @return the records read, or -1 when the file must be read with the generic reader
   */
  private static long readLongKeys(
      FileIO io, DeleteFile delete, EqualitySet set, @Nullable KeyBloomFilter bloom, long seq) {
    try {
      return ParquetLongColumn.read(
          io,
          delete,
          set.fieldIds.get(0),
          new ParquetLongColumn.Visitor() {
            @Override
            public void value(long position, long value) {
              if (bloom == null || bloom.mightContainHash(Long.hashCode(value))) {
                set.longs().merge(value, seq);
              }
            }

            @Override
            public void nullValue(long position) {
              if (bloom == null || bloom.mightContain(Keys.NULL)) {
                set.longs().mergeNull(seq);
              }
            }
          });
    } catch (UncheckedIOException e) {
      throw new UncheckedIOException(
          "cannot read equality-delete file " + delete.location(), e.getCause());
    } catch (RuntimeException e) {
      throw new TaskFailedException("cannot read equality-delete file " + delete.location(), e);
    }
  }

  /**
   * Adds the integral keys of a data file to a Bloom filter, hashed as {@link Keys#key} hashes them
   * (a long's {@link Long#hashCode(long)}, {@link Keys#NULL} for null).
   *
   * @return false when the file must be read with the generic reader
   */
  private static boolean addLongKeys(
      FileIO io, DataFileEntry entry, EqualitySet set, KeyBloomFilter bloom) {
    try {
      return ParquetLongColumn.read(
              io,
              entry.file(),
              set.fieldIds.get(0),
              new ParquetLongColumn.Visitor() {
                @Override
                public void value(long position, long value) {
                  bloom.addHash(Long.hashCode(value));
                }

                @Override
                public void nullValue(long position) {
                  bloom.add(Keys.NULL);
                }
              })
          >= 0;
    } catch (UncheckedIOException e) {
      throw new UncheckedIOException("cannot read data file " + entry.path(), e.getCause());
    }
  }

  List<EqualitySet> equality() {
    return equality;
  }

  boolean hasEqualityDeletes() {
    return equality.stream().anyMatch(s -> s.size() > 0);
  }

  /** Sorted, distinct deleted positions of a data file. */
  long[] positions(String dataFile) {
    return positions.getOrDefault(dataFile, NO_POSITIONS);
  }

  long equalityRecordsRead() {
    return equalityRecordsRead;
  }

  long positionRecordsRead() {
    return positionRecordsRead;
  }

  long equalityKeysHeld() {
    return equality.stream().mapToLong(EqualitySet::size).sum();
  }

  boolean bloomFiltered() {
    return bloomFiltered;
  }

  /** A growable primitive long list. */
  static final class LongList {
    private long[] values = new long[16];
    private int size;

    void add(long value) {
      if (size == values.length) {
        values = Arrays.copyOf(values, size * 2);
      }
      values[size++] = value;
    }

    long[] sortedDistinct() {
      long[] sorted = Arrays.copyOf(values, size);
      Arrays.sort(sorted);
      int n = 0;
      for (int i = 0; i < sorted.length; i++) {
        if (n == 0 || sorted[i] != sorted[n - 1]) {
          sorted[n++] = sorted[i];
        }
      }
      return Arrays.copyOf(sorted, n);
    }
  }
}
