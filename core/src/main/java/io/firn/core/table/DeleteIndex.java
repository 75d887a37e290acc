/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.table;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Function;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ManifestEvaluator;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Comparators;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PartitionMap;
import org.jspecify.annotations.Nullable;

/**
 * Which live delete files of a snapshot apply to a data file: exactly the rule of Iceberg's scan
 * planning ({@code org.apache.iceberg.DeleteFileIndex} in 1.11), re-implemented so that each data
 * file's statistics are read and decoded once instead of once per (data file, equality delete) pair
 * (ADR 0042).
 *
 * <ul>
 *   <li>An equality delete applies to data files with a lower data sequence number, of its own spec
 *       and partition, or of every spec and partition when its spec is unpartitioned (global),
 *       unless the column statistics of the two files show that no deleted key can be in the data
 *       file.
 *   <li>A position delete that names one data file (its {@code referenced_data_file}, or equal
 *       lower and upper {@code file_path} bounds) applies to that file only; any other to data
 *       files of its spec and partition; both only to data files with a data sequence number at
 *       most its own.
 *   <li>A deletion vector (format version 3) applies to the file it references and replaces the
 *       position deletes of that file.
 * </ul>
 *
 * <p>The planner relies on this set being Iceberg's: a delete paired with no live data file is
 * dangling and may be removed, so a pair missed here would bring rows back. {@code DeleteIndexTest}
 * compares it with Iceberg's own planning on random tables.
 *
 * <p>Immutable after {@link #read}; {@link #forDataFile} may be called from several threads.
 */
final class DeleteIndex {
  private static final DeleteFile[] NONE = new DeleteFile[0];

  private final List<DeleteFile> all;
  private final @Nullable EqualityDeletes global;
  private final PartitionMap<EqualityDeletes> eqByPartition;
  private final PartitionMap<PositionDeletes> posByPartition;
  private final Map<String, PositionDeletes> posByPath;
  private final Map<String, DeleteFile> dvByPath;

  private DeleteIndex(
      List<DeleteFile> all,
      @Nullable EqualityDeletes global,
      PartitionMap<EqualityDeletes> eqByPartition,
      PartitionMap<PositionDeletes> posByPartition,
      Map<String, PositionDeletes> posByPath,
      Map<String, DeleteFile> dvByPath) {
    this.all = all;
    this.global = global;
    this.eqByPartition = eqByPartition;
    this.posByPartition = posByPartition;
    this.posByPath = posByPath;
    this.dvByPath = dvByPath;
  }

