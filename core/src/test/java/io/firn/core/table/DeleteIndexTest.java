/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.table;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionData;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The scanner pairs every data file with exactly the delete files Iceberg's own scan planning pairs
 * it with, and calls dangling exactly the live deletes Iceberg pairs with no data file: on random
 * metadata-only tables (no file is ever read) with three partition specs in use at once (identity,
 * bucket, unpartitioned), equality deletes with and without statistics, nulls and overlapping or
 * disjoint key ranges, partition- and file-scoped position deletes, removed files and merged
 * manifests, read at every snapshot with and without a row filter.
 */
class DeleteIndexTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "name", Types.StringType.get()),
          Types.NestedField.optional(3, "cat", Types.StringType.get()),
          Types.NestedField.optional(4, "n", Types.IntegerType.get()));
  private static final String[] CATS = {"a", "b", "c"};

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
  void pairsAsIcebergPlansOnRandomTables(long seed) {
    Random random = new Random(new SplittableRandom(seed).nextLong());
    Table table = newTable(seed, random.nextBoolean());
    History history = new History(table, random);
    for (int step = 0; step < 40; step++) {
      history.step();
    }
    int compared = 0;
    for (Snapshot snapshot : table.snapshots()) {
      String what = "seed " + seed + ", snapshot " + snapshot.snapshotId();
      List<Expression> filters = filters(random);
      compare(table, snapshot.snapshotId(), filters.get(0), what);
      compare(table, snapshot.snapshotId(), filters.get(1 + random.nextInt(3)), what);
      compared++;
    }
    assertThat(compared).isGreaterThan(30);
    assertThat(TableScanner.scan(table).deleteScopes())
        .as("the history pairs data and delete files")
        .isNotEmpty();
  }

  /** A delete whose keys lie outside a data file's range is not paired with it; Iceberg agrees. */
  @Test
  void keyRangesDecidePairsAsIcebergDecidesThem() {
    Table table = newTable(0, false);
    PartitionSpec spec = table.spec();
    DataFile low = dataFile(spec, "a", "low", metrics(10, 0, 100, 0L));
    DataFile high = dataFile(spec, "a", "high", metrics(10, 1000, 1100, 0L));
    table.newAppend().appendFile(low).appendFile(high).commit();
    DeleteFile deletesHigh = eqDelete(spec, "a", "eq-high", metrics(5, 1050, 1060, 0L));
    table.newRowDelta().addDeletes(deletesHigh).commit();

    TableFiles files = TableScanner.scan(table);
    Map<String, List<String>> pairs = new TreeMap<>();
    for (PartitionFiles partition : files.partitions().values()) {
      for (DataFileEntry entry : partition.dataFiles()) {
        pairs.put(entry.path(), entry.deletes().stream().map(DeleteFile::location).toList());
      }
    }
    assertThat(pairs)
        .containsEntry("/d/low", List.of())
        .containsEntry("/d/high", List.of("/x/eq-high"));
    compare(table, table.currentSnapshot().snapshotId(), Expressions.alwaysTrue(), "ranges");
  }

  /**
   * Hundreds of equality deletes in one partition, most on the long key with ranges from a single
   * key to the whole key space, some on another key or with no bounds: the pairs the key ranges
   * decide (a segment tree over the deletes, {@code DeleteIndex.KeyRanges}) are Iceberg's, at the
   * end and halfway.
   */
  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3, 4, 5, 6})
  void manyDeletesOfOnePartitionPairAsIcebergPairsThem(long seed) {
    Random random = new Random(new SplittableRandom(seed).nextLong());
    Table table = newTable(seed, random.nextBoolean());
    PartitionSpec spec = table.spec();
    History history = new History(table, random);
    int files = 0;
    long halfway = -1;
    for (int round = 0; round < 30; round++) {
      var append = table.newAppend().scanManifestsWith(CallerRuns.INSTANCE);
      for (int i = 0, n = 1 + random.nextInt(8); i < n; i++) {
        append.appendFile(dataFile(spec, "a", "data-" + files++, history.randomMetrics()));
      }
      append.commit();
      RowDelta delta = table.newRowDelta().scanManifestsWith(CallerRuns.INSTANCE);
      for (int i = 0, n = 1 + random.nextInt(30); i < n; i++) {
        int kind = random.nextInt(10);
        int[] ids = kind == 0 ? new int[] {4} : kind == 1 ? new int[] {1, 2} : new int[] {1};
        delta.addDeletes(eqDelete(spec, "a", "eq-" + files++, ids, history.randomMetrics()));
      }
      delta.commit();
      if (round == 15) {
        halfway = table.currentSnapshot().snapshotId();
      }
    }
    compare(table, halfway, Expressions.alwaysTrue(), "seed " + seed + ", halfway");
    compare(table, table.currentSnapshot().snapshotId(), Expressions.alwaysTrue(), "seed " + seed);
  }

  /**
   * Reading some partitions of an identity-partitioned string column while a file of the null
   * partition is in the same manifest: Iceberg's evaluator throws on {@code in} over a null string,
   * so the scanner's filter must not ask it.
   */
  @Test
  void readingSomePartitionsBesideANullPartition() {
    Table table = newTable(0, false);
    PartitionSpec spec = table.spec();
    table
        .newAppend()
        .appendFile(dataFile(spec, "a", "in-a", metrics(10, 0, 100, 0L)))
        .appendFile(dataFile(spec, "b", "in-b", metrics(10, 0, 100, 0L)))
        .appendFile(dataFile(spec, null, "in-null", metrics(10, 0, 100, 0L)))
        .commit();
    long snapshot = table.currentSnapshot().snapshotId();
    TableFiles all = TableScanner.scan(table);
    Map<PartitionKey, org.apache.iceberg.StructLike> one = new java.util.LinkedHashMap<>();
    Map<PartitionKey, org.apache.iceberg.StructLike> two = new java.util.LinkedHashMap<>();
    for (PartitionFiles partition : all.partitions().values()) {
      String cat = partition.partition().get(0, String.class);
      if ("a".equals(cat)) {
        one.put(partition.key(), partition.partition());
      }
      if (cat != null) {
        two.put(partition.key(), partition.partition());
      }
    }
    assertThat(TableScanner.scan(table, snapshot, one).partitions().keySet())
        .isEqualTo(one.keySet());
    assertThat(TableScanner.scan(table, snapshot, two).partitions().keySet())
        .isEqualTo(two.keySet());
  }

  private static List<Expression> filters(Random random) {
    return List.of(
        Expressions.alwaysTrue(),
        // Iceberg's evaluator fails on `in` over a null string partition: guarded, as the scanner's
        // own partition filters are.
        Expressions.and(
            Expressions.notNull("cat"),
            Expressions.in("cat", CATS[random.nextInt(CATS.length)], "z")),
        Expressions.equal("id", (long) random.nextInt(2000)),
        Expressions.equal(Expressions.bucket("id", 4), random.nextInt(4)));
  }

  private static void compare(Table table, long snapshotId, Expression filter, String what) {
    Map<String, TreeSet<String>> expected = new TreeMap<>();
    java.util.Set<PartitionKey> dataPartitions = new java.util.HashSet<>();
    try (CloseableIterable<FileScanTask> tasks =
        table
            .newScan()
            .useSnapshot(snapshotId)
            .filter(filter)
            .planWith(CallerRuns.INSTANCE)
            .planFiles()) {
      for (FileScanTask task : tasks) {
        TreeSet<String> deletes = new TreeSet<>();
        task.deletes().forEach(d -> deletes.add(d.location()));
        expected.put(task.file().location(), deletes);
        dataPartitions.add(PartitionKey.of(table.specs().get(task.file().specId()), task.file()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    TableFiles files =
        TableScanner.scan(
            table, snapshotId, key -> true, filter, TableScanner.Completeness.IF_ALL_KEPT);
    Map<String, TreeSet<String>> actual = new TreeMap<>();
    TreeSet<String> dangling = new TreeSet<>();
    for (PartitionFiles partition : files.partitions().values()) {
      for (DataFileEntry entry : partition.dataFiles()) {
        TreeSet<String> deletes = new TreeSet<>();
        entry.deletes().forEach(d -> deletes.add(d.location()));
        actual.put(entry.path(), deletes);
      }
      partition.danglingDeletes().forEach(d -> dangling.add(d.location()));
    }
    files.globalDanglingDeletes().forEach(d -> dangling.add(d.location()));
    assertThat(actual).as("pairs at %s, filter %s", what, filter).isEqualTo(expected);

    if (filter.equals(Expressions.alwaysTrue())) {
      // The scanner reports an unpaired delete as dangling where it can say so: in a partition it
      // read data files of, or of an unpartitioned spec.
      TreeSet<String> paired = new TreeSet<>();
      expected.values().forEach(paired::addAll);
      TreeSet<String> unpaired = new TreeSet<>();
      for (DeleteFile delete : liveDeletes(table, snapshotId)) {
        PartitionSpec spec = table.specs().get(delete.specId());
        if (!paired.contains(delete.location())
            && (spec.isUnpartitioned() || dataPartitions.contains(PartitionKey.of(spec, delete)))) {
          unpaired.add(delete.location());
        }
      }
      assertThat(dangling).as("dangling deletes at %s", what).isEqualTo(unpaired);
    }
  }

  private static List<DeleteFile> liveDeletes(Table table, long snapshotId) {
    List<DeleteFile> deletes = new ArrayList<>();
    for (var manifest : table.snapshot(snapshotId).deleteManifests(table.io())) {
      try (var reader =
          org.apache.iceberg.ManifestFiles.readDeleteManifest(
              manifest, table.io(), table.specs())) {
        reader.forEach(d -> deletes.add(d.copy()));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return deletes;
  }

  private static Table newTable(long seed, boolean mergeManifests) {
    InMemoryCatalog catalog = new InMemoryCatalog();
    catalog.initialize("mem-" + seed, Map.of());
    catalog.createNamespace(Namespace.of("db"));
    Table table =
        catalog.createTable(
            TableIdentifier.of("db", "t"),
            SCHEMA,
            PartitionSpec.builderFor(SCHEMA).identity("cat").build(),
            Map.of(
                TableProperties.FORMAT_VERSION,
                "2",
                TableProperties.MANIFEST_MIN_MERGE_COUNT,
                mergeManifests ? "2" : "1000"));
    table
        .updateSpec()
        .removeField("cat")
        .addField("id_bucket", Expressions.bucket("id", 4))
        .commit();
    table.updateSpec().removeField("id_bucket").commit();
    table.updateSpec().addField("cat").commit(); // back to identity(cat): spec 0 again
    return table;
  }

  /** Random commits of metadata-only files. */
  private static final class History {
    private final Table table;
    private final Random random;
    private final List<PartitionSpec> specs;
    private final List<DataFile> live = new ArrayList<>();
    private final List<DeleteFile> liveDeletes = new ArrayList<>();
    private int files;

    History(Table table, Random random) {
      this.table = table;
      this.random = random;
      this.specs = new ArrayList<>(table.specs().values());
      assertThat(specs.stream().filter(PartitionSpec::isUnpartitioned).count()).isEqualTo(1);
      assertThat(specs.stream().filter(s -> !s.isUnpartitioned()).count()).isGreaterThan(1);
    }

    void step() {
      int op = random.nextInt(10);
      if (op < 3 || live.isEmpty()) {
        var append = table.newAppend().scanManifestsWith(CallerRuns.INSTANCE);
        for (int i = 0, n = 1 + random.nextInt(3); i < n; i++) {
          DataFile file = randomDataFile();
          append.appendFile(file);
          live.add(file);
        }
        append.commit();
      } else if (op < 8) {
        RowDelta delta = table.newRowDelta().scanManifestsWith(CallerRuns.INSTANCE);
        for (int i = 0, n = 1 + random.nextInt(3); i < n; i++) {
          DeleteFile delete = random.nextInt(3) == 0 ? randomPositionDelete() : randomEqDelete();
          delta.addDeletes(delete);
          liveDeletes.add(delete);
        }
        if (random.nextBoolean()) {
          DataFile file = randomDataFile();
          delta.addRows(file);
          live.add(file);
        }
        delta.commit();
      } else if (op == 8) {
        DataFile gone = live.remove(random.nextInt(live.size()));
        table.newDelete().scanManifestsWith(CallerRuns.INSTANCE).deleteFile(gone).commit();
      } else if (!liveDeletes.isEmpty()) {
        DeleteFile gone = liveDeletes.remove(random.nextInt(liveDeletes.size()));
        table.newRowDelta().scanManifestsWith(CallerRuns.INSTANCE).removeDeletes(gone).commit();
      }
    }

    private PartitionSpec randomSpec() {
      return specs.get(random.nextInt(specs.size()));
    }

    private PartitionData partition(PartitionSpec spec) {
      PartitionData data = new PartitionData(spec.partitionType());
      if (spec.isUnpartitioned()) {
        return data;
      }
      String transform = spec.fields().get(0).transform().toString();
      if (transform.startsWith("bucket")) {
        data.set(0, random.nextInt(4));
      } else {
        data.set(0, random.nextInt(5) == 0 ? null : CATS[random.nextInt(CATS.length)]);
      }
      return data;
    }

    private DataFile randomDataFile() {
      PartitionSpec spec = randomSpec();
      return DataFiles.builder(spec)
          .withPath("/d/data-" + files++ + ".parquet")
          .withFormat(FileFormat.PARQUET)
          .withPartition(partition(spec))
          .withFileSizeInBytes(1000)
          .withMetrics(randomMetrics())
          .build();
    }

    private DeleteFile randomEqDelete() {
      // Global equality deletes are made rarer than the others: they pair with everything.
      PartitionSpec spec = random.nextInt(4) == 0 ? randomSpec() : specs.get(0);
      int[] ids =
          random.nextInt(4) == 0 ? new int[] {1, 2} : new int[] {random.nextBoolean() ? 1 : 4};
      return FileMetadata.deleteFileBuilder(spec)
          .ofEqualityDeletes(ids)
          .withPath("/x/eq-" + files++ + ".parquet")
          .withFormat(FileFormat.PARQUET)
          .withPartition(partition(spec))
          .withFileSizeInBytes(100)
          .withMetrics(randomMetrics())
          .build();
    }

    private DeleteFile randomPositionDelete() {
      PartitionSpec spec = randomSpec();
      var builder =
          FileMetadata.deleteFileBuilder(spec)
              .ofPositionDeletes()
              .withPath("/x/pos-" + files++ + ".parquet")
              .withFormat(FileFormat.PARQUET)
              .withPartition(partition(spec))
              .withFileSizeInBytes(100);
      int pathId = MetadataColumns.DELETE_FILE_PATH.fieldId();
      int kind = random.nextInt(3);
      String target = live.isEmpty() ? "/d/none" : live.get(random.nextInt(live.size())).location();
      if (kind == 0) {
        builder.withReferencedDataFile(target);
        builder.withRecordCount(3);
      } else {
        ByteBuffer lower = Conversions.toByteBuffer(Types.StringType.get(), target);
        ByteBuffer upper =
            kind == 1 ? lower : Conversions.toByteBuffer(Types.StringType.get(), target + "~");
        Map<Integer, ByteBuffer> lowers = new HashMap<>(Map.of(pathId, lower));
        Map<Integer, ByteBuffer> uppers = new HashMap<>(Map.of(pathId, upper));
        builder.withMetrics(new Metrics(3L, null, null, null, null, lowers, uppers));
      }
      return builder.build();
    }

    private Metrics randomMetrics() {
      long records = 1 + random.nextInt(50);
      if (random.nextInt(8) == 0) {
        return new Metrics(records, null, null, null, null);
      }
      Map<Integer, Long> values = new HashMap<>();
      Map<Integer, Long> nulls = new HashMap<>();
      Map<Integer, ByteBuffer> lowers = new HashMap<>();
      Map<Integer, ByteBuffer> uppers = new HashMap<>();
      long idLow = random.nextInt(2000);
      long idHigh = idLow + random.nextInt(random.nextBoolean() ? 20 : 800);
      lowers.put(1, Conversions.toByteBuffer(Types.LongType.get(), idLow));
      uppers.put(1, Conversions.toByteBuffer(Types.LongType.get(), idHigh));
      values.put(1, records);
      nulls.put(1, 0L);
      for (int id : new int[] {2, 4}) {
        int nullKind = random.nextInt(4); // 0 none, 1 some, 2 all, 3 unknown
        if (nullKind != 3) {
          values.put(id, records);
          nulls.put(id, nullKind == 0 ? 0 : nullKind == 1 ? 1 : records);
        }
        if (nullKind != 2 && random.nextInt(5) != 0) {
          if (id == 2) {
            char a = (char) ('a' + random.nextInt(20));
            char b = (char) (a + random.nextInt(6));
            lowers.put(2, Conversions.toByteBuffer(Types.StringType.get(), String.valueOf(a)));
            uppers.put(2, Conversions.toByteBuffer(Types.StringType.get(), String.valueOf(b)));
          } else {
            int low = random.nextInt(100);
            lowers.put(4, Conversions.toByteBuffer(Types.IntegerType.get(), low));
            uppers.put(
                4, Conversions.toByteBuffer(Types.IntegerType.get(), low + random.nextInt(30)));
          }
        }
      }
      if (random.nextInt(6) == 0) {
        return new Metrics(records, null, values, nulls, null);
      }
      return new Metrics(records, null, values, nulls, null, lowers, uppers);
    }
  }

  private static DataFile dataFile(PartitionSpec spec, String cat, String name, Metrics metrics) {
    PartitionData partition = new PartitionData(spec.partitionType());
    partition.set(0, cat);
    return DataFiles.builder(spec)
        .withPath("/d/" + name)
        .withFormat(FileFormat.PARQUET)
        .withPartition(partition)
        .withFileSizeInBytes(1000)
        .withMetrics(metrics)
        .build();
  }

  private static DeleteFile eqDelete(PartitionSpec spec, String cat, String name, Metrics metrics) {
    return eqDelete(spec, cat, name, new int[] {1}, metrics);
  }

  private static DeleteFile eqDelete(
      PartitionSpec spec, String cat, String name, int[] fieldIds, Metrics metrics) {
    PartitionData partition = new PartitionData(spec.partitionType());
    partition.set(0, cat);
    return FileMetadata.deleteFileBuilder(spec)
        .ofEqualityDeletes(fieldIds)
        .withPath("/x/" + name)
        .withFormat(FileFormat.PARQUET)
        .withPartition(partition)
        .withFileSizeInBytes(100)
        .withMetrics(metrics)
        .build();
  }

  private static Metrics metrics(long records, long idLow, long idHigh, Long nulls) {
    return new Metrics(
        records,
        null,
        new HashMap<>(Map.of(1, records)),
        new HashMap<>(Map.of(1, nulls)),
        null,
        new HashMap<>(Map.of(1, Conversions.toByteBuffer(Types.LongType.get(), idLow))),
        new HashMap<>(Map.of(1, Conversions.toByteBuffer(Types.LongType.get(), idHigh))));
  }
}
