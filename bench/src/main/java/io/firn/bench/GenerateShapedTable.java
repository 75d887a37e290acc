/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.bench;

import io.firn.core.catalog.CatalogSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.sink.RowDataTaskWriterFactory;
import org.apache.iceberg.io.TaskWriter;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.types.Types;

/**
 * Generates a table of a chosen shape with <em>Iceberg's own Flink writer</em> ({@link
 * RowDataTaskWriterFactory}, the task writer behind Iceberg's {@code FlinkSink} and {@code
 * IcebergSink}), committing each simulated checkpoint the way Iceberg's Flink committer does (one
 * {@code RowDelta} with every subtask's data and delete files). Firn's testkit generator writes its
 * files itself; this one lets a writer Firn did not design decide which files, deletes and sizes a
 * table gets (issue 17's benchmark matrix).
 *
 * <p>Shape options: {@code --codec zstd|snappy|gzip}; {@code --width narrow|wide} (narrow: 6
 * columns, a short status string; wide: 8 more columns of ~100-character random strings); {@code
 * --partition identity|bucket|none} with {@code --partitions N} ({@code identity} on a string
 * column {@code region} derived from the key, {@code bucket(N, id)}); {@code --writer cdc|upsert}
 * ({@code cdc}: a changelog of inserts, update-before/after pairs and deletes, equality deletes
 * carry the full row as Flink writes them without upsert; {@code upsert}: every row deletes its key
 * first, key-only equality deletes); {@code --rows} keys inserted over {@code --commits}
 * checkpoints, {@code --update-ratio} and {@code --delete-ratio} per new key, {@code
 * --rewrite-ratio} keys written twice within a checkpoint (Flink turns those into position
 * deletes); {@code --subtasks} writer subtasks (records are keyed to a subtask by their key, as
 * Flink's upsert sinks require); {@code --table-properties k=v,k=v} more properties of the new
 * table (write properties a table owner may set, e.g. {@code write.parquet.dict-size-bytes}). The
 * same arguments give the same rows.
 *
 * <p>Deletes only, on a table written before: {@code --delete-checkpoints M} adds M checkpoints
 * after the {@code --commits} ones in which the writer only deletes live keys ({@code
 * --deletes-per-checkpoint}, default 1,000), so they add equality-delete files and no data file;
 * with {@code --write-from K} checkpoints before K are replayed in memory without writing and the
 * table is loaded instead of created. Run once with {@code --delete-checkpoints 0}, compact, then
 * again with {@code --write-from <commits>} to get segments hit by equality deletes alone: minor
 * optimizing's convert-only work ({@code bench/run-minor.sh}).
 *
 * <p>Prints one JSON line on stdout: live keys, data and delete files, and the time taken.
 */
public final class GenerateShapedTable {
  private static final int WIDE_STRINGS = 8;
  private static final char[] ALPHABET =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".toCharArray();
  private static final String[] STATUSES = {"new", "paid", "shipped", "returned", "cancelled"};

  private final boolean wide;
  private final String partition;
  private final int partitions;
  private final boolean upsert;
  private final long seed;
  private final long startMillis = 1_764_547_200_000L; // 2025-12-01T00:00:00Z
  private final int writeFrom;
  private boolean writing;

  private GenerateShapedTable(BenchArgs a) {
    this.wide =
        switch (a.get("width", "narrow")) {
          case "narrow" -> false;
          case "wide" -> true;
          default -> throw new IllegalArgumentException("--width must be narrow or wide");
        };
    this.partition = a.get("partition", "identity");
    if (!Set.of("identity", "bucket", "none").contains(partition)) {
      throw new IllegalArgumentException("--partition must be identity, bucket or none");
    }
    this.partitions = (int) a.getLong("partitions", 8);
    this.upsert =
        switch (a.get("writer", "cdc")) {
          case "cdc" -> false;
          case "upsert" -> true;
          default -> throw new IllegalArgumentException("--writer must be cdc or upsert");
        };
    this.seed = a.getLong("seed", 20261204);
    this.writeFrom = (int) a.getLong("write-from", 0);
  }

