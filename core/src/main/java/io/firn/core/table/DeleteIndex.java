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
    }

    /** Adds the matching deletes as runs: between two that cannot match, one run. */
    void addMatching(long dataSeq, DataStats data, DeleteList.Builder result) {
      int run = -1;
      for (int i = firstAtLeast(applySeqs, dataSeq); i < files.length; i++) {
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
