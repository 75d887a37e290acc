/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
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
  void aChangeHistoryTableGetsEveryChangeWithItsOperationNextToTheUpsert() {
    EventRouter history =
        IngestSettings.defaults("events")
            .withFormat(EventFormat.DEBEZIUM)
            .withTables(
                List.of(
                    new TableRule(
                        "cust*",
                        List.of("id"),
                        List.of(),
                        null,
                        true,
                        List.of(),
                        SchemaChanges.EVOLVE,
                        List.of(),
                        "{table}_changes"),
                    new TableRule("*", List.of("id"), List.of(), null, true)))
            .router(id -> Optional.ofNullable(catalog.get(id)));
    TableIdentifier changes = TableIdentifier.of("events", "customers_changes");

    List<Routing> created =
        history.route(
            "{\"op\":\"c\",\"after\":{\"id\":1,\"name\":\"ann\"},"
                + "\"source\":{\"table\":\"customers\",\"ts_ms\":1764411330123}}");
    assertThat(created)
        .extracting(r -> ((Routing.Routed) r).table(), r -> ((Routing.Routed) r).delete())
        .containsExactly(tuple(CUSTOMERS, false), tuple(changes, false));
    Routing.Routed row = (Routing.Routed) created.get(1);
    assertThat(row.keyFields()).as("the history is an append table").isEmpty();
    assertThat(row.schema().columns())
        .extracting(Types.NestedField::name, Types.NestedField::type)
        .containsExactly(
            tuple("id", Types.LongType.get()),
            tuple("name", Types.StringType.get()),
            tuple(ChangeHistory.OP, Types.StringType.get()),
            tuple(ChangeHistory.SOURCE_TS, Types.LongType.get()));
    assertThat(row.row().getString(2)).isEqualTo(StringData.fromString("c"));
    assertThat(row.row().getLong(3)).isEqualTo(1764411330123L);

    List<Routing> deleted =
        history.route(
            "{\"op\":\"d\",\"before\":{\"id\":1,\"name\":\"ann\"},"
                + "\"source\":{\"table\":\"customers\"}}");
    assertThat(deleted)
        .extracting(r -> ((Routing.Routed) r).table(), r -> ((Routing.Routed) r).delete())
        .containsExactly(tuple(CUSTOMERS, true), tuple(changes, false));
    Routing.Routed deletion = (Routing.Routed) deleted.get(1);
    assertThat(deletion.row().getRowKind()).isEqualTo(RowKind.INSERT);
    assertThat(deletion.row().getString(1))
        .as("a delete's history row is the before image")
        .isEqualTo(StringData.fromString("ann"));
    assertThat(deletion.row().getString(2)).isEqualTo(StringData.fromString("d"));
    assertThat(deletion.row().isNullAt(3)).as("no source time in this event").isTrue();

    String columns =
        column("id", "int64", null, false, null) + "," + column("name", "string", null, true, null);
    assertThat(history.route(envelope(columns, "c", null, "{\"id\":2,\"name\":\"bo\"}")))
        .as("a change event in the schema envelope: declared columns")
        .extracting(r -> r instanceof Routing.Routed routed ? routed.table() : r)
        .containsExactly(CUSTOMERS, changes);
    assertThat(
            history.route("{\"op\":\"c\",\"after\":{\"id\":1},\"source\":{\"table\":\"orders\"}}"))
        .as("a table whose rule keeps no history")
        .singleElement()
        .extracting(r -> ((Routing.Routed) r).table().name())
        .isEqualTo("orders");
    assertThat(
            history.route(
                "{\"op\":\"c\",\"after\":{\"id\":\"x\"},"
                    + "\"source\":{\"table\":\"customers\"}}"))
        .as("a refused change writes no history either")
        .singleElement()
        .isInstanceOf(Routing.Rejected.class);
  }

  @Test
  void changeHistoryNamesAreCheckedWhenTheRuleIsMade() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () ->
                new TableRule(
                    "a",
                    List.of("id"),
                    List.of(),
                    null,
                    false,
                    List.of(),
                    SchemaChanges.EVOLVE,
                    List.of(),
                    "{table}_changes"))
        .hasMessage(
            "table rule 'a': change-history needs an upsert table (an append table keeps every"
                + " event already)");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () ->
                new TableRule(
                    "a",
                    List.of("id"),
                    List.of(),
                    null,
                    true,
                    List.of(),
                    SchemaChanges.EVOLVE,
                    List.of(),
                    "changes"))
        .hasMessage(
            "table rule 'a': change-history 'changes' must hold {table} once, with a prefix or"
                + " suffix (e.g. {table}_changes)");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () ->
                new TableRule(
                    "a",
                    List.of("id"),
                    List.of(),
                    null,
                    true,
                    List.of(),
                    SchemaChanges.EVOLVE,
                    List.of(),
                    "{table}-Changes"))
        .hasMessage(
            "table rule 'a': change-history '{table}-Changes' does not make table names matching"
                + " [a-z][a-z0-9_]{0,127}");
    IngestSettings settings =
        IngestSettings.defaults("events")
            .withTables(
                List.of(
                    new TableRule("*", List.of("id"), List.of(), null, true),
                    new TableRule(
                        "orders",
                        List.of("id"),
                        List.of(),
                        null,
                        true,
                        List.of(),
                        SchemaChanges.EVOLVE,
                        List.of(),
                        "{table}_changes")));
    assertThat(settings.table("orders_changes").upsert())
        .as("a change-history table is appended to, whatever broader rule comes first")
        .isFalse();
    assertThat(settings.table("other_changes").upsert()).isTrue();
  }

  @Test
  void theEnvelopeSchemaDecodesLogicalTypesAndDeclaresEachNewColumnsType() {
    // Kafka Connect's JSON converter with schemas: decimals as base64 of the unscaled value,
    // timestamps as epoch micros / millis, dates as epoch days.
    String columns =
        String.join(
            ",",
            column("id", "int32", null, false, null),
            column("price", "bytes", DECIMAL, true, decimalParameters(2, 10)),
            column("qty", "int16", null, false, null),
            column("weight", "float32", null, true, null),
            column("ratio", "float64", null, true, null),
            column("updated", "int64", "io.debezium.time.MicroTimestamp", true, null),
            column("created", "int64", "io.debezium.time.Timestamp", true, null),
            column("born", "int32", "io.debezium.time.Date", true, null),
            column("zoned", "string", "io.debezium.time.ZonedTimestamp", true, null),
            column("blob", "bytes", null, true, null),
            column("flag", "boolean", null, true, null),
            column("tags", "array", null, true, null));
    Routing.Routed routed =
        routed(
            envelope(
                columns,
                "c",
                null,
                // 12345 = 0x3039 -> "MDk=" -> 123.45
                "{\"id\":1,\"price\":\"MDk=\",\"qty\":7,\"weight\":1.5,\"ratio\":0.25,"
                    + "\"updated\":1764411330123456,\"created\":1764411330123,\"born\":20421,"
                    + "\"zoned\":\"2026-11-29T10:15:30+01:00\",\"blob\":\"AQI=\",\"flag\":true,"
                    + "\"tags\":[\"a\"]}"));

    Schema schema = routed.schema();
    assertThat(schema.columns())
        .extracting(Types.NestedField::name, Types.NestedField::type, Types.NestedField::isRequired)
        .containsExactly(
            tuple("id", Types.IntegerType.get(), true),
            tuple("price", Types.DecimalType.of(10, 2), false),
            tuple("qty", Types.IntegerType.get(), true),
            tuple("weight", Types.FloatType.get(), false),
            tuple("ratio", Types.DoubleType.get(), false),
            tuple("updated", Types.TimestampType.withoutZone(), false),
            tuple("created", Types.TimestampType.withoutZone(), false),
            tuple("born", Types.DateType.get(), false),
            tuple("zoned", Types.TimestampType.withZone(), false),
            tuple("blob", Types.BinaryType.get(), false),
            tuple("flag", Types.BooleanType.get(), false),
            // An array without an items schema declares nothing: inferred from its elements.
            tuple("tags", Types.ListType.ofOptional(12, Types.StringType.get()), false));
    RowData row = routed.row();
    assertThat(row.getInt(0)).isEqualTo(1);
    assertThat(row.getDecimal(1, 10, 2).toBigDecimal()).isEqualTo(new BigDecimal("123.45"));
    assertThat(row.getInt(2)).isEqualTo(7);
    assertThat(row.getFloat(3)).isEqualTo(1.5f);
    assertThat(row.getDouble(4)).isEqualTo(0.25);
    assertThat(row.getTimestamp(5, 6).toLocalDateTime())
        .isEqualTo(LocalDateTime.parse("2025-11-29T10:15:30.123456"));
    assertThat(row.getTimestamp(6, 6).toLocalDateTime())
        .isEqualTo(LocalDateTime.parse("2025-11-29T10:15:30.123"));
    assertThat(row.getInt(7)).isEqualTo(20421);
    assertThat(row.getTimestamp(8, 6).toInstant()).isEqualTo(Instant.parse("2026-11-29T09:15:30Z"));
    assertThat(row.getBinary(9)).containsExactly(1, 2);
    assertThat(row.getArray(11).getString(0).toString()).isEqualTo("a");

    // Without the schema the same value is indistinguishable from a plain string: kept as it is.
    Routing.Routed bare =
        routed(
            "{\"op\":\"c\",\"after\":{\"id\":2,\"price\":\"MDk=\"},"
                + "\"source\":{\"table\":\"orders\"}}");
    assertThat(bare.row().getString(position(bare.schema(), "price")).toString()).isEqualTo("MDk=");
  }

  @Test
  void declaredStructsArraysAndMapsBecomeNestedColumnsOfTheDeclaredTypes() {
    String columns =
        String.join(
            ",",
            column("id", "int64", null, false, null),
            "{\"field\":\"address\",\"type\":\"struct\",\"optional\":true,\"fields\":["
                + column("zip", "int32", null, false, null)
                + ",{\"field\":\"geo\",\"type\":\"struct\",\"optional\":true,\"fields\":["
                + column("lat", "float64", null, true, null)
                + "]},"
                + column("since", "int64", "io.debezium.time.MicroTimestamp", true, null)
                + "]}",
            "{\"field\":\"prices\",\"type\":\"array\",\"optional\":true,\"items\":"
                + column("", "bytes", DECIMAL, true, decimalParameters(2, 10))
                + "}",
            "{\"field\":\"labels\",\"type\":\"map\",\"optional\":true,"
                + "\"keys\":{\"type\":\"string\"},\"values\":{\"type\":\"string\"}}",
            "{\"field\":\"counts\",\"type\":\"map\",\"optional\":true,"
                + "\"keys\":{\"type\":\"int32\"},\"values\":{\"type\":\"int64\"}}");
    String after =
        "{\"id\":1,\"address\":{\"zip\":1011,\"geo\":{\"lat\":52.5},"
            + "\"since\":1764411330123456},\"prices\":[\"MDk=\",null],"
            + "\"labels\":{\"a\":\"x\"},\"counts\":[[1,2]]}";

    Routing.Routed routed = routed(envelope(columns, "c", null, after));

    assertThat(routed.schema().asStruct())
        .isEqualTo(
            Types.StructType.of(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(
                    6,
                    "address",
                    Types.StructType.of(
                        Types.NestedField.optional(2, "zip", Types.IntegerType.get()),
                        Types.NestedField.optional(
                            4,
                            "geo",
                            Types.StructType.of(
                                Types.NestedField.optional(3, "lat", Types.DoubleType.get()))),
                        Types.NestedField.optional(5, "since", Types.TimestampType.withoutZone()))),
                Types.NestedField.optional(
                    8, "prices", Types.ListType.ofOptional(7, Types.DecimalType.of(10, 2))),
                Types.NestedField.optional(
                    11,
                    "labels",
                    Types.MapType.ofOptional(
                        9, 10, Types.StringType.get(), Types.StringType.get())),
                // Connect writes a map with other keys as [key, value] pairs: JSON text.
                Types.NestedField.optional(12, "counts", Types.StringType.get())));
    assertThat(routed.row())
        .isEqualTo(
            GenericRowData.of(
                1L,
                GenericRowData.of(
                    1011,
                    GenericRowData.of(52.5),
                    TimestampData.fromLocalDateTime(
                        LocalDateTime.parse("2025-11-29T10:15:30.123456"))),
                new GenericArrayData(
                    new Object[] {
                      DecimalData.fromBigDecimal(new BigDecimal("123.45"), 10, 2), null
                    }),
                new GenericMapData(Map.of(StringData.fromString("a"), StringData.fromString("x"))),
                StringData.fromString("[[1,2]]")));

    // The source widens a nested column (ALTER ... TYPE bigint): the struct's field follows.
    catalog.put(CUSTOMERS, routed.schema());
    String wider =
        columns.replace(
            column("zip", "int32", null, false, null), column("zip", "int64", null, false, null));
    Routing.Routed widened =
        routed(
            envelope(
                wider,
                "u",
                null,
                "{\"id\":1,\"address\":{\"zip\":99999999999,\"geo\":{\"lat\":1}}}"));
    assertThat(widened.schema().findField("address.zip"))
        .isEqualTo(Types.NestedField.optional(2, "zip", Types.LongType.get()));
    assertThat(widened.schema().findField("address.since").fieldId()).isEqualTo(5);
    assertThat(((GenericRowData) widened.row()).getField(1))
        .isEqualTo(GenericRowData.of(99999999999L, GenericRowData.of(1.0), null));
  }

  @Test
  void withNestedJsonDeclaredStructsStayJsonTextWithTheirLogicalTypesDecoded() {
    EventRouter json =
        IngestSettings.defaults("events")
            .withFormat(EventFormat.DEBEZIUM)
            .withTables(
                List.of(NestedColumnsTest.rule("*", SchemaChanges.EVOLVE, NestedValues.JSON)))
            .router(id -> Optional.empty());
    String columns =
        column("id", "int64", null, false, null)
            + ",{\"field\":\"address\",\"type\":\"struct\",\"optional\":true,\"fields\":["
            + column("since", "int32", "io.debezium.time.Date", true, null)
            + "]}";

    Routing.Routed routed =
        (Routing.Routed)
            json.route(envelope(columns, "c", null, "{\"id\":1,\"address\":{\"since\":20421}}"))
                .get(0);

    assertThat(routed.schema().findType("address")).isEqualTo(Types.StringType.get());
    assertThat(routed.row().getString(1).toString()).isEqualTo("{\"since\":\"2025-11-29\"}");
  }

  @Test
  void aDecimalKeepsEveryDigitThatJsonDoublesWouldLose() {
    // The example: 12345678901234.57 became 12345678901234.5703125 as a double.
    String columns =
        column("id", "int64", null, false, null)
            + ","
            + column("amount", "bytes", DECIMAL, true, decimalParameters(2, 16));
    String unscaled =
        java.util.Base64.getEncoder()
            .encodeToString(new BigDecimal("12345678901234.57").unscaledValue().toByteArray());
    Routing.Routed routed =
        routed(envelope(columns, "c", null, "{\"id\":1,\"amount\":\"" + unscaled + "\"}"));

    assertThat(routed.row().getDecimal(1, 16, 2).toBigDecimal())
        .isEqualTo(new BigDecimal("12345678901234.57"));
  }

  @Test
  void existingColumnsKeepTheirTypeUnlessTheDeclaredOneWidensIt() {
    // A table made before the schema was used: price double, qty int, label required.
    catalog.put(
        CUSTOMERS,
        new Schema(
            List.of(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "price", Types.DoubleType.get()),
                Types.NestedField.optional(3, "qty", Types.IntegerType.get()),
                Types.NestedField.optional(4, "amount", Types.DecimalType.of(10, 2)),
                Types.NestedField.required(5, "label", Types.StringType.get())),
            Set.of(1)));
    String columns =
        String.join(
            ",",
            column("id", "int32", null, false, null),
            column("price", "bytes", DECIMAL, true, decimalParameters(2, 10)),
            column("qty", "int64", null, true, null),
            column("amount", "bytes", DECIMAL, true, decimalParameters(2, 20)),
            column("label", "string", null, true, null));
    // 5000000000 does not fit the int column: the source's int64 widens it; the wider decimal
    // raises amount's precision; label is null now and the source declares it optional.
    Routing.Routed routed =
        routed(
            envelope(
                columns,
                "c",
                null,
                "{\"id\":1,\"price\":\"MDk=\",\"qty\":5000000000,\"amount\":\"MDk=\","
                    + "\"label\":null}"));

    Schema schema = routed.schema();
    assertThat(schema.columns())
        .extracting(Types.NestedField::name, Types.NestedField::type, Types.NestedField::isRequired)
        .containsExactly(
            tuple("id", Types.LongType.get(), true),
            tuple("price", Types.DoubleType.get(), false),
            tuple("qty", Types.LongType.get(), false),
            tuple("amount", Types.DecimalType.of(20, 2), false),
            tuple("label", Types.StringType.get(), false));
    assertThat(routed.row().getLong(0)).isEqualTo(1L);
    assertThat(routed.row().getDouble(1)).isEqualTo(123.45);
    assertThat(routed.row().getLong(2)).isEqualTo(5_000_000_000L);
    assertThat(routed.row().getDecimal(3, 20, 2).toBigDecimal())
        .isEqualTo(new BigDecimal("123.45"));
    assertThat(routed.row().isNullAt(4)).isTrue();
  }

  @Test
  void aValueThatDoesNotFitItsDeclaredTypeIsRefusedBeforeAnyColumnIsAdded() {
    // precision 4 cannot hold 123.45: the event is refused, the column not created.
    String columns =
        column("id", "int64", null, false, null)
            + ","
            + column("price", "bytes", DECIMAL, true, decimalParameters(2, 4));
    Routing.Rejected rejected =
        rejected(envelope(columns, "c", null, "{\"id\":1,\"price\":\"MDk=\"}"));

    assertThat(rejected.reason()).isEqualTo(DeadLetterReason.INCOMPATIBLE_TYPE);
    assertThat(rejected.detail())
        .isEqualTo(
            "field 'price' = 123.45 does not fit its declared type decimal(4, 2) (new column of"
                + " events.customers)");
    Routing.Routed next = routed(envelope(columns, "c", null, "{\"id\":2}"));
    assertThat(next.schema().findField("price")).isNull();
  }

  @Test
  void aDeclaredDecimalOrDateKeyIsAKeyAFloatingPointOneIsNot() {
    String decimalKey =
        column("id", "bytes", DECIMAL, false, decimalParameters(0, 12))
            + ","
            + column("name", "string", null, true, null);
    // 12345 as decimal(12, 0)
    Routing.Routed routed =
        routed(envelope(decimalKey, "c", null, "{\"id\":\"MDk=\",\"name\":\"a\"}"));
    assertThat(routed.schema().findField("id").type()).isEqualTo(Types.DecimalType.of(12, 0));
    assertThat(routed.schema().identifierFieldNames()).containsExactly("id");
    assertThat(routed.row().getDecimal(0, 12, 0).toBigDecimal()).isEqualTo(new BigDecimal("12345"));

    String doubleKey = column("id", "float64", null, false, null);
    assertThat(
            rejected(
                    envelope(doubleKey, "c", null, "{\"id\":1.5}")
                        .replace("customers", "measurements"))
                .reason())
        .isEqualTo(DeadLetterReason.INVALID_KEY);
  }

  @Test
  void anAddOnlyRuleRefusesTheSourcesWidening() {
    catalog.put(
        CUSTOMERS,
        new Schema(
            List.of(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "qty", Types.IntegerType.get())),
            Set.of(1)));
    EventRouter addOnly =
        IngestSettings.defaults("events")
            .withFormat(EventFormat.DEBEZIUM)
            .withTables(
                List.of(
                    new TableRule(
                        "customers",
                        List.of("id"),
                        List.of(),
                        null,
                        true,
                        List.of(),
                        SchemaChanges.ADD_ONLY)))
            .router(id -> Optional.ofNullable(catalog.get(id)));
    String columns =
        column("id", "int64", null, false, null) + "," + column("qty", "int64", null, true, null);

    assertThat(addOnly.route(envelope(columns, "c", null, "{\"id\":1,\"qty\":5000000000}")))
        .containsExactly(
            new Routing.Rejected(
                DeadLetterReason.SCHEMA_CHANGE_REFUSED,
                "column 'qty' would widen from int to long of events.customers, whose rule"
                    + " 'customers' has schema-changes: add-only"));
    // A value the column holds needs no change.
    assertThat(addOnly.route(envelope(columns, "c", null, "{\"id\":1,\"qty\":5}")))
        .first()
        .isInstanceOf(Routing.Routed.class);
  }

  private static final String DECIMAL = "org.apache.kafka.connect.data.Decimal";

  private static String decimalParameters(int scale, int precision) {
    return "{\"scale\":\"" + scale + "\",\"connect.decimal.precision\":\"" + precision + "\"}";
  }

  /** One field of a Connect struct schema as the JSON converter writes it. */
  private static String column(
      String name, String type, String logical, boolean optional, String parameters) {
    return "{\"field\":\""
        + name
        + "\",\"type\":\""
        + type
        + "\",\"optional\":"
        + optional
        + (logical == null ? "" : ",\"name\":\"" + logical + "\"")
        + (parameters == null ? "" : ",\"parameters\":" + parameters)
        + "}";
  }

  /** A change event of the customers table in the JSON converter's schema envelope. */
  private static String envelope(String columns, String op, String before, String after) {
    return "{\"schema\":{\"type\":\"struct\",\"fields\":["
        + "{\"field\":\"before\",\"type\":\"struct\",\"optional\":true,\"fields\":["
        + columns
        + "]},{\"field\":\"after\",\"type\":\"struct\",\"optional\":true,\"fields\":["
        + columns
        + "]}]},\"payload\":{\"op\":\""
        + op
        + "\",\"before\":"
        + before
        + ",\"after\":"
        + after
        + ",\"source\":{\"table\":\"customers\"}}}";
  }

  private static int position(Schema schema, String column) {
    return schema.columns().indexOf(schema.findField(column));
  }

  @Test
  void withoutARoutingFieldChangeEventsRouteBySourceTableOnlyThroughTheNameMapping() {
    EventRouter bySource =
        IngestSettings.defaults("events")
            .withFormat(EventFormat.DEBEZIUM)
            .withRoutingField(null)
            .withTableNames(
                new TableNames(
                    true,
                    List.of(
                        new TableNames.Rename("order_\\d+", "orders"),
                        new TableNames.Rename("(.*)_v2", "$1"),
                        new TableNames.Rename("bad_(.*)", "Bad-$1"))))
            .router(id -> Optional.ofNullable(catalog.get(id)));
    // A source column named event_type is a column, not a route.
    Routing.Routed routed =
        (Routing.Routed)
            bySource
                .route(
                    "{\"op\":\"c\",\"after\":{\"id\":1,\"event_type\":\"vip\"},"
                        + "\"source\":{\"table\":\"Customers\"}}")
                .get(0);
    assertThat(routed.table()).isEqualTo(CUSTOMERS);
    assertThat(routed.schema().findField("event_type")).isNotNull();
    assertThat(
            ((Routing.Routed)
                    bySource
                        .route(
                            "{\"op\":\"c\",\"after\":{\"id\":1},"
                                + "\"source\":{\"table\":\"ORDER_17\"}}")
                        .get(0))
                .table())
        .isEqualTo(TableIdentifier.of("events", "orders"));
    assertThat(
            ((Routing.Routed)
                    bySource
                        .route(
                            "{\"op\":\"c\",\"after\":{\"id\":1},"
                                + "\"source\":{\"table\":\"users_v2\"}}")
                        .get(0))
                .table())
        .isEqualTo(TableIdentifier.of("events", "users"));
    assertThat(
            bySource.route("{\"op\":\"c\",\"after\":{\"id\":1},\"source\":{\"table\":\"bad_x\"}}"))
        .containsExactly(
            new Routing.Rejected(
                DeadLetterReason.INVALID_TABLE_NAME,
                "source.table = 'bad_x' renamed, gives = 'Bad-x' must match [a-z][a-z0-9_]{0,127}"
                    + " and not be the dead-letter table"));
    assertThat(bySource.route("{\"op\":\"c\",\"after\":{\"id\":1,\"event_type\":\"t\"}}"))
        .containsExactly(
            new Routing.Rejected(
                DeadLetterReason.MISSING_ROUTING_FIELD, "the event has no source.table"));
  }

  @Test
  void rowsFlattenedByExtractNewRecordStateUpsertOrDeleteWithoutTheirAddedFields() {
    // delete.handling.mode=rewrite, add.fields=op,table; with the schema envelope.
    String schema =
        "{\"type\":\"struct\",\"fields\":["
            + column("id", "int32", null, false, null)
            + ","
            + column("price", "bytes", DECIMAL, true, decimalParameters(2, 10))
            + ","
            + column("__op", "string", null, true, null)
            + ","
            + column("__table", "string", null, true, null)
            + ","
            + column("__deleted", "string", null, true, null)
            + "]}";
    Routing.Routed upsert =
        routed(
            "{\"schema\":"
                + schema
                + ",\"payload\":{\"id\":1,\"price\":\"MDk=\",\"__op\":\"c\","
                + "\"__table\":\"customers\",\"__deleted\":\"false\"}}");
    assertThat(upsert.table()).isEqualTo(CUSTOMERS);
    assertThat(upsert.delete()).isFalse();
    assertThat(upsert.schema().columns())
        .extracting(Types.NestedField::name, Types.NestedField::type)
        .containsExactly(
            tuple("id", Types.IntegerType.get()), tuple("price", Types.DecimalType.of(10, 2)));
    assertThat(upsert.row().getDecimal(1, 10, 2).toBigDecimal())
        .isEqualTo(new BigDecimal("123.45"));

    // Without the envelope, a rewrite-mode delete: every field of the old row and __deleted.
    Routing.Routed delete =
        routed("{\"id\":1,\"price\":\"MDk=\",\"__table\":\"customers\",\"__deleted\":\"true\"}");
    assertThat(delete.table()).isEqualTo(CUSTOMERS);
    assertThat(delete.delete()).isTrue();
    assertThat(delete.row().getRowKind()).isEqualTo(RowKind.DELETE);
    assertThat(delete.row().getInt(0)).isEqualTo(1);
    assertThat(routed("{\"id\":2,\"__op\":\"d\",\"__table\":\"customers\"}").delete()).isTrue();

    assertThat(rejected("{\"id\":1,\"__deleted\":\"false\"}"))
        .isEqualTo(
            new Routing.Rejected(
                DeadLetterReason.MISSING_ROUTING_FIELD,
                "routing field 'event_type' is not a string in the row image and the event has no"
                    + " source.table"));
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
                DeadLetterReason.TRUNCATE_NOT_APPLIED,
                "CDC op 't' (truncate of source table 'customers') is not applied: Firn never"
                    + " empties a table from a stream; the rows written before it stay. Empty the"
                    + " table yourself if the truncate must reach it"));
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
