/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Random;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.SnapshotUtil;
import org.junit.jupiter.api.Test;

/** The router's record of a table's keys (ADR 0008 §14): filter, held keys, state, history. */
class NewKeysTest {
  private static final int[] FIRST = {0};

  @Test
  void theFilterNeverForgetsAKeyAndRarelyInventsOneAcrossItsGrowthAndAStateRoundTrip() {
    NewKeys keys = NewKeys.created("db.t");
    NewKeys.KeyHash hash = new NewKeys.KeyHash();
    Random random = new Random(7);
    int added = 2_500_000; // three segments: 1 Mi, 2 Mi
    long[] sample = new long[10_000];
    for (int i = 0; i < added; i++) {
      long key = random.nextLong();
      if (i < sample.length) {
        sample[i] = key;
      }
      assertThat(keys.see(hash.of(GenericRowData.of(key), FIRST))).isTrue();
    }
    NewKeys restored = NewKeys.fromBytes(keys.toBytes());
    for (long key : sample) {
      assertThat(restored.maySee(hash.of(GenericRowData.of(key), FIRST))).isTrue();
    }
    int falsePositives = 0;
    for (int i = 0; i < 100_000; i++) {
      if (restored.maySee(hash.of(GenericRowData.of(random.nextLong()), FIRST))) {
        falsePositives++;
      }
    }
    // About 1 % per segment, two segments.
    assertThat(falsePositives).isLessThan(3_000);
    assertThat(restored.keys()).isBetween(added - 30_000L, (long) added);
  }

  @Test
  void keysHashByTheirTextSoThatAWidenedColumnKeepsThem() {
    NewKeys.KeyHash hash = new NewKeys.KeyHash();
    NewKeys keys = NewKeys.created("db.t");
    keys.see(hash.of(GenericRowData.of(5), FIRST));
    assertThat(keys.maySee(hash.of(GenericRowData.of(5L), FIRST))).isTrue();
    keys.see(
        hash.of(
            GenericRowData.of(DecimalData.fromBigDecimal(new java.math.BigDecimal("12.50"), 5, 2)),
            FIRST));
    assertThat(
            keys.maySee(
                hash.of(
                    GenericRowData.of(
                        DecimalData.fromBigDecimal(new java.math.BigDecimal("12.50"), 9, 2)),
                    FIRST)))
        .isTrue();
    // Fields are delimited: ("ab", "c") is not ("a", "bc").
    int[] both = {0, 1};
    NewKeys.KeyHash left = new NewKeys.KeyHash().of(row("ab", "c"), both);
    NewKeys.KeyHash right = new NewKeys.KeyHash().of(row("a", "bc"), both);
    assertThat(left.h1 == right.h1 && left.h2 == right.h2).isFalse();
  }

  @Test
  void heldKeysAreExactAndEndAtTheBarrier() {
    NewKeys keys = NewKeys.created("db.t");
    Schema one = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
    NewKeys.KeyHash hash = new NewKeys.KeyHash();
    for (long key = 0; key < 50_000; key++) {
      keys.hold(hash.of(GenericRowData.of(key), FIRST), one);
    }
    keys.release(hash.of(GenericRowData.of(7L), FIRST));
    assertThat(keys.held(hash.of(GenericRowData.of(7L), FIRST))).isSameAs(NewKeys.NO_ROW);
    assertThat(keys.held(hash.of(GenericRowData.of(8L), FIRST))).isSameAs(one);
    assertThat(keys.held(hash.of(GenericRowData.of(50_000L), FIRST))).isNull();
    assertThat(keys.heldCount()).isEqualTo(50_000);
    keys.barrier();
    assertThat(keys.heldCount()).isZero();
    assertThat(keys.held(hash.of(GenericRowData.of(8L), FIRST))).isNull();
  }

  @Test
  void onlyAnotherWritersRowsInTheHistoryRetireATable() {
    InMemoryCatalog catalog = new InMemoryCatalog();
    catalog.initialize("test", Map.of());
    catalog.createNamespace(Namespace.of("db"));
    Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
    Table table =
        catalog.createTable(TableIdentifier.of("db", "t"), schema, PartitionSpec.unpartitioned());
    NewKeys keys = NewKeys.created("db.t");
    assertThat(keys.foreign(SnapshotUtil.currentAncestors(table))).isNull();

    table.newAppend().appendFile(file("a")).set(NewKeys.WRITER_PROPERTY, "firn-ingest").commit();
    // Firn's optimizer: a rewrite, and a row delta that names its process.
    table.newRewrite().deleteFile(file("a")).addFile(file("b")).commit();
    table.newRowDelta().addRows(file("c")).set("firn.process-id", "p1").commit();
    table.newDelete().deleteFile(file("c")).commit();
    assertThat(keys.foreign(SnapshotUtil.currentAncestors(table))).isNull();

    // The dead-letter replay, or any other writer: rows the job does not know.
    table.newAppend().appendFile(file("d")).set(DeadLetterReplay.REPLAY_PROPERTY, "r1").commit();
    Snapshot foreign = table.currentSnapshot();
    table.newAppend().appendFile(file("e")).set(NewKeys.WRITER_PROPERTY, "firn-ingest").commit();
    assertThat(keys.foreign(SnapshotUtil.currentAncestors(table)).snapshotId())
        .isEqualTo(foreign.snapshotId());

    // What was checked once is not checked again; the state keeps the mark.
    NewKeys checked = NewKeys.created("db.t");
    table.newAppend().appendFile(file("f")).set(NewKeys.WRITER_PROPERTY, "firn-ingest").commit();
    Table clean =
        catalog.createTable(TableIdentifier.of("db", "u"), schema, PartitionSpec.unpartitioned());
    clean.newAppend().appendFile(file("g")).set(NewKeys.WRITER_PROPERTY, "firn-ingest").commit();
    assertThat(checked.foreign(SnapshotUtil.currentAncestors(clean))).isNull();
    NewKeys restored = NewKeys.fromBytes(checked.toBytes());
    clean.newAppend().appendFile(file("h")).set(NewKeys.WRITER_PROPERTY, "firn-ingest").commit();
    assertThat(restored.foreign(SnapshotUtil.currentAncestors(clean))).isNull();
    clean.newAppend().appendFile(file("i")).commit();
    assertThat(restored.foreign(SnapshotUtil.currentAncestors(clean))).isNotNull();
  }

  private static GenericRowData row(String left, String right) {
    return GenericRowData.of(StringData.fromString(left), StringData.fromString(right));
  }

  private static DataFile file(String name) {
    return DataFiles.builder(PartitionSpec.unpartitioned())
        .withPath("/tmp/" + name + ".parquet")
        .withFileSizeInBytes(10)
        .withRecordCount(1)
        .build();
  }
}