  /** Format v2, the codec, and each {@code k=v} of {@code --table-properties}. */
  private static Map<String, String> tableProperties(BenchArgs a) {
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put(TableProperties.FORMAT_VERSION, "2");
    properties.put(TableProperties.PARQUET_COMPRESSION, a.get("codec", "zstd"));
    String more = a.get("table-properties", "");
    for (String pair : more.split(",")) {
      if (pair.isBlank()) {
        continue;
      }
      int eq = pair.indexOf('=');
      if (eq <= 0 || eq == pair.length() - 1) {
        throw new IllegalArgumentException(
            "--table-properties takes key=value pairs separated by commas, got '" + pair + "'");
      }
      properties.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
    }
    return properties;
  }

  public static void main(String[] args) throws Exception {
    BenchArgs a = new BenchArgs(args);
    GenerateShapedTable shape = new GenerateShapedTable(a);
    Path catalogFile = Path.of(a.get("catalog-file"));
    Files.createDirectories(catalogFile.toAbsolutePath().getParent());
    Catalog catalog =
        CatalogUtil.buildIcebergCatalog(
            "bench",
            new CatalogSettings(
                    "bench",
                    "jdbc",
                    "jdbc:sqlite:" + catalogFile,
                    a.get("warehouse"),
                    Map.of("jdbc.schema-version", "V1", "io-impl", "io.firn.core.io.LocalFileIO"))
                .icebergProperties(),
            new Configuration());
    TableIdentifier id = TableIdentifier.parse(a.get("table"));
    if (catalog instanceof SupportsNamespaces ns && !ns.namespaceExists(id.namespace())) {
      ns.createNamespace(id.namespace());
    }
    Schema schema = shape.schema();
    Table table =
        shape.writeFrom > 0
            ? catalog.loadTable(id)
            : catalog
                .buildTable(id, schema)
                .withPartitionSpec(shape.spec(schema))
                .withProperties(tableProperties(a))
                .create();
    long started = System.nanoTime();
    Map<String, Object> summary =
        shape.write(
            table,
            a.getLong("rows", 500_000),
            (int) a.getLong("commits", 100),
            a.getDouble("update-ratio", 0.05),
            a.getDouble("delete-ratio", 0.01),
            a.getDouble("rewrite-ratio", 0.02),
            (int) a.getLong("subtasks", 2),
            (int) a.getLong("delete-checkpoints", 0),
            a.getLong("deletes-per-checkpoint", 1_000));
    summary.put("seconds", (System.nanoTime() - started) / 1e9);
    table.refresh();
    Map<String, String> s = table.currentSnapshot().summary();
    summary.put("dataFiles", Long.parseLong(s.get("total-data-files")));
    summary.put("deleteFiles", Long.parseLong(s.get("total-delete-files")));
    summary.put("equalityDeletes", Long.parseLong(s.get("total-equality-deletes")));
    summary.put("positionDeletes", Long.parseLong(s.get("total-position-deletes")));
    summary.put("bytes", Long.parseLong(s.get("total-files-size")));
    StringBuilder json = new StringBuilder("{");
    summary.forEach(
        (k, v) ->
            json.append(json.length() > 1 ? ", " : "")
                .append('"')
                .append(k)
                .append("\": ")
                .append(v instanceof String ? "\"" + v + "\"" : v));
    System.out.println(json.append('}'));
  }

  Schema schema() {
    List<Types.NestedField> fields = new ArrayList<>();
    fields.add(Types.NestedField.required(1, "id", Types.LongType.get()));
    fields.add(Types.NestedField.required(2, "region", Types.StringType.get()));
    fields.add(Types.NestedField.optional(3, "amount", Types.DoubleType.get()));
    fields.add(Types.NestedField.optional(4, "qty", Types.IntegerType.get()));
    fields.add(Types.NestedField.optional(5, "status", Types.StringType.get()));
    fields.add(Types.NestedField.optional(6, "updated_at", Types.TimestampType.withZone()));
    if (wide) {
      for (int i = 0; i < WIDE_STRINGS; i++) {
        fields.add(Types.NestedField.optional(7 + i, "text_" + i, Types.StringType.get()));
      }
    }
    return new Schema(fields, Set.of(1));
  }

