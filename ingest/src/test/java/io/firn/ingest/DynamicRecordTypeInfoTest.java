package io.firn.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.types.RowKind;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.sink.dynamic.DynamicRecord;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class DynamicRecordTypeInfoTest {
  private static final Schema SCHEMA =
      new Schema(
          java.util.List.of(
              Types.NestedField.required(1, "id", Types.LongType.get()),
              Types.NestedField.optional(2, "region", Types.StringType.get()),
              Types.NestedField.optional(3, "amount", Types.DoubleType.get())),
          Set.of(1));

  @Test
  void aRecordSurvivesSerializationWithItsSchemaSpecRowKindAndUpsertSettings() throws Exception {
    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).identity("region").build();
    GenericRowData row =
        GenericRowData.ofKind(RowKind.DELETE, 7L, StringData.fromString("eu"), null);
    DynamicRecord record =
        new DynamicRecord(
            TableIdentifier.of("events", "orders"),
            "main",
            SCHEMA,
            row,
            spec,
            DistributionMode.HASH,
            3);
    record.setUpsertMode(true);
    record.setEqualityFields(Set.of("id"));

    TypeSerializer<DynamicRecord> serializer =
        new DynamicRecordTypeInfo().createSerializer(new SerializerConfigImpl());
    DataOutputSerializer out = new DataOutputSerializer(256);
    serializer.serialize(record, out);
    serializer.serialize(record, out);
    DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
    DynamicRecord first = serializer.deserialize(in);
    DynamicRecord second = serializer.duplicate().deserialize(in);

    for (DynamicRecord copy : java.util.List.of(first, second, serializer.copy(record))) {
      assertThat(copy.tableIdentifier()).isEqualTo(TableIdentifier.of("events", "orders"));
      assertThat(copy.branch()).isEqualTo("main");
      assertThat(copy.schema().sameSchema(SCHEMA)).isTrue();
      assertThat(copy.schema().identifierFieldNames()).containsExactly("id");
      assertThat(copy.spec().fields()).hasSize(1);
      assertThat(copy.spec().fields().get(0).name()).isEqualTo("region");
      assertThat(copy.distributionMode()).isEqualTo(DistributionMode.HASH);
      assertThat(copy.writeParallelism()).isEqualTo(3);
      assertThat(copy.upsertMode()).isTrue();
      assertThat(copy.equalityFields()).containsExactly("id");
      assertThat(copy.rowData().getRowKind()).isEqualTo(RowKind.DELETE);
      assertThat(copy.rowData().getLong(0)).isEqualTo(7L);
      assertThat(copy.rowData().getString(1).toString()).isEqualTo("eu");
      assertThat(copy.rowData().isNullAt(2)).isTrue();
    }
    assertThat(in.available()).as("both records read completely").isZero();
  }
}
