package io.firn.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.types.RowKind;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class DebeziumEventRouterTest {
  private static final TableIdentifier CUSTOMERS = TableIdentifier.of("events", "customers");

  private final Map<TableIdentifier, Schema> catalog = new HashMap<>();
  private final EventRouter router =
      IngestSettings.defaults("events")
          .withFormat(EventFormat.DEBEZIUM)
          .router(id -> Optional.ofNullable(catalog.get(id)));

  @Test
  void createAndSnapshotReadUpsertTheAfterImageIntoTheSourceTable() {
    for (String op : List.of("c", "r")) {
      Routing.Routed routed =
          routed(
              "{\"op\":\""
                  + op
                  + "\",\"before\":null,\"after\":{\"id\":1,\"name\":\"ann\"},"
                  + "\"source\":{\"table\":\"customers\"}}");

      assertThat(routed.table()).isEqualTo(CUSTOMERS);
      assertThat(routed.delete()).isFalse();
      assertThat(routed.keyFields()).containsExactly("id");
      assertThat(routed.schema().columns())
          .extracting(Types.NestedField::name)
          .containsExactly("id", "name");
      assertThat(routed.row().getRowKind()).isEqualTo(RowKind.INSERT);
      assertThat(routed.row().getLong(0)).isEqualTo(1L);
      assertThat(routed.row().getString(1)).isEqualTo(StringData.fromString("ann"));
    }
  }

  @Test
  void logicalTypesAnnouncedByTheEnvelopeSchemaAreDecoded() {
    // Kafka Connect's JSON converter with schemas: decimals as base64 of the unscaled value,
    // timestamps as epoch micros / millis, dates as epoch days.
    String field = "{\"field\":\"%s\",\"type\":\"%s\",\"name\":\"%s\"%s}";
    String columns =
        String.join(
            ",",
            "{\"field\":\"id\",\"type\":\"int64\"}",
            String.format(
                field,
                "price",
                "bytes",
                "org.apache.kafka.connect.data.Decimal",
                ",\"parameters\":{\"scale\":\"2\"}"),
            String.format(field, "updated", "int64", "io.debezium.time.MicroTimestamp", ""),
            String.format(field, "created", "int64", "io.debezium.time.Timestamp", ""),
            String.format(field, "born", "int32", "io.debezium.time.Date", ""),
            String.format(field, "note", "string", "io.debezium.time.ZonedTimestamp", ""));
    String event =
        "{\"schema\":{\"type\":\"struct\",\"fields\":["
            + "{\"field\":\"before\",\"type\":\"struct\",\"fields\":["
            + columns
            + "]},{\"field\":\"after\",\"type\":\"struct\",\"fields\":["
            + columns
            + "]}]},\"payload\":{\"op\":\"c\",\"before\":null,\"after\":{\"id\":1,"
            // 12345 = 0x3039 -> "MDk=" -> 123.45
            + "\"price\":\"MDk=\",\"updated\":1764411330123456,\"created\":1764411330123,"
            + "\"born\":20421,\"note\":\"2026-11-29T10:15:30Z\"},"
            + "\"source\":{\"table\":\"customers\"}}}";

    Routing.Routed routed = routed(event);

    Schema schema = routed.schema();
    assertThat(schema.findField("price").type()).isEqualTo(Types.DoubleType.get());
    assertThat(routed.row().getDouble(position(schema, "price"))).isEqualTo(123.45);
    assertThat(routed.row().getString(position(schema, "updated")).toString())
        .isEqualTo("2025-11-29T10:15:30.123456Z");
    assertThat(routed.row().getString(position(schema, "created")).toString())
        .isEqualTo("2025-11-29T10:15:30.123Z");
    assertThat(routed.row().getString(position(schema, "born")).toString())
        .isEqualTo(java.time.LocalDate.ofEpochDay(20421).toString());
    assertThat(routed.row().getString(position(schema, "note")).toString())
        .isEqualTo("2026-11-29T10:15:30Z");

    // Without the schema the same value is indistinguishable from a plain string: kept as it is.
    Routing.Routed bare =
        routed(
            "{\"op\":\"c\",\"after\":{\"id\":2,\"price\":\"MDk=\"},"
                + "\"source\":{\"table\":\"orders\"}}");
    assertThat(bare.row().getString(position(bare.schema(), "price")).toString()).isEqualTo("MDk=");
  }

  private static int position(Schema schema, String column) {
    return schema.columns().indexOf(schema.findField(column));
  }

  @Test
  void routingFieldInTheRowImageWinsOverSourceTable() {
    Routing.Routed routed =
        routed(
            "{\"op\":\"c\",\"after\":{\"id\":1,\"event_type\":\"vip_customers\"},"
                + "\"source\":{\"table\":\"customers\"}}");

    assertThat(routed.table()).isEqualTo(TableIdentifier.of("events", "vip_customers"));
  }

  @Test
  void updateThatChangesTheKeyDeletesTheOldKeyBeforeUpsertingTheNewRow() {
    List<Routing> routings =
        router.route(
            "{\"op\":\"u\",\"before\":{\"id\":1,\"name\":\"ann\"},"
                + "\"after\":{\"id\":2,\"name\":\"ann\"},\"source\":{\"table\":\"customers\"}}");

    assertThat(routings).hasSize(2).allMatch(Routing.Routed.class::isInstance);
    Routing.Routed delete = (Routing.Routed) routings.get(0);
    Routing.Routed upsert = (Routing.Routed) routings.get(1);
    assertThat(delete.delete()).isTrue();
    assertThat(delete.row().getRowKind()).isEqualTo(RowKind.DELETE);
    assertThat(delete.row().getLong(0)).isEqualTo(1L);
    assertThat(delete.row().isNullAt(1)).as("a delete carries only the key").isTrue();
    assertThat(upsert.delete()).isFalse();
    assertThat(upsert.row().getLong(0)).isEqualTo(2L);
  }

  @Test
  void updateThatKeepsTheKeyIsOneUpsertOfTheAfterImage() {
    List<Routing> routings =
        router.route(
            "{\"op\":\"u\",\"before\":{\"id\":1,\"name\":\"ann\"},"
                + "\"after\":{\"id\":1,\"name\":\"anne\"},\"source\":{\"table\":\"customers\"}}");

    assertThat(routings).hasSize(1);
    Routing.Routed upsert = (Routing.Routed) routings.get(0);
    assertThat(upsert.delete()).isFalse();
    assertThat(upsert.row().getString(1)).isEqualTo(StringData.fromString("anne"));
  }

  @Test
  void deleteIsAKeyOnlyDeleteOfTheBeforeImageAndAddsNoColumns() {
    Schema existing =
        new Schema(
            List.of(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "name", Types.StringType.get())),
            Set.of(1));
    catalog.put(CUSTOMERS, existing);

    Routing.Routed routed =
        routed(
            "{\"op\":\"d\",\"before\":{\"id\":5,\"name\":\"bo\",\"zip\":\"123\"},\"after\":null,"
                + "\"source\":{\"table\":\"customers\"}}");

    assertThat(routed.delete()).isTrue();
    assertThat(routed.schema()).isSameAs(existing);
    RowData row = routed.row();
    assertThat(row.getRowKind()).isEqualTo(RowKind.DELETE);
    assertThat(row.getLong(0)).isEqualTo(5L);
    assertThat(row.isNullAt(1)).isTrue();
  }

  @Test
  void kafkaConnectPayloadEnvelopeIsUnwrapped() {
    Routing.Routed routed =
        routed(
            "{\"schema\":{\"type\":\"struct\",\"name\":\"customers.Envelope\"},"
                + "\"payload\":{\"op\":\"c\",\"after\":{\"id\":3,\"name\":\"cy\"},"
                + "\"source\":{\"table\":\"customers\"}}}");

    assertThat(routed.table()).isEqualTo(CUSTOMERS);
    assertThat(routed.row().getLong(0)).isEqualTo(3L);
  }

  @Test
  void tombstonesRouteNowhere() {
    assertThat(router.route("null")).isEmpty();
    assertThat(router.route("{\"schema\":null,\"payload\":null}")).isEmpty();
  }

  @Test
  void malformedChangeEventsAreRejectedWithAPreciseReason() {
    String source = ",\"source\":{\"table\":\"customers\"}}";
    assertThat(rejected("{\"op\":\"x\",\"after\":{\"id\":1}" + source))
        .isEqualTo(
            new Routing.Rejected(
                DeadLetterReason.UNKNOWN_OPERATION,
                "CDC op 'x' is not supported; expected one of c, r, u, d"));
    assertThat(rejected("{\"op\":\"t\"" + source))
        .isEqualTo(
            new Routing.Rejected(
                DeadLetterReason.UNKNOWN_OPERATION,
                "CDC op 't' (truncate) is not supported; expected one of c, r, u, d"));
    assertThat(rejected("{\"after\":{\"id\":1}" + source))
        .isEqualTo(
            new Routing.Rejected(
                DeadLetterReason.UNKNOWN_OPERATION,
                "CDC field 'op' is absent; expected one of c, r, u, d"));
    assertThat(rejected("{\"op\":\"c\"" + source))
        .isEqualTo(
            new Routing.Rejected(
                DeadLetterReason.MISSING_ROW_IMAGE,
                "CDC op 'c' needs 'after' to be a JSON object, got absent"));
    assertThat(rejected("{\"op\":\"u\",\"before\":{\"id\":1},\"after\":null" + source))
        .isEqualTo(
            new Routing.Rejected(
                DeadLetterReason.MISSING_ROW_IMAGE,
                "CDC op 'u' needs 'after' to be a JSON object, got null"));
    assertThat(rejected("{\"op\":\"d\",\"after\":null" + source))
        .isEqualTo(
            new Routing.Rejected(
                DeadLetterReason.MISSING_ROW_IMAGE,
                "CDC op 'd' needs 'before' to be a JSON object, got absent"));
    assertThat(rejected("{\"op\":\"d\",\"before\":{\"name\":\"x\"}" + source))
        .isEqualTo(
            new Routing.Rejected(
                DeadLetterReason.MISSING_KEY, "key field 'id' of 'before' is absent"));
    assertThat(rejected("{\"op\":\"c\",\"after\":{\"id\":null}" + source))
        .isEqualTo(
            new Routing.Rejected(
                DeadLetterReason.MISSING_KEY, "key field 'id' of 'after' is null"));
    assertThat(rejected("{\"op\":\"c\",\"after\":{\"id\":1}}"))
        .isEqualTo(
            new Routing.Rejected(
                DeadLetterReason.MISSING_ROUTING_FIELD,
                "routing field 'event_type' is not a string in the row image and the event has"
                    + " no source.table"));
    assertThat(rejected("{\"op\":\"c\",\"after\":{\"id\":1},\"source\":{\"table\":\"Bad\"}}"))
        .isEqualTo(
            new Routing.Rejected(
                DeadLetterReason.INVALID_TABLE_NAME,
                "source.table = 'Bad' must match [a-z][a-z0-9_]{0,127} and not be the dead-letter"
                    + " table"));
    assertThat(rejected("{\"op\":\"c\""))
        .extracting(Routing.Rejected::reason)
        .isEqualTo(DeadLetterReason.UNPARSEABLE_JSON);
  }

  @Test
  void deleteWhoseKeyDoesNotFitTheKeyColumnIsRejected() {
    routed("{\"op\":\"c\",\"after\":{\"id\":1},\"source\":{\"table\":\"customers\"}}");

    assertThat(
            rejected(
                "{\"op\":\"d\",\"before\":{\"id\":\"one\"},\"source\":{\"table\":\"customers\"}}"))
        .isEqualTo(
            new Routing.Rejected(
                DeadLetterReason.INCOMPATIBLE_TYPE,
                "field 'id' = \"one\" (STRING) does not fit column type long of events.customers"
                    + " without a disallowed change"));
  }

  private Routing.Routed routed(String json) {
    List<Routing> routings = router.route(json);
    assertThat(routings).hasSize(1).first().isInstanceOf(Routing.Routed.class);
    return (Routing.Routed) routings.get(0);
  }

  private Routing.Rejected rejected(String json) {
    List<Routing> routings = router.route(json);
    assertThat(routings).hasSize(1).first().isInstanceOf(Routing.Rejected.class);
    return (Routing.Rejected) routings.get(0);
  }
}
