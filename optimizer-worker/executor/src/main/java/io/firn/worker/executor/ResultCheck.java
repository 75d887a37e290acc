/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.executor;

import io.firn.core.commit.TaskResult;
import io.firn.core.io.DataFileIO;
import io.firn.core.plan.RewriteTask;
import io.firn.core.table.DataFileEntry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.avro.Avro;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.orc.OrcMetrics;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.iceberg.types.Comparators;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.jspecify.annotations.Nullable;

/**
 * Checks what a worker handed in against what it was leased, never trusting the worker (ADR 0017):
 * every file is the attempt's own (under the table's data location, named with the attempt id), of
 * the task's spec, partition and the table's format, present with the size the worker reported and
 * as many rows as its footer says; the rows written equal the live rows of the task's inputs
 * recounted here from the table's own files (reading only equality-key columns, and only of files
 * that equality deletes apply to); position deletes name only the task's converted files and
 * exactly the positions their deletes remove.
 *
 * <p>It does not compare row values: a holder of the worker token who writes the right number of
 * altered rows into its own lease is not detected (the trust model in ADR 0017).
 */
public final class ResultCheck {
  private ResultCheck() {}

  /** A handed-in result that does not match its lease; nothing of it may be committed. */
  public static final class RefusedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RefusedException(String message) {
      super(message);
    }
  }

  /**
   * @param bloomThreshold as the task was leased with (bounds the memory of equality keys)
   * @throws RefusedException naming the first thing that does not match
   * @throws UncheckedIOException when an input of the task cannot be read (not the worker's fault)
   */
  public static void verify(
      Table table, RewriteTask task, String attemptId, TaskResult result, long bloomThreshold) {
    FileIO io = DataFileIO.of(table.io());
    FileFormat format = RewriteExecutor.dataFormat(table);
    long inputRows = task.rewrite().stream().mapToLong(DataFileEntry::recordCount).sum();
    if (result.rowsRead() != inputRows) {
      throw refused(
          "it read %d rows, but the task's %d input file(s) hold %d",
          result.rowsRead(), task.rewrite().size(), inputRows);
    }
    if (task.rewrite().isEmpty() && !result.dataFiles().isEmpty()) {
      throw refused(
          "it wrote %d data file(s) for a task that rewrites none", result.dataFiles().size());
    }
    long written = 0;
    for (DataFile file : result.dataFiles()) {
      if (file.content() != FileContent.DATA) {
        throw refused("%s is listed as a data file but holds %s", file.location(), file.content());
      }
      DataFileEntry first = task.rewrite().get(0);
      ownFile(table, io, file, attemptId, format, first.file().specId(), first.file().partition());
      written += file.recordCount();
    }

    List<DataFileEntry> all = new ArrayList<>(task.rewrite());
    all.addAll(task.convert());
    TaskDeletes deletes = TaskDeletes.load(io, table.schema(), table.specs(), all, bloomThreshold);
    Set<Integer> keyIds = new HashSet<>();
    deletes.equality().forEach(s -> keyIds.addAll(s.fieldIds));
    Schema keySchema = TypeUtil.select(table.schema(), keyIds);
    List<Keys> keys = new ArrayList<>();
    for (TaskDeletes.EqualitySet set : deletes.equality()) {
      keys.add(Keys.of(keySchema, set.fieldIds));
    }

    // The statistics of the key columns, by which Iceberg pairs later equality deletes with the
    // outputs: the table's identifier fields and the keys of the task's equality deletes.
    Set<Integer> statisticsIds = new HashSet<>(table.schema().identifierFieldIds());
    statisticsIds.addAll(keyIds);
    for (DataFile file : result.dataFiles()) {
      keyStatistics(table, io, file, statisticsIds);
    }

    long live = 0;
    for (DataFileEntry entry : task.rewrite()) {
      live += entry.recordCount() - deletedPositions(io, table, entry, deletes, keySchema, keys);
    }
    if (written != live
        || result.rowsWritten() != live
        || result.rowsDeleted() != inputRows - live) {
      throw refused(
          "its files hold %d rows (it reports %d written, %d deleted), but the task's inputs have"
              + " %d live rows of %d",
          written, result.rowsWritten(), result.rowsDeleted(), live, inputRows);
    }

    Map<String, DataFileEntry> converted = new HashMap<>();
    task.convert().forEach(e -> converted.put(e.path(), e));
    Set<String> covered = new HashSet<>();
    long positions = 0;
    for (DeleteFile file : result.positionDeletes()) {
      if (file.content() != FileContent.POSITION_DELETES) {
        throw refused(
            "%s is listed as a position-delete file but holds %s", file.location(), file.content());
      }
      // Where it is first: a path the attempt may not have written is never opened.
      String problem = locationProblem(table, file.location(), attemptId);
      if (problem != null) {
        throw refused("file %s %s", file.location(), problem);
      }
      Map<String, List<@Nullable Long>> rows = positionRows(io, file);
      Map.Entry<String, List<@Nullable Long>> named =
          rows.size() == 1 ? rows.entrySet().iterator().next() : null;
      DataFileEntry entry = named == null ? null : converted.get(named.getKey());
      if (named == null || entry == null) {
        throw refused(
            "position-delete file %s names %s, not one data file the task converts",
            file.location(), rows.keySet());
      }
      String path = named.getKey();
      if (!covered.add(path)) {
        throw refused("two position-delete files name %s", path);
      }
      ownFile(table, io, file, attemptId, format, entry.file().specId(), entry.file().partition());
      long[] got = positions(file, named.getValue());
      long[] expected =
          RewriteExecutor.deletedPositions(io, table, entry, deletes, keySchema, keys);
      if (!Arrays.equals(got, expected)) {
        throw refused(
            "position-delete file %s deletes %d position(s) of %s, its deletes remove %d"
                + " (or other ones)",
            file.location(), got.length, path, expected.length);
      }
      positionMetadata(file, path, got);
      positions += got.length;
    }
    for (DataFileEntry entry : task.convert()) {
      if (!covered.contains(entry.path())
          && RewriteExecutor.deletedPositions(io, table, entry, deletes, keySchema, keys).length
              > 0) {
        throw refused(
            "no position-delete file for converted file %s, whose deletes remove rows",
            entry.path());
      }
    }
    if (result.positionsWritten() != positions) {
      throw refused(
          "it reports %d positions written, its files hold %d",
          result.positionsWritten(), positions);
    }
  }

  /**
   * True when {@code location} is one the attempt may have written: under the table's data location
   * and named with the attempt id (the only files a refused result may have deleted).
   */
  public static boolean ownLocation(Table table, String location, String attemptId) {
    return locationProblem(table, location, attemptId) == null;
  }

  private static @Nullable String locationProblem(
      Table table, @Nullable String location, String attemptId) {
    String root = dataLocation(table);
    if (location == null || !location.startsWith(root + "/")) {
      return "is not under the table's data location " + root;
    }
    for (String segment : location.substring(root.length() + 1).split("/", -1)) {
      // Empty segments are allowed: Iceberg writes <data>//<file> for an unpartitioned spec.
      if (segment.equals(".") || segment.equals("..")) {
        return "is not a plain path under the table's data location " + root;
      }
    }
    String name = location.substring(location.lastIndexOf('/') + 1);
    if (!name.contains("-" + attemptId + "-")) {
      return "is not named with the attempt id " + attemptId;
    }
    return null;
  }

  /** Rows of a rewritten input its deletes remove, counted the way the rewrite decides them. */
  private static long deletedPositions(
      FileIO io,
      Table table,
      DataFileEntry entry,
      TaskDeletes deletes,
      Schema keySchema,
      List<Keys> keys) {
    if (!deletes.hasEqualityDeletes()) {
      return Arrays.stream(deletes.positions(entry.path()))
          .filter(p -> p >= 0 && p < entry.recordCount())
          .count();
    }
    long[] deleted = {0};
    RewriteExecutor.scanFile(
        io,
        keySchema,
        RewriteExecutor.spec(table, entry.file().specId()),
        entry,
        deletes,
        keys,
        (row, position, drop) -> {
          if (drop) {
            deleted[0]++;
          }
        });
    return deleted[0];
  }

  private static void ownFile(
      Table table,
      FileIO io,
      ContentFile<?> file,
      String attemptId,
      FileFormat format,
      int specId,
      StructLike partition) {
    String problem = locationProblem(table, file.location(), attemptId);
    if (problem != null) {
      throw refused("file %s %s", file.location(), problem);
    }
    if (file.format() != format
        || !file.location()
            .toLowerCase(Locale.ROOT)
            .endsWith("." + format.name().toLowerCase(Locale.ROOT))) {
      throw refused("file %s is %s, the table writes %s", file.location(), file.format(), format);
    }
    PartitionSpec spec = RewriteExecutor.spec(table, specId);
    if (file.specId() != specId
        || file.partition() == null
        || Comparators.forType(spec.partitionType()).compare(file.partition(), partition) != 0) {
      throw refused(
          "file %s is of spec %d partition %s, the task's is spec %d partition %s",
          file.location(),
          file.specId(),
          file.partition(),
          specId,
          spec.partitionToPath(partition));
    }
    InputFile in = io.newInputFile(file.location());
    if (!in.exists()) {
      throw refused("file %s does not exist", file.location());
    }
    if (in.getLength() != file.fileSizeInBytes()) {
      throw refused(
          "file %s has %d bytes, it was reported with %d",
          file.location(), in.getLength(), file.fileSizeInBytes());
    }
    // Only the footer is needed: ranged reads (two requests), not the whole file (ADR 0024 §12).
    long rows;
    try {
      rows =
          switch (format) {
            case PARQUET -> ParquetUtil.fileMetrics(in, MetricsConfig.getDefault()).recordCount();
            case ORC -> OrcMetrics.fromInputFile(in).recordCount();
            case AVRO -> Avro.rowCount(in);
            default -> -1;
          };
    } catch (RuntimeException e) {
      throw refused("file %s cannot be read as %s: %s", file.location(), format, e.getMessage());
    }
    if (rows != file.recordCount()) {
      throw refused(
          "file %s holds %d rows, it was reported with %d",
          file.location(), rows, file.recordCount());
    }
  }

  /**
   * A position-delete file's metadata says what its rows say. Iceberg pairs the file by its
   * referenced data file or its {@code file_path} bounds (and prunes by those bounds), and Firn
   * takes the positions of a file of one or two records from its {@code pos} bounds (ADR 0043): a
   * result whose rows delete the checked positions of one file while its metadata names another
   * file or other positions would delete other rows than the ones checked, or none (the converted
   * equality deletes are gone, so those rows would come back).
   */
  private static void positionMetadata(DeleteFile file, String path, long[] sortedPositions) {
    String referenced = file.referencedDataFile();
    if (referenced != null && !referenced.equals(path)) {
      throw refused(
          "position-delete file %s deletes rows of %s but its metadata references %s",
          file.location(), path, referenced);
    }
    int pathId = MetadataColumns.DELETE_FILE_PATH.fieldId();
    int posId = MetadataColumns.DELETE_FILE_POS.fieldId();
    for (Map<Integer, ByteBuffer> bounds : Arrays.asList(file.lowerBounds(), file.upperBounds())) {
      ByteBuffer bound = bounds == null ? null : bounds.get(pathId);
      if (bound != null
          && !path.equals(Conversions.fromByteBuffer(Types.StringType.get(), bound).toString())) {
        throw refused(
            "position-delete file %s deletes rows of %s but its file_path bounds name %s",
            file.location(), path, Conversions.fromByteBuffer(Types.StringType.get(), bound));
      }
    }
    long first = sortedPositions[0];
    long last = sortedPositions[sortedPositions.length - 1];
    checkPositionBound(file, file.lowerBounds(), posId, first, "lower");
    checkPositionBound(file, file.upperBounds(), posId, last, "upper");
    for (int id : new int[] {pathId, posId}) {
      Long nulls = file.nullValueCounts() == null ? null : file.nullValueCounts().get(id);
      Long values = file.valueCounts() == null ? null : file.valueCounts().get(id);
      if ((nulls != null && nulls != 0) || (values != null && values != sortedPositions.length)) {
        throw refused(
            "position-delete file %s holds %d rows without nulls but its metadata counts %s"
                + " values and %s nulls in field %d",
            file.location(), sortedPositions.length, values, nulls, id);
      }
    }
  }

  private static void checkPositionBound(
      DeleteFile file,
      @Nullable Map<Integer, ByteBuffer> bounds,
      int posId,
      long expected,
      String which) {
    ByteBuffer bound = bounds == null ? null : bounds.get(posId);
    if (bound == null) {
      return;
    }
    Object value;
    try {
      value = Conversions.fromByteBuffer(Types.LongType.get(), bound);
    } catch (RuntimeException e) {
      value = null;
    }
    if (!(value instanceof Long position) || position != expected) {
      throw refused(
          "position-delete file %s holds positions up from its %s end %d but its metadata's %s"
              + " pos bound is %s",
          file.location(), which, expected, which, value);
    }
  }

  /**
   * A written data file's statistics on a key column hold what the file holds: value and null
   * counts equal, every non-null value within the bounds (Iceberg's truncated bounds of long
   * strings still contain every value). Iceberg pairs an equality delete with a data file only when
   * the delete's keys may lie within the file's bounds and null counts, so bounds that exclude a
   * key the file holds would keep a later delete of that key from applying. Integer keys are read
   * as a column ({@link ParquetLongColumn}); others as records of that one column. Floating-point
   * keys (NaN is outside Iceberg's bounds) and identity partition sources (their value is the
   * partition's) are not checked.
   */
  private static void keyStatistics(Table table, FileIO io, DataFile file, Set<Integer> ids) {
    Schema schema = table.schema();
    PartitionSpec spec = RewriteExecutor.spec(table, file.specId());
    for (int id : ids) {
      Types.NestedField field = schema.findField(id);
      if (field == null
          || !CHECKED_KEY_TYPES.contains(field.type().typeId())
          || spec.fields().stream()
              .anyMatch(p -> p.sourceId() == id && p.transform().isIdentity())) {
        continue;
      }
      ColumnFacts facts = ColumnFacts.read(io, file, schema, field);
      Long values = file.valueCounts() == null ? null : file.valueCounts().get(id);
      Long nulls = file.nullValueCounts() == null ? null : file.nullValueCounts().get(id);
      if ((values != null && values != facts.values) || (nulls != null && nulls != facts.nulls)) {
        throw refused(
            "data file %s holds %d values of which %d null in %s, its metadata says %s and %s",
            file.location(), facts.values, facts.nulls, field.name(), values, nulls);
      }
      if (facts.min == null || facts.max == null) {
        continue;
      }
      Comparator<Object> order = Comparators.forType(field.type().asPrimitiveType());
      Object lower = bound(file.lowerBounds(), field);
      Object upper = bound(file.upperBounds(), field);
      if ((lower != null && order.compare(lower, facts.min) > 0)
          || (upper != null && order.compare(upper, facts.max) < 0)) {
        throw refused(
            "data file %s holds %s from %s to %s, its metadata's bounds are %s to %s",
            file.location(), field.name(), facts.min, facts.max, lower, upper);
      }
    }
  }

  /**
   * Key types whose bounds are checked: those Iceberg orders as Parquet does and the generic
   * reader's values convert exactly. Floating point (NaN lies outside Iceberg's bounds), UUID and
   * binary (orderings that have differed between Iceberg versions) are not.
   */
  private static final Set<org.apache.iceberg.types.Type.TypeID> CHECKED_KEY_TYPES =
      Set.of(
          org.apache.iceberg.types.Type.TypeID.INTEGER,
          org.apache.iceberg.types.Type.TypeID.LONG,
          org.apache.iceberg.types.Type.TypeID.STRING,
          org.apache.iceberg.types.Type.TypeID.DATE,
          org.apache.iceberg.types.Type.TypeID.TIME,
          org.apache.iceberg.types.Type.TypeID.TIMESTAMP,
          org.apache.iceberg.types.Type.TypeID.DECIMAL,
          org.apache.iceberg.types.Type.TypeID.BOOLEAN);

  private static @Nullable Object bound(
      @Nullable Map<Integer, ByteBuffer> bounds, Types.NestedField field) {
    ByteBuffer bound = bounds == null ? null : bounds.get(field.fieldId());
    return bound == null ? null : Conversions.fromByteBuffer(field.type(), bound);
  }

  /** What a file holds in one column: its values (nulls included), nulls, least and greatest. */
  private static final class ColumnFacts {
    long values;
    long nulls;
    @Nullable Object min;
    @Nullable Object max;

    static ColumnFacts read(FileIO io, DataFile file, Schema schema, Types.NestedField field) {
      ColumnFacts facts = new ColumnFacts();
      org.apache.iceberg.types.Type.TypeID type = field.type().typeId();
      if (type == org.apache.iceberg.types.Type.TypeID.LONG
          || type == org.apache.iceberg.types.Type.TypeID.INTEGER) {
        boolean int32 = type == org.apache.iceberg.types.Type.TypeID.INTEGER;
        long[] range = {Long.MAX_VALUE, Long.MIN_VALUE};
        long read;
        try {
          read =
              ParquetLongColumn.read(
                  io,
                  file,
                  field.fieldId(),
                  new ParquetLongColumn.Visitor() {
                    @Override
                    public void value(long position, long value) {
                      range[0] = Math.min(range[0], value);
                      range[1] = Math.max(range[1], value);
                    }

                    @Override
                    public void nullValue(long position) {
                      facts.nulls++;
                    }
                  });
        } catch (UncheckedIOException e) {
          throw e;
        } catch (RuntimeException e) {
          throw refused("data file %s cannot be read: %s", file.location(), e.getMessage());
        }
        if (read >= 0) {
          facts.values = read;
          if (read > facts.nulls) {
            facts.min = int32 ? (Object) (int) range[0] : (Object) range[0];
            facts.max = int32 ? (Object) (int) range[1] : (Object) range[1];
          }
          return facts;
        }
      }
      Comparator<Object> order = Comparators.forType(field.type().asPrimitiveType());
      Schema projection = TypeUtil.select(schema, Set.of(field.fieldId()));
      // Values as Iceberg's bounds hold them (days, microseconds), not as the reader's java.time.
      InternalRecordWrapper internal = new InternalRecordWrapper(projection.asStruct());
      try (CloseableIterable<Record> rows = Readers.open(io, file, projection, Map.of())) {
        for (Record row : rows) {
          facts.values++;
          Object value = internal.wrap(row).get(0, Object.class);
          if (value == null) {
            facts.nulls++;
            continue;
          }
          if (facts.min == null || order.compare(value, facts.min) < 0) {
            facts.min = value;
          }
          if (facts.max == null || order.compare(value, facts.max) > 0) {
            facts.max = value;
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read data file " + file.location(), e);
      } catch (RuntimeException e) {
        throw refused("data file %s cannot be read: %s", file.location(), e.getMessage());
      }
      return facts;
    }
  }

  /** The positions of a position-delete file, sorted; a row without one is refused. */
  private static long[] positions(DeleteFile file, List<@Nullable Long> rows) {
    long[] positions = new long[rows.size()];
    for (int i = 0; i < positions.length; i++) {
      Long position = rows.get(i);
      if (position == null) {
        throw refused("position-delete file %s has a row without a position", file.location());
      }
      positions[i] = position;
    }
    Arrays.sort(positions);
    return positions;
  }

  /** The rows of a position-delete file by the data file they name (null when a row names none). */
  private static Map<String, List<@Nullable Long>> positionRows(FileIO io, DeleteFile file) {
    Map<String, List<@Nullable Long>> rows = new HashMap<>();
    try (CloseableIterable<Record> records =
        Readers.open(io, file, TaskDeletes.PATH_POS, Map.of())) {
      for (Record row : records) {
        rows.computeIfAbsent((String) row.get(0), p -> new ArrayList<>()).add((Long) row.get(1));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read position-delete file " + file.location(), e);
    } catch (RuntimeException e) {
      throw refused("position-delete file %s cannot be read: %s", file.location(), e.getMessage());
    }
    return rows;
  }

  private static String dataLocation(Table table) {
    String root =
        table
            .properties()
            .getOrDefault(TableProperties.WRITE_DATA_LOCATION, table.location() + "/data");
    while (root.endsWith("/")) {
      root = root.substring(0, root.length() - 1);
    }
    return root;
  }

  private static RefusedException refused(String format, @Nullable Object... args) {
    return new RefusedException(String.format(Locale.ROOT, format, args));
  }
}