  PartitionSpec spec(Schema schema) {
    return switch (partition) {
      case "identity" -> PartitionSpec.builderFor(schema).identity("region").build();
      case "bucket" -> PartitionSpec.builderFor(schema).bucket("id", partitions).build();
      default -> PartitionSpec.unpartitioned();
    };
  }

  /** A key's region: stable for the key, so updates stay in their partition. */
  private String region(long key) {
    return "region-" + String.format(Locale.ROOT, "%03d", Math.floorMod(mix(key), partitions));
  }

  private RowData row(RowKind kind, long key, int version, long commit) {
    SplittableRandom r = new SplittableRandom(mix(seed ^ key * 31 + version));
    GenericRowData row = new GenericRowData(wide ? 6 + WIDE_STRINGS : 6);
    row.setRowKind(kind);
    row.setField(0, key);
    row.setField(1, StringData.fromString(region(key)));
    row.setField(2, Math.round(r.nextDouble() * 1_000_000) / 100.0);
    row.setField(3, r.nextInt(1, 100));
    row.setField(4, StringData.fromString(STATUSES[r.nextInt(STATUSES.length)]));
    row.setField(5, TimestampData.fromEpochMillis(startMillis + commit * 1000 + r.nextInt(1000)));
    if (wide) {
      for (int i = 0; i < WIDE_STRINGS; i++) {
        char[] text = new char[80 + r.nextInt(41)];
        for (int c = 0; c < text.length; c++) {
          text[c] = ALPHABET[r.nextInt(ALPHABET.length)];
        }
        row.setField(6 + i, StringData.fromString(new String(text)));
      }
    }
    return row;
  }

