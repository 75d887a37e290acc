/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * JSON objects and arrays as struct, list and map columns (ADR 0008 §15): exact schemas and rows,
 * nested schema evolution under the rule's governance, and the nested values refused.
 */
class NestedColumnsTest {
  private static final TableIdentifier ORDERS = TableIdentifier.of("events", "orders");

  /** The tables' schemas as the resolver left them: each event sees the previous one's changes. */
  private final Map<TableIdentifier, Schema> catalog = new HashMap<>();

  private EventRouter router =
      router(rule(SchemaChanges.EVOLVE, NestedValues.COLUMNS, "attributes", "customer.labels"));

  private EventRouter router(TableRule rule) {
    return IngestSettings.defaults("events")
        .withTables(List.of(rule))
        .router(
            id -> Optional.ofNullable(catalog.get(id)),
            (table, wanted) -> {
              catalog.put(table, wanted);
              return wanted;
            });
  }

  private static TableRule rule(SchemaChanges changes, NestedValues nested, String... mapFields) {
    return rule("orders", changes, nested, mapFields);
  }

  /** A rule for the tables {@code match} names: key id, upserts, timestamp field customer.since. */
  static TableRule rule(
      String match, SchemaChanges changes, NestedValues nested, String... mapFields) {
    return new TableRule(
        match,
        List.of("id"),
        List.of(),
        null,
        true,
        List.of("customer.since"),
        changes,
        List.of(),
        nested,
        List.of(mapFields));
  }