  /**
   * Reads the live delete files of the given delete manifests that may apply to rows matching
   * {@code filter}, as Iceberg's scan with that filter does.
   */
  static DeleteIndex read(Table table, List<ManifestFile> deleteManifests, Expression filter) {
    Map<Integer, PartitionSpec> specs = table.specs();
    Map<Integer, Types.NestedField> fields = Schema.indexFields(table.schemas().values());
    // Each manifest is read, and each of its files prepared (statistics trimmed, an equality
    // delete's bounds decoded, a position delete's data file found), on Iceberg's worker pool.
    List<Callable<List<Prepared>>> reads = new ArrayList<>();
    for (ManifestFile manifest : deleteManifests) {
      PartitionSpec spec = TableScanner.spec(specs, manifest.partitionSpecId());
      if (!hasLiveFiles(manifest)
          || !ManifestEvaluator.forRowFilter(filter, spec, true).eval(manifest)) {
        continue;
      }
      reads.add(
          () -> {
            List<Prepared> deletes = new ArrayList<>();
            try (CloseableIterable<DeleteFile> reader =
                ManifestFiles.readDeleteManifest(manifest, table.io(), specs).filterRows(filter)) {
              for (DeleteFile delete : reader) {
                deletes.add(Prepared.of(table, trimmed(delete), fields));
              }
            } catch (IOException e) {
              throw new UncheckedIOException(
                  "cannot read delete manifest " + manifest.path() + " of table " + table.name(),
                  e);
            }
            return deletes;
          });
    }
    // In manifest-list order, each manifest's entries in file order (readAll keeps the order of its
    // tasks): the index and every list of deletes a data file gets is the same from run to run.
    // Not sorted by location: comparing 45,714 long paths was a visible share of planning.
    List<DeleteFile> all = new ArrayList<>();
    EqualityDeletes global = new EqualityDeletes();
    PartitionMap<EqualityDeletes> eqByPartition = PartitionMap.create(specs);
    PartitionMap<PositionDeletes> posByPartition = PartitionMap.create(specs);
    Map<String, PositionDeletes> posByPath = new HashMap<>();
    Map<String, DeleteFile> dvByPath = new HashMap<>();
    for (List<Prepared> manifest : TableScanner.readAll(table, reads)) {
      for (Prepared prepared : manifest) {
        DeleteFile delete = prepared.file();
        all.add(delete);
        if (prepared.equality() != null) {
          if (TableScanner.spec(specs, delete.specId()).isUnpartitioned()) {
            global.add(prepared.equality());
          } else {
            eqByPartition
                .computeIfAbsent(delete.specId(), delete.partition(), EqualityDeletes::new)
                .add(prepared.equality());
          }
        } else if (delete.format() == FileFormat.PUFFIN) {
          DeleteFile other = dvByPath.putIfAbsent(delete.referencedDataFile(), delete);
          if (other != null) {
            throw new IllegalStateException(
                "table "
                    + table.name()
                    + " has two deletion vectors for data file "
                    + delete.referencedDataFile()
                    + ": "
                    + other.location()
                    + " and "
                    + delete.location()
                    + "; its metadata is inconsistent");
          }
        } else if (prepared.referencedDataFile() != null) {
          posByPath
              .computeIfAbsent(prepared.referencedDataFile(), p -> new PositionDeletes())
              .add(delete);
        } else {
          posByPartition
              .computeIfAbsent(delete.specId(), delete.partition(), PositionDeletes::new)
              .add(delete);
        }
      }
    }
    global.index();
    eqByPartition.values().forEach(EqualityDeletes::index);
    posByPartition.values().forEach(PositionDeletes::index);
    posByPath.values().forEach(PositionDeletes::index);
    return new DeleteIndex(
        List.copyOf(all),
        global.files.length == 0 ? null : global,
        eqByPartition,
        posByPartition,
        posByPath,
        dvByPath);
  }

  private static boolean hasLiveFiles(ManifestFile manifest) {
    return manifest.hasAddedFiles() || manifest.hasExistingFiles();
  }

  /**
   * A delete file as read, with what indexing it needs: an equality delete's decoded statistics, a
   * position delete's one data file (null when it may apply to several, and for a deletion vector).
   */
  private record Prepared(
      DeleteFile file, @Nullable EqualityDelete equality, @Nullable String referencedDataFile) {
    static Prepared of(Table table, DeleteFile delete, Map<Integer, Types.NestedField> fields) {
      return switch (delete.content()) {
        case EQUALITY_DELETES ->
            new Prepared(delete, new EqualityDelete(delete, fields::get), null);
        case POSITION_DELETES ->
            new Prepared(
                delete,
                null,
                delete.format() == FileFormat.PUFFIN
                    ? null
                    : DeleteFiles.referencedDataFile(delete));
        default ->
            throw new IllegalStateException(
                "delete file "
                    + delete.location()
                    + " of table "
                    + table.name()
                    + " has content "
                    + delete.content());
      };
    }
  }

  /**
   * A copy that keeps only the statistics pairing reads: the equality fields' of an equality
   * delete, the {@code file_path} bounds of a position delete (Iceberg keeps the same); and a
   * position delete's {@code pos} bounds, from which a task takes the positions of a file of one or
   * two records without opening it ({@link DeleteFiles#positionsFromMetadata}).
   */
  private static DeleteFile trimmed(DeleteFile delete) {
    Set<Integer> columns =
        delete.content() == FileContent.EQUALITY_DELETES
            ? Set.copyOf(delete.equalityFieldIds())
            : Set.of(
                MetadataColumns.DELETE_FILE_PATH.fieldId(),
                MetadataColumns.DELETE_FILE_POS.fieldId());
    return delete.copyWithStats(columns);
  }