  private Map<String, Object> write(
      Table table,
      long rows,
      int commits,
      double updateRatio,
      double deleteRatio,
      double rewriteRatio,
      int subtasks,
      int deleteCheckpoints,
      long deletesPerCheckpoint)
      throws IOException {
    if (rows > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("--rows must fit an int");
    }
    int[] versions = new int[(int) rows]; // 0: not written yet, -1: deleted, else current version
    long live = 0;
    long nextKey = 0;
    SplittableRandom random = new SplittableRandom(seed);
    RowType rowType = FlinkSchemaUtil.convert(table.schema());
    RowDataTaskWriterFactory factory =
        new RowDataTaskWriterFactory(
            table,
            rowType,
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT,
            FileFormat.PARQUET,
            table.properties(),
            List.of(1),
            upsert);
    long updates = 0;
    long deletes = 0;
    long rewrites = 0;
    long checkpointsWritten = 0;
    for (int commit = 0; commit < commits + deleteCheckpoints; commit++) {
      writing = commit >= writeFrom;
      List<TaskWriter<RowData>> writers = new ArrayList<>();
      for (int s = 0; writing && s < subtasks; s++) {
        factory.initialize(s, commit);
        writers.add(factory.create());
      }
      if (commit >= commits) {
        // A checkpoint of deletes only: live keys, picked at random among all written.
        for (long d = deletesPerCheckpoint; d > 0 && nextKey > 0; d--) {
          long key = random.nextLong(nextKey);
          if (versions[(int) key] <= 0) {
            continue;
          }
          emit(writers, subtasks, RowKind.DELETE, key, versions[(int) key], commit);
          versions[(int) key] = -1;
          live--;
          deletes++;
        }
        checkpointsWritten += commit(table, writers);
        continue;
      }
      long newKeys = rows / commits + (commit < rows % commits ? 1 : 0);
      Map<Long, Integer> touched = new HashMap<>();
      for (long n = 0; n < newKeys; n++) {
        long key = nextKey++;
        versions[(int) key] = 1;
        live++;
        touched.put(key, 1);
        emit(writers, subtasks, RowKind.INSERT, key, 1, commit);
      }
      long existing = nextKey - newKeys;
      for (long u = Math.round(newKeys * updateRatio); u > 0 && existing > 0; u--) {
        long key = random.nextLong(existing);
        if (versions[(int) key] <= 0 || touched.containsKey(key)) {
          continue;
        }
        change(writers, subtasks, key, versions, commit);
        touched.put(key, versions[(int) key]);
        updates++;
      }
      for (long d = Math.round(newKeys * deleteRatio); d > 0 && existing > 0; d--) {
        long key = random.nextLong(existing);
        if (versions[(int) key] <= 0 || touched.containsKey(key)) {
          continue;
        }
        emit(writers, subtasks, RowKind.DELETE, key, versions[(int) key], commit);
        versions[(int) key] = -1;
        live--;
        deletes++;
      }
      // Keys written earlier in this checkpoint, written again: the writer's position deletes.
      List<Long> sameCheckpoint = new ArrayList<>(touched.keySet());
      sameCheckpoint.sort(null);
      for (long w = Math.round(newKeys * rewriteRatio); w > 0 && !sameCheckpoint.isEmpty(); w--) {
        long key = sameCheckpoint.get(random.nextInt(sameCheckpoint.size()));
        if (versions[(int) key] <= 0) {
          continue;
        }
        change(writers, subtasks, key, versions, commit);
        rewrites++;
      }
      checkpointsWritten += commit(table, writers);
      if (writing && (commit + 1) % Math.max(1, commits / 10) == 0) {
        System.err.printf(
            Locale.ROOT, "[generate] %s: %d/%d checkpoints%n", table.name(), commit + 1, commits);
      }
    }
    Map<String, Object> out = new java.util.LinkedHashMap<>();
    out.put("table", table.name());
    out.put("liveKeys", live);
    out.put("updates", updates);
    out.put("deletes", deletes);
    out.put("rewrites", rewrites);
    out.put("checkpointsWritten", checkpointsWritten);
    return out;
  }

  /** One checkpoint's commit, as Iceberg's Flink committer makes it; 0 when nothing was written. */
  private int commit(Table table, List<TaskWriter<RowData>> writers) throws IOException {
    if (writers.isEmpty()) {
      return 0;
    }
    RowDelta delta = table.newRowDelta();
    for (TaskWriter<RowData> writer : writers) {
      WriteResult result = writer.complete();
      for (DataFile f : result.dataFiles()) {
        if (f.recordCount() > 0) {
          delta.addRows(f);
        }
      }
      for (DeleteFile f : result.deleteFiles()) {
        if (f.recordCount() > 0) {
          delta.addDeletes(f);
        }
      }
    }
    delta.commit();
    return 1;
  }

  /** An update of a live key: update-before/after for a changelog, one upsert row otherwise. */
  private void change(
      List<TaskWriter<RowData>> writers, int subtasks, long key, int[] versions, long commit)
      throws IOException {
    int version = versions[(int) key];
    if (!upsert) {
      emit(writers, subtasks, RowKind.UPDATE_BEFORE, key, version, commit);
    }
    versions[(int) key] = version + 1;
    emit(writers, subtasks, RowKind.UPDATE_AFTER, key, version + 1, commit);
  }

  private void emit(
      List<TaskWriter<RowData>> writers,
      int subtasks,
      RowKind kind,
      long key,
      int version,
      long commit) {
    if (!writing) {
      return; // replaying a checkpoint written by an earlier run
    }
    try {
      writers
          .get(Math.floorMod(mix(key * 0x9E3779B97F4A7C15L), subtasks))
          .write(row(kind, key, version, commit));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
    z = (z ^ (z >>> 33)) * 0xc4ceb53a5ed558cdL;
    return z ^ (z >>> 33);
  }
}