  @Test
  void objectsBecomeStructsArraysListsAndNamedMapFieldsMaps() {
    Routing.Routed routed =
        routed(
            "{\"event_type\":\"orders\",\"id\":1,"
                + "\"customer\":{\"name\":\"ann\",\"address\":{\"zip\":\"1011\",\"city\":null}},"
                + "\"items\":[{\"sku\":\"a\",\"qty\":2},{\"sku\":\"b\",\"price\":1.5}],"
                + "\"attributes\":{\"color\":\"red\",\"size\":\"L\"},"
                + "\"tags\":[],\"scores\":[1,2.5],\"flags\":[null],\"empty\":{}}");

    assertThat(routed.schema().asStruct())
        .isEqualTo(
            Types.StructType.of(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "event_type", Types.StringType.get()),
                Types.NestedField.optional(
                    6,
                    "customer",
                    Types.StructType.of(
                        Types.NestedField.optional(3, "name", Types.StringType.get()),
                        Types.NestedField.optional(
                            5,
                            "address",
                            Types.StructType.of(
                                Types.NestedField.optional(4, "zip", Types.StringType.get()))))),
                Types.NestedField.optional(
                    11,
                    "items",
                    Types.ListType.ofOptional(
                        10,
                        Types.StructType.of(
                            Types.NestedField.optional(7, "sku", Types.StringType.get()),
                            Types.NestedField.optional(8, "qty", Types.LongType.get()),
                            Types.NestedField.optional(9, "price", Types.DoubleType.get())))),
                Types.NestedField.optional(
                    14,
                    "attributes",
                    Types.MapType.ofOptional(
                        12, 13, Types.StringType.get(), Types.StringType.get())),
                // Integers and other numbers in one array: double.
                Types.NestedField.optional(
                    16, "scores", Types.ListType.ofOptional(15, Types.DoubleType.get()))));
    assertThat(routed.row())
        .isEqualTo(
            GenericRowData.of(
                1L,
                text("orders"),
                GenericRowData.of(text("ann"), GenericRowData.of(text("1011"))),
                new GenericArrayData(
                    new Object[] {
                      GenericRowData.of(text("a"), 2L, null),
                      GenericRowData.of(text("b"), null, 1.5)
                    }),
                new GenericMapData(Map.of(text("color"), text("red"), text("size"), text("L"))),
                new GenericArrayData(new Object[] {1.0, 2.5})));
  }

  @Test
  void aLaterEventsNewSubFieldIsAddedToTheStructAndOlderShapesReadAsNulls() {
    Routing.Routed first = routed(order(1, "{\"name\":\"ann\"}"));
    Routing.Routed second =
        routed(order(2, "{\"name\":\"bob\",\"tier\":\"gold\",\"since\":\"2020-01-01T00:00:00Z\"}"));
    Routing.Routed third = routed(order(3, "{\"name\":\"cy\"}"));

    assertThat(first.schema().findType("customer"))
        .isEqualTo(
            Types.StructType.of(Types.NestedField.optional(3, "name", Types.StringType.get())));
    // Same field ids for what existed, new ones after the table's highest; the rule's
    // timestamp-fields name nested fields by their dotted path.
    assertThat(second.schema().findType("customer"))
        .isEqualTo(
            Types.StructType.of(
                Types.NestedField.optional(3, "name", Types.StringType.get()),
                Types.NestedField.optional(5, "tier", Types.StringType.get()),
                Types.NestedField.optional(6, "since", Types.TimestampType.withZone())));
    assertThat(third.schema()).isSameAs(second.schema());
    assertThat(((GenericRowData) second.row()).getField(2))
        .isEqualTo(
            GenericRowData.of(
                text("bob"),
                text("gold"),
                org.apache.flink.table.data.TimestampData.fromInstant(
                    java.time.Instant.parse("2020-01-01T00:00:00Z"))));
    assertThat(((GenericRowData) third.row()).getField(2))
        .isEqualTo(GenericRowData.of(text("cy"), null, null));
  }

  @Test
  void aValueOfAnotherTypeAnywhereInANestedColumnIsIncompatibleNamingItsPath() {
    routed(
        "{\"event_type\":\"orders\",\"id\":1,\"customer\":{\"name\":\"ann\","
            + "\"address\":{\"zip\":1011}},\"items\":[{\"sku\":\"a\"}]}");

    assertThat(
            rejected(
                "{\"event_type\":\"orders\",\"id\":2,\"customer\":{\"address\":{\"zip\":\"x\"}}}"))
        .isEqualTo(
            new Routing.Rejected(
                DeadLetterReason.INCOMPATIBLE_TYPE,
                "field 'customer.address.zip' = \"x\" (STRING) does not fit type long of"
                    + " events.orders without a disallowed change"));
    // A struct takes objects only (a scalar where a struct is: the struct-vs-scalar conflict).
    assertThat(rejected("{\"event_type\":\"orders\",\"id\":3,\"customer\":\"ann\"}"))
        .isEqualTo(
            new Routing.Rejected(
                DeadLetterReason.INCOMPATIBLE_TYPE,
                "field 'customer' = \"ann\" (STRING) does not fit type struct<3: name: optional"
                    + " string, 5: address: optional struct<4: zip: optional long>> of"
                    + " events.orders without a disallowed change"));
    assertThat(rejected("{\"event_type\":\"orders\",\"id\":4,\"items\":{\"sku\":\"a\"}}").detail())
        .startsWith("field 'items' = {\"sku\":\"a\"} (OBJECT) does not fit type list<struct<");
    assertThat(rejected("{\"event_type\":\"orders\",\"id\":5,\"items\":[{\"sku\":1}]}").detail())
        .isEqualTo(
            "field 'items.sku' = 1 (NUMBER) does not fit type string of events.orders without a"
                + " disallowed change");
    // A refused event changes nothing.
    assertThat(catalog.get(ORDERS).findField("customer.address.city")).isNull();
  }

  @Test
  void anExistingStringColumnTakesObjectsAsJsonTextAndNestedJsonKeepsTheOldBehaviour() {
    Schema existing =
        new Schema(
            List.of(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "event_type", Types.StringType.get()),
                Types.NestedField.optional(3, "payload", Types.StringType.get())),
            Set.of(1));
    catalog.put(ORDERS, existing);

    Routing.Routed routed =
        routed("{\"event_type\":\"orders\",\"id\":1,\"payload\":{\"a\":[1,{\"b\":null}]}}");

    assertThat(routed.schema()).isSameAs(existing);
    assertThat(routed.row())
        .isEqualTo(GenericRowData.of(1L, text("orders"), text("{\"a\":[1,{\"b\":null}]}")));

    catalog.clear();
    router = router(rule(SchemaChanges.EVOLVE, NestedValues.JSON));
    Routing.Routed json =
        routed("{\"event_type\":\"orders\",\"id\":1,\"customer\":{\"name\":\"ann\"},\"tags\":[]}");
    assertThat(json.schema().asStruct())
        .isEqualTo(
            Types.StructType.of(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "event_type", Types.StringType.get()),
                Types.NestedField.optional(3, "customer", Types.StringType.get()),
                Types.NestedField.optional(4, "tags", Types.StringType.get())));
    assertThat(json.row())
        .isEqualTo(GenericRowData.of(1L, text("orders"), text("{\"name\":\"ann\"}"), text("[]")));
  }

  @Test
  void emptyArraysAndNullElementsFixNoElementTypeUntilATypedOneArrives() {
    Routing.Routed empty = routed("{\"event_type\":\"orders\",\"id\":1,\"tags\":[[]],\"m\":{}}");
    assertThat(empty.schema().findField("tags")).isNull();
    assertThat(empty.schema().findField("m")).isNull();

    Routing.Routed typed = routed("{\"event_type\":\"orders\",\"id\":2,\"tags\":[null,\"a\"]}");
    assertThat(typed.schema().findType("tags"))
        .isEqualTo(Types.ListType.ofOptional(3, Types.StringType.get()));
    assertThat(((GenericRowData) typed.row()).getField(2))
        .isEqualTo(new GenericArrayData(new Object[] {null, text("a")}));

    Routing.Routed again = routed("{\"event_type\":\"orders\",\"id\":3,\"tags\":[]}");
    assertThat(again.schema()).isSameAs(typed.schema());
    assertThat(((GenericRowData) again.row()).getField(2))
        .isEqualTo(new GenericArrayData(new Object[0]));
    assertThat(rejected("{\"event_type\":\"orders\",\"id\":4,\"tags\":[1]}").detail())
        .isEqualTo(
            "field 'tags' = 1 (NUMBER) does not fit type string of events.orders without a"
                + " disallowed change");
  }

  @Test
  void anArrayMixingTypesIsIncompatibleAndNumbersMixToDouble() {
    assertThat(rejected("{\"event_type\":\"orders\",\"id\":1,\"tags\":[1,\"a\"]}"))
        .isEqualTo(
            new Routing.Rejected(
                DeadLetterReason.INCOMPATIBLE_TYPE,
                "field 'tags' = \"a\" mixes long and string values: the elements of an array"
                    + " (values of a map) need one type (new field of events.orders; nested: json"
                    + " keeps such values as JSON text)"));
    assertThat(rejected("{\"event_type\":\"orders\",\"id\":1,\"v\":[{\"a\":1},2]}").detail())
        .startsWith("field 'v' = 2 mixes object and number values");
    assertThat(rejected("{\"event_type\":\"orders\",\"id\":1,\"v\":[[1],{\"a\":1}]}").detail())
        .startsWith("field 'v' = {\"a\":1} mixes array and object values");
    assertThat(
            rejected("{\"event_type\":\"orders\",\"id\":1,\"attributes\":{\"a\":1,\"b\":\"x\"}}")
                .detail())
        .isEqualTo(
            "field 'attributes' = \"x\" mixes long and string values: the elements of an array"
                + " (values of a map) need one type (new field of events.orders; nested: json keeps"
                + " such values as JSON text)");
    assertThat(catalog).isEmpty();

    Routing.Routed nested = routed("{\"event_type\":\"orders\",\"id\":1,\"v\":[[1],[2.5,null]]}");
    assertThat(nested.schema().findType("v"))
        .isEqualTo(
            Types.ListType.ofOptional(4, Types.ListType.ofOptional(3, Types.DoubleType.get())));
  }

  @Test
  void nestedChangesFollowTheRulesSchemaChanges() {
    router = router(rule(SchemaChanges.FREEZE, NestedValues.COLUMNS));
    routed(order(1, "{\"name\":\"ann\"}"));

    assertThat(rejected(order(2, "{\"name\":\"bob\",\"tier\":\"gold\"}")))
        .isEqualTo(
            new Routing.Rejected(
                DeadLetterReason.SCHEMA_CHANGE_REFUSED,
                "field 'customer.tier' would be a new nested field of events.orders, whose rule"
                    + " 'orders' has schema-changes: freeze"));
    // Values that fit go on; a null or an absent sub-field changes nothing.
    assertThat(routed(order(3, "{\"name\":null}")).schema()).isSameAs(catalog.get(ORDERS));

    router = router(rule(SchemaChanges.ADD_ONLY, NestedValues.COLUMNS));
    Routing.Routed added = routed(order(4, "{\"name\":\"bob\",\"tier\":\"gold\"}"));
    assertThat(added.schema().findType("customer.tier")).isEqualTo(Types.StringType.get());

    // A required nested field (a table made elsewhere) sent null becomes optional only by evolve.
    reset();
    catalog.put(
        ORDERS,
        new Schema(
            List.of(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(
                    2,
                    "customer",
                    Types.StructType.of(
                        Types.NestedField.required(3, "name", Types.StringType.get())))),
            Set.of(1)));
    router = router(rule(SchemaChanges.ADD_ONLY, NestedValues.COLUMNS));
    assertThat(rejected(order(5, "{\"tier\":\"gold\"}")).detail())
        .isEqualTo(
            "column 'customer.name' would become optional of events.orders, whose rule 'orders'"
                + " has schema-changes: add-only");
    router = router(rule(SchemaChanges.EVOLVE, NestedValues.COLUMNS));
    Routing.Routed relaxed = routed(order(6, "{\"tier\":\"gold\"}"));
    assertThat(relaxed.schema().findField("customer.name").isOptional()).isTrue();
    assertThat(((GenericRowData) relaxed.row()).getField(1))
        .isEqualTo(GenericRowData.of(null, text("gold")));
  }

  @Test
  void tooDeepOrTooWideValuesExceedTheSchemaLimitsAndMapFieldsDoNot() {
    // 16 levels: the customer object and 15 below it.
    assertThat(routed(order(1, nest(16))).schema().findField("customer.a.a.a")).isNotNull();

    reset();
    Routing.Rejected deep = rejected(order(1, nest(17)));
    assertThat(deep.reason()).isEqualTo(DeadLetterReason.SCHEMA_LIMIT_EXCEEDED);
    assertThat(deep.detail())
        .startsWith("field 'customer.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a' of events.orders nests")
        .endsWith(" deeper than 16 levels");

    StringBuilder wide = new StringBuilder("{");
    for (int i = 0; i < 1000; i++) {
      wide.append(i == 0 ? "" : ",").append("\"f").append(i).append("\":").append(i);
    }
    wide.append('}');
    Routing.Rejected tooWide = rejected(order(1, wide.toString()));
    assertThat(tooWide.reason()).isEqualTo(DeadLetterReason.SCHEMA_LIMIT_EXCEEDED);
    assertThat(tooWide.detail())
        .isEqualTo(
            "the event would add more than 1000 fields to events.orders (the last one"
                + " 'customer.f998'): name free-form objects in the rule's map-fields, or use"
                + " nested: json");
    assertThat(catalog).isEmpty();

    reset();
    // The same object as a map field adds one column, whatever its keys.
    Routing.Routed map = routed("{\"event_type\":\"orders\",\"id\":1,\"attributes\":" + wide + "}");
    assertThat(map.schema().findType("attributes"))
        .isEqualTo(Types.MapType.ofOptional(3, 4, Types.StringType.get(), Types.LongType.get()));
    assertThat(((GenericRowData) map.row()).getMap(2).size()).isEqualTo(1000);
    // A map field inside a struct, named by its dotted path.
    Routing.Routed labels = routed(order(2, "{\"labels\":{\"x\":{\"y\":true}}}"));
    assertThat(labels.schema().findType("customer.labels"))
        .isEqualTo(
            Types.MapType.ofOptional(
                7,
                8,
                Types.StringType.get(),
                Types.StructType.of(Types.NestedField.optional(6, "y", Types.BooleanType.get()))));
  }

  @Test
  void nestedFieldNamesThatCannotBeFieldsAreInvalidFieldNames() {
    assertThat(rejected(order(1, "{\"name\":\"a\",\"Name\":\"b\"}")))
        .isEqualTo(
            new Routing.Rejected(
                DeadLetterReason.INVALID_FIELD_NAME,
                "field 'customer.Name' of events.orders differs only by case from field 'name':"
                    + " case-insensitive engines (Spark, Trino) cannot tell them apart"));
    assertThat(rejected(order(1, "{\" \":1}")).detail())
        .isEqualTo(
            "field 'customer. ' of events.orders is empty or blank: Flink's writers refuse such a"
                + " field name");
    assertThat(rejected(order(1, "{\"\":1}")).reason())
        .isEqualTo(DeadLetterReason.INVALID_FIELD_NAME);
    assertThat(rejected(order(1, "{\"a.b\":1}")).detail())
        .isEqualTo(
            "field 'customer.a.b' of events.orders has a '.' in its name: Iceberg names nested"
                + " fields by dotted paths, so it would be ambiguous");
    // A top-level field named like another column's nested path.
    assertThat(rejected("{\"event_type\":\"orders\",\"id\":1,\"a\":{\"b\":1},\"a.b\":2}").reason())
        .isEqualTo(DeadLetterReason.INVALID_FIELD_NAME);
    assertThat(catalog).isEmpty();

    routed(order(1, "{\"name\":\"a\"}"));
    assertThat(rejected(order(2, "{\"NAME\":\"b\"}")).detail())
        .startsWith(
            "field 'customer.NAME' of events.orders differs only by case from field 'name'");
  }

  @Test
  void keysAndPartitionsStayTopLevelPrimitives() {
    assertThat(rejected("{\"event_type\":\"orders\",\"id\":[1]}").reason())
        .isEqualTo(DeadLetterReason.INVALID_KEY);
    assertThatThrownBy(
            () ->
                new TableRule(
                    "orders",
                    List.of("id"),
                    List.of(),
                    null,
                    true,
                    List.of(),
                    SchemaChanges.EVOLVE,
                    List.of(),
                    NestedValues.COLUMNS,
                    List.of("id")))
        .hasMessage("map field 'id' is a primary-key field: keys are top-level primitive values");
    assertThatThrownBy(
            () ->
                new TableRule(
                    "orders",
                    List.of("id"),
                    List.of(PartitionCandidate.parse("attrs")),
                    null,
                    false,
                    List.of(),
                    SchemaChanges.EVOLVE,
                    List.of(),
                    NestedValues.COLUMNS,
                    List.of("attrs")))
        .hasMessage(
            "map field 'attrs' is the column of partition candidate attrs: partition sources are"
                + " top-level primitive columns");
    assertThatThrownBy(() -> rule(SchemaChanges.EVOLVE, NestedValues.JSON, "attrs"))
        .hasMessage("map field 'attrs' needs nested: columns (nested: json keeps objects as text)");
  }

  /** Forgets every table: a new catalog and a new router (whose schema cache is empty). */
  private void reset() {
    catalog.clear();
    router =
        router(rule(SchemaChanges.EVOLVE, NestedValues.COLUMNS, "attributes", "customer.labels"));
  }

  /** An order whose {@code customer} is {@code customer}. */
  private static String order(long id, String customer) {
    return "{\"event_type\":\"orders\",\"id\":" + id + ",\"customer\":" + customer + "}";
  }

  /** {@code levels} objects nested in each other, the innermost holding 1. */
  private static String nest(int levels) {
    return "{\"a\":".repeat(levels) + "1" + "}".repeat(levels);
  }

  private static StringData text(String value) {
    return StringData.fromString(value);
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