  /** Every live delete file read, in manifest-list order. */
  List<DeleteFile> all() {
    return all;
  }

  boolean isEmpty() {
    return all.isEmpty();
  }

  /** The delete files that apply to a data file read from this snapshot's data manifests. */
  List<DeleteFile> forDataFile(DataFile file) {
    if (all.isEmpty()) {
      return List.of();
    }
    long seq = file.dataSequenceNumber() == null ? 0 : file.dataSequenceNumber();
    DeleteList.Builder result = new DeleteList.Builder();
    DataStats stats = null;
    if (global != null) {
      stats = new DataStats(file);
      global.addMatching(seq, stats, result);
    }
    EqualityDeletes eq = eqByPartition.get(file.specId(), file.partition());
    if (eq != null) {
      if (stats == null) {
        stats = new DataStats(file);
      }
      eq.addMatching(seq, stats, result);
    }
    DeleteFile dv = dvByPath.get(file.location());
    if (dv != null) {
      if (DeleteFiles.dataSequenceNumber(dv) < seq) {
        throw new IllegalStateException(
            "deletion vector "
                + dv.location()
                + " has data sequence number "
                + DeleteFiles.dataSequenceNumber(dv)
                + ", below the "
                + seq
                + " of the data file "
                + file.location()
                + " it references; the table's metadata is inconsistent");
      }
      result.add(dv);
      return result.build();
    }
    PositionDeletes pos = posByPartition.get(file.specId(), file.partition());
    if (pos != null) {
      pos.addFrom(seq, result);
    }
    PositionDeletes byPath = posByPath.get(file.location());
    if (byPath != null) {
      byPath.addFrom(seq, result);
    }
    return result.build();
  }

