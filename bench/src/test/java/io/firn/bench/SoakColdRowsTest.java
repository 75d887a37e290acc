/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The soak's cold body: the same rows in both tables, keys the stream never uses. */
class SoakColdRowsTest {
  private static final Schema SCHEMA =
      new Schema(
          List.of(
              Types.NestedField.required(1, "id", Types.LongType.get()),
              Types.NestedField.optional(2, "status", Types.StringType.get()),
              Types.NestedField.optional(3, "amount", Types.DecimalType.of(10, 2)),
              Types.NestedField.optional(4, "event_time", Types.TimestampType.withZone())),
          Set.of(1));

  @TempDir Path dir;

  @Test
  void bothTablesGetTheSameRowsWithNegativeKeysAndNoValueInLaterColumns() throws IOException {
    Table one = table("one");
    Table two = table("two");
    // A column the stream added to one table only before the cold rows came.
    two.updateSchema().addColumn("coupon_code", Types.StringType.get()).commit();

    assertThat(SoakColdRows.append(one, 1_000, 7)).isEqualTo(1);
    assertThat(SoakColdRows.append(two, 1_000, 7)).isEqualTo(1);

    List<Record> first = rows(one);
    List<Record> second = rows(two);
    assertThat(first).hasSize(1_000);
    assertThat(first).extracting(r -> (Long) r.getField("id")).allMatch(id -> id < 0);
    assertThat(first.stream().map(r -> r.getField("id")).distinct().count()).isEqualTo(1_000);
    for (int i = 0; i < first.size(); i++) {
      Record a = first.get(i);
      Record b = second.get(i);
      assertThat(b.getField("id")).isEqualTo(a.getField("id"));
      assertThat(b.getField("status")).isEqualTo(a.getField("status")).isNotNull();
      assertThat(b.getField("amount"))
          .isEqualTo(a.getField("amount"))
          .isInstanceOf(BigDecimal.class);
      assertThat(b.getField("event_time"))
          .isEqualTo(a.getField("event_time"))
          .isInstanceOf(OffsetDateTime.class);
      assertThat(b.getField("coupon_code")).isNull();
    }
    assertThat(one.currentSnapshot().summary()).containsEntry("firn-bench.cold-rows", "1000");
  }

  private Table table(String name) {
    return new HadoopTables(new Configuration())
        .create(SCHEMA, PartitionSpec.unpartitioned(), dir.resolve(name).toString());
  }

  private static List<Record> rows(Table table) throws IOException {
    List<Record> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      records.forEach(r -> rows.add(r.copy()));
    }
    rows.sort((a, b) -> Long.compare((Long) b.getField("id"), (Long) a.getField("id")));
    return rows;
  }
}