  /** The index of the first of {@code seqs} (ascending) that is at least {@code seq}. */
  private static int firstAtLeast(long[] seqs, long seq) {
    int low = 0;
    int high = seqs.length;
    while (low < high) {
      int mid = (low + high) >>> 1;
      if (seqs[mid] < seq) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    return low;
  }

  /** The index of the first of {@code values} (ascending) that is at least {@code value}. */
  private static int firstAtLeast(int[] values, int value) {
    int low = 0;
    int high = values.length;
    while (low < high) {
      int mid = (low + high) >>> 1;
      if (values[mid] < value) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    return low;
  }

  /** Position deletes by data sequence number; they apply to data files up to their own. */
  private static final class PositionDeletes {
    private final List<DeleteFile> buffer = new ArrayList<>();
    private DeleteFile[] files = NONE;
    private long[] seqs = new long[0];

    void add(DeleteFile delete) {
      buffer.add(delete);
    }

    void index() {
      files = buffer.toArray(NONE);
      Arrays.sort(files, Comparator.comparingLong(DeleteFiles::dataSequenceNumber));
      seqs = new long[files.length];
      for (int i = 0; i < files.length; i++) {
        seqs[i] = DeleteFiles.dataSequenceNumber(files[i]);
      }
    }

    void addFrom(long dataSeq, DeleteList.Builder result) {
      result.addRun(files, firstAtLeast(seqs, dataSeq), files.length);
    }
  }

  /** Equality deletes by data sequence number; they apply to data files below their own. */
  private static final class EqualityDeletes {
    private final List<EqualityDelete> buffer = new ArrayList<>();
    private EqualityDelete[] files = new EqualityDelete[0];

    /** The files of {@link #files}, in the same order: what a data file's list holds runs of. */
    private DeleteFile[] deleteFiles = NONE;

    private long[] applySeqs = new long[0];

    void add(EqualityDelete delete) {
      buffer.add(delete);
    }

    void index() {
      files = buffer.toArray(new EqualityDelete[0]);
      Arrays.sort(files, Comparator.comparingLong(d -> d.applySeq));
      applySeqs = new long[files.length];
      deleteFiles = new DeleteFile[files.length];
      for (int i = 0; i < files.length; i++) {
        applySeqs[i] = files[i].applySeq;
        deleteFiles[i] = files[i].file;
      }
      ranges = KeyRanges.of(files);
    }

    /**
     * The key ranges of the deletes whose pairing their range alone decides, when any: a data file
     * with plain statistics on that key then finds the few deletes it does not pair with instead of
     * asking every newer delete of its partition (every pair on a streaming table, ADR 0042).
     */
    private @Nullable KeyRanges ranges;

    /** Adds the matching deletes as runs: between two that cannot match, one run. */
    void addMatching(long dataSeq, DataStats data, DeleteList.Builder result) {
      int start = firstAtLeast(applySeqs, dataSeq);
      if (start >= files.length) {
        return;
      }
      KeyRanges keyRanges = ranges;
      if (keyRanges != null) {
        IntegerFacts facts = data.integerFacts(keyRanges.field);
        if (KeyRanges.decides(facts, data)) {
          keyRanges.addMatching(start, facts, data, files, deleteFiles, result);
          return;
        }
      }
      int run = -1;
      for (int i = start; i < files.length; i++) {
        if (files[i].mayDeleteFrom(data)) {
          if (run < 0) {
            run = i;
          }
        } else if (run >= 0) {
          result.addRun(deleteFiles, run, i);
          run = -1;
        }
      }
      if (run >= 0) {
        result.addRun(deleteFiles, run, files.length);
      }
    }
  }

  /** A data file's statistics, each map read once and each bound decoded at most once. */
  private static final class DataStats {
    private final @Nullable Map<Integer, ByteBuffer> lowers;
    private final @Nullable Map<Integer, ByteBuffer> uppers;
    private final @Nullable Map<Integer, Long> nullCounts;
    private final @Nullable Map<Integer, Long> valueCounts;
    private final Map<Integer, Object> decodedLowers = new HashMap<>(4);
    private final Map<Integer, Object> decodedUppers = new HashMap<>(4);

    DataStats(DataFile file) {
      this.lowers = file.lowerBounds();
      this.uppers = file.upperBounds();
      this.nullCounts = file.nullValueCounts();
      this.valueCounts = file.valueCounts();
    }

    private @Nullable IntegerFacts integerFacts;

    @Nullable Object lower(Types.NestedField field) {
      return decoded(lowers, decodedLowers, field);
    }

    /** The facts of an integer field, decoded once per data file (the last field asked for). */
    IntegerFacts integerFacts(Types.NestedField field) {
      IntegerFacts facts = integerFacts;
      if (facts == null || facts.fieldId != field.fieldId()) {
        facts = IntegerFacts.of(field, lowers, uppers, nullCounts, valueCounts);
        integerFacts = facts;
      }
      return facts;
    }

    @Nullable Object upper(Types.NestedField field) {
      return decoded(uppers, decodedUppers, field);
    }

    private static @Nullable Object decoded(
        @Nullable Map<Integer, ByteBuffer> bounds,
        Map<Integer, Object> cache,
        Types.NestedField field) {
      ByteBuffer bound = bounds == null ? null : bounds.get(field.fieldId());
      if (bound == null) {
        return null;
      }
      return cache.computeIfAbsent(
          field.fieldId(), id -> Conversions.fromByteBuffer(field.type(), bound));
    }
  }

  /** An equality delete with its equality fields and bounds resolved once. */
  private static final class EqualityDelete {
    private final DeleteFile file;
    private final long applySeq;
    private final List<Types.NestedField> fields;
    private final boolean hasBounds;
    private final Map<Integer, Object> lowers = new HashMap<>(4);
    private final Map<Integer, Object> uppers = new HashMap<>(4);
    private final @Nullable Map<Integer, Long> nullCounts;
    private final @Nullable Map<Integer, Long> valueCounts;
    // Set when the delete keys one int or long column (almost every streaming table): pairs are
    // then decided on primitives, the same way.
    private final @Nullable IntegerFacts integerFacts;

    EqualityDelete(DeleteFile file, Function<Integer, Types.NestedField> fieldLookup) {
      this.file = file;
      this.applySeq = DeleteFiles.dataSequenceNumber(file) - 1;
      this.fields = new ArrayList<>();
      for (int id : file.equalityFieldIds()) {
        Types.NestedField field = fieldLookup.apply(id);
        if (field == null) {
          throw new IllegalStateException(
              "equality delete "
                  + file.location()
                  + " names field id "
                  + id
                  + ", which no schema of the table has; its metadata is inconsistent");
        }
        fields.add(field);
      }
      Map<Integer, ByteBuffer> lowerBounds = file.lowerBounds();
      Map<Integer, ByteBuffer> upperBounds = file.upperBounds();
      this.hasBounds = lowerBounds != null && upperBounds != null;
      for (Types.NestedField field : fields) {
        if (field.type().isPrimitiveType()) {
          decode(lowerBounds, field, lowers);
          decode(upperBounds, field, uppers);
        }
      }
      this.nullCounts = file.nullValueCounts();
      this.valueCounts = file.valueCounts();
      this.integerFacts =
          fields.size() == 1 && IntegerFacts.applies(fields.get(0))
              ? IntegerFacts.of(fields.get(0), lowerBounds, upperBounds, nullCounts, valueCounts)
              : null;
    }

    private static void decode(
        @Nullable Map<Integer, ByteBuffer> bounds,
        Types.NestedField field,
        Map<Integer, Object> into) {
      ByteBuffer bound = bounds == null ? null : bounds.get(field.fieldId());
      if (bound != null) {
        into.put(field.fieldId(), Conversions.fromByteBuffer(field.type(), bound));
      }
    }

    /**
     * Whether a data file's pairing with this delete is decided by the two key ranges alone when
     * the data file's statistics on the key are plain ({@link KeyRanges}): one integer key, both
     * bounds known, not all null.
     */
    boolean rangeDecides() {
      IntegerFacts facts = integerFacts;
      return facts != null && hasBounds && facts.hasLower && facts.hasUpper && !facts.allNull;
    }

    /** Iceberg's {@code canContainEqDeletesForFile}, on decoded statistics. */
    boolean mayDeleteFrom(DataStats data) {
      IntegerFacts facts = integerFacts;
      if (facts != null) {
        return facts.mayDeleteFrom(
            data.integerFacts(fields.get(0)), data.lowers, data.uppers, hasBounds);
      }
      boolean checkRanges = data.lowers != null && data.uppers != null && hasBounds;
      for (Types.NestedField field : fields) {
        if (!field.type().isPrimitiveType()) {
          continue; // no statistics for nested types
        }
        if (containsNull(data.nullCounts, field) && containsNull(nullCounts, field)) {
          continue; // the data has nulls and null is deleted
        }
        if (allNull(data.nullCounts, data.valueCounts, field) && allNonNull(nullCounts, field)) {
          return false;
        }
        if (allNull(nullCounts, valueCounts, field) && allNonNull(data.nullCounts, field)) {
          return false;
        }
        if (!checkRanges) {
          continue;
        }
        Object dataLower = data.lower(field);
        Object dataUpper = data.upper(field);
        Object deleteLower = lowers.get(field.fieldId());
        Object deleteUpper = uppers.get(field.fieldId());
        if (dataLower == null || dataUpper == null || deleteLower == null || deleteUpper == null) {
          continue;
        }
        Comparator<Object> comparator = Comparators.forType((Type.PrimitiveType) field.type());
        if (comparator.compare(dataLower, deleteUpper) > 0
            || comparator.compare(deleteLower, dataUpper) > 0) {
          return false;
        }
      }
      return true;
    }

    private static boolean allNonNull(
        @Nullable Map<Integer, Long> nullCounts, Types.NestedField field) {
      if (field.isRequired()) {
        return true;
      }
      Long nulls = nullCounts == null ? null : nullCounts.get(field.fieldId());
      return nulls != null && nulls <= 0;
    }

    private static boolean allNull(
        @Nullable Map<Integer, Long> nullCounts,
        @Nullable Map<Integer, Long> valueCounts,
        Types.NestedField field) {
      if (field.isRequired() || nullCounts == null || valueCounts == null) {
        return false;
      }
      Long nulls = nullCounts.get(field.fieldId());
      Long values = valueCounts.get(field.fieldId());
      return nulls != null && values != null && nulls.equals(values);
    }

    private static boolean containsNull(
        @Nullable Map<Integer, Long> nullCounts, Types.NestedField field) {
      if (field.isRequired()) {
        return false;
      }
      Long nulls = nullCounts == null ? null : nullCounts.get(field.fieldId());
      return nulls == null || nulls > 0;
    }
  }

  /**
   * The pairing of one partition's equality deletes on an {@code int} or {@code long} key, decided
   * by ranges: for a data file whose statistics on the key are plain (bounds known, no null) and a
   * delete whose are too (bounds known, not all null), {@link IntegerFacts#mayDeleteFrom} is
   * exactly "the two ranges overlap". Those deletes' bounds sit in a segment tree over their
   * position in sequence order (the largest lower and the smallest upper bound of each subtree), so
   * the deletes from a position on that a data file's range misses are found without visiting the
   * others; every other delete (another key, no bounds, all null) is asked as before. The runs
   * added are those of asking every delete in turn.
   */
  private static final class KeyRanges {
    final Types.NestedField field;
    private final int leaves;
    private final long[] maxLower;
    private final long[] minUpper;

    /** Positions of the deletes the ranges do not decide, ascending. */
    private final int[] others;

    private KeyRanges(Types.NestedField field, int leaves, int[] others) {
      this.field = field;
      this.leaves = leaves;
      this.maxLower = new long[2 * leaves];
      this.minUpper = new long[2 * leaves];
      // Neutral values: a position holding them is never a miss.
      Arrays.fill(maxLower, Long.MIN_VALUE);
      Arrays.fill(minUpper, Long.MAX_VALUE);
      this.others = others;
    }

    static @Nullable KeyRanges of(EqualityDelete[] files) {
      Types.NestedField field = null;
      for (EqualityDelete file : files) {
        if (file.rangeDecides()) {
          field = file.fields.get(0);
          break;
        }
      }
      if (field == null) {
        return null;
      }
      int leaves = Integer.highestOneBit(Math.max(1, files.length - 1)) << 1;
      int[] others = new int[files.length];
      int otherCount = 0;
      List<Integer> decided = new ArrayList<>();
      for (int i = 0; i < files.length; i++) {
        EqualityDelete file = files[i];
        if (file.rangeDecides() && file.fields.get(0).equals(field)) {
          decided.add(i);
        } else {
          others[otherCount++] = i;
        }
      }
      KeyRanges ranges = new KeyRanges(field, leaves, Arrays.copyOf(others, otherCount));
      for (int i : decided) {
        IntegerFacts facts = files[i].integerFacts;
        if (facts == null) {
          throw new IllegalStateException("a delete decided by its range has no integer facts");
        }
        ranges.maxLower[leaves + i] = facts.lower;
        ranges.minUpper[leaves + i] = facts.upper;
      }
      for (int node = leaves - 1; node >= 1; node--) {
        ranges.maxLower[node] = Math.max(ranges.maxLower[2 * node], ranges.maxLower[2 * node + 1]);
        ranges.minUpper[node] = Math.min(ranges.minUpper[2 * node], ranges.minUpper[2 * node + 1]);
      }
      return ranges;
    }

    /** Whether a data file's statistics on the key let ranges decide its pairs. */
    static boolean decides(IntegerFacts facts, DataStats data) {
      return data.lowers != null
          && data.uppers != null
          && !facts.containsNull
          && !facts.allNull
          && facts.hasLower
          && facts.hasUpper;
    }

    void addMatching(
        int start,
        IntegerFacts data,
        DataStats stats,
        EqualityDelete[] files,
        DeleteFile[] deleteFiles,
        DeleteList.Builder result) {
      Ints misses = new Ints();
      collectMisses(1, 0, leaves, start, data.lower, data.upper, misses);
      int run = start;
      int next = 0;
      int other = firstAtLeast(others, start);
      while (next < misses.size || other < others.length) {
        int miss;
        if (other >= others.length || (next < misses.size && misses.values[next] < others[other])) {
          miss = misses.values[next++];
        } else {
          int candidate = others[other++];
          if (files[candidate].mayDeleteFrom(stats)) {
            continue;
          }
          miss = candidate;
        }
        if (run < miss) {
          result.addRun(deleteFiles, run, miss);
        }
        run = miss + 1;
      }
      if (run < files.length) {
        result.addRun(deleteFiles, run, files.length);
      }
    }

    /** The positions from {@code start} on whose range misses [lower, upper], ascending. */
    private void collectMisses(
        int node, int from, int to, int start, long lower, long upper, Ints into) {
      if (to <= start || (maxLower[node] <= upper && minUpper[node] >= lower)) {
        return;
      }
      if (node >= leaves) {
        into.add(node - leaves);
        return;
      }
      int mid = (from + to) >>> 1;
      collectMisses(2 * node, from, mid, start, lower, upper, into);
      collectMisses(2 * node + 1, mid, to, start, lower, upper, into);
    }
  }

  /** A growable list of ints. */
  private static final class Ints {
    int[] values = new int[8];
    int size;

    void add(int value) {
      if (size == values.length) {
        values = Arrays.copyOf(values, size * 2);
      }
      values[size++] = value;
    }
  }

  /**
   * What {@code canContainEqDeletesForFile} asks of one file's statistics for one {@code int} or
   * {@code long} field, decoded once: the same null-count rules and the same range comparison
   * (Iceberg compares these types in their natural order), on primitives.
   */
  private static final class IntegerFacts {
    private final int fieldId;
    private final boolean containsNull;
    private final boolean allNull;
    private final boolean allNonNull;
    private final boolean hasLower;
    private final boolean hasUpper;
    private final long lower;
    private final long upper;

    private IntegerFacts(
        int fieldId,
        boolean containsNull,
        boolean allNull,
        boolean allNonNull,
        @Nullable Object lower,
        @Nullable Object upper) {
      this.fieldId = fieldId;
      this.containsNull = containsNull;
      this.allNull = allNull;
      this.allNonNull = allNonNull;
      this.hasLower = lower != null;
      this.hasUpper = upper != null;
      this.lower = lower == null ? 0 : ((Number) lower).longValue();
      this.upper = upper == null ? 0 : ((Number) upper).longValue();
    }

    static boolean applies(Types.NestedField field) {
      Type.TypeID type = field.type().typeId();
      return type == Type.TypeID.INTEGER || type == Type.TypeID.LONG;
    }

    static IntegerFacts of(
        Types.NestedField field,
        @Nullable Map<Integer, ByteBuffer> lowers,
        @Nullable Map<Integer, ByteBuffer> uppers,
        @Nullable Map<Integer, Long> nullCounts,
        @Nullable Map<Integer, Long> valueCounts) {
      ByteBuffer lower = lowers == null ? null : lowers.get(field.fieldId());
      ByteBuffer upper = uppers == null ? null : uppers.get(field.fieldId());
      return new IntegerFacts(
          field.fieldId(),
          EqualityDelete.containsNull(nullCounts, field),
          EqualityDelete.allNull(nullCounts, valueCounts, field),
          EqualityDelete.allNonNull(nullCounts, field),
          lower == null ? null : Conversions.fromByteBuffer(field.type(), lower),
          upper == null ? null : Conversions.fromByteBuffer(field.type(), upper));
    }

    /**
     * This delete's facts against a data file's: the order of {@code canContainEqDeletesForFile}.
     * {@code checkRanges} there needs both of the data file's bound maps and both of the delete's
     * ({@link EqualityDelete#hasBounds}); a bound missing from a map counts as unknown.
     */
    boolean mayDeleteFrom(
        IntegerFacts data,
        @Nullable Map<Integer, ByteBuffer> dataLowers,
        @Nullable Map<Integer, ByteBuffer> dataUppers,
        boolean deleteHasBounds) {
      if (data.containsNull && containsNull) {
        return true;
      }
      if (data.allNull && allNonNull) {
        return false;
      }
      if (allNull && data.allNonNull) {
        return false;
      }
      if (dataLowers == null || dataUppers == null || !deleteHasBounds) {
        return true;
      }
      if (!data.hasLower || !data.hasUpper || !hasLower || !hasUpper) {
        return true;
      }
      return data.lower <= upper && lower <= data.upper;
    }
  }
}
