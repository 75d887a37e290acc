/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class JsonEventRouterTest {
  private final Map<TableIdentifier, Schema> catalog = new HashMap<>();
  private final JsonEventRouter router =
      new JsonEventRouter(
          IngestSettings.defaults("events"),
          id -> Optional.ofNullable(catalog.get(id)),
          TableRows.SchemaResolver.AS_INFERRED);

  @Test
  void newTableGetsRequiredKeyAndConservativeTypes() {
    Routing.Routed routed =
        routed(
            "{\"event_type\":\"orders\",\"id\":7,\"amount\":1.5,\"paid\":true,\"note\":\"x\","
                + "\"tags\":[1,2],\"gone\":null}");

    assertThat(routed.table()).isEqualTo(TableIdentifier.of("events", "orders"));
    assertThat(routed.keyFields()).containsExactly("id");
    Schema schema = routed.schema();
    assertThat(schema.identifierFieldNames()).containsExactly("id");
    assertThat(schema.findField("id").isRequired()).isTrue();
    assertThat(schema.findType("id")).isEqualTo(Types.LongType.get());
    assertThat(schema.findType("amount")).isEqualTo(Types.DoubleType.get());
    assertThat(schema.findType("paid")).isEqualTo(Types.BooleanType.get());
    assertThat(schema.findType("tags"))
        .isEqualTo(Types.ListType.ofOptional(6, Types.LongType.get()));
    assertThat(schema.findField("gone")).as("a null adds no column").isNull();
    RowData row = routed.row();
    assertThat(row.getLong(0)).isEqualTo(7L);
    ArrayData tags = row.getArray(schema.columns().indexOf(schema.findField("tags")));
    assertThat(List.of(tags.size(), tags.getLong(0), tags.getLong(1))).containsExactly(2, 1L, 2L);
  }

  @Test
  void newFieldBecomesOptionalColumnAndIntegersFillDoubleColumnsAsDoubles() {
    catalog.put(
        TableIdentifier.of("events", "orders"),
        new Schema(
            List.of(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "amount", Types.DoubleType.get())),
            java.util.Set.of(1)));

    Routing.Routed routed =
        routed("{\"event_type\":\"orders\",\"id\":1,\"amount\":3,\"tier\":\"a\"}");

    assertThat(routed.schema().columns())
        .extracting(Types.NestedField::name)
        .containsExactly("id", "amount", "event_type", "tier");
    assertThat(routed.schema().findField("tier").isOptional()).isTrue();
    assertThat(routed.row().getDouble(1)).isEqualTo(3.0);
  }

  @Test
  void decimalIntoLongColumnIsRejectedNotWidened() {
    routed("{\"event_type\":\"orders\",\"id\":1,\"count\":3}");

    Routing routing = single("{\"event_type\":\"orders\",\"id\":2,\"count\":3.5}");

    assertThat(routing)
        .isEqualTo(
            new Routing.Rejected(
                DeadLetterReason.INCOMPATIBLE_TYPE,
                "field 'count' = 3.5 (NUMBER) does not fit column type long of events.orders"
                    + " without a disallowed change"));
  }

  @Test
  void unroutableEventsAreRejectedWithTheirReason() {
    assertThat(reason("{\"event_type\":")).isEqualTo(DeadLetterReason.UNPARSEABLE_JSON);
    assertThat(reason("[1]")).isEqualTo(DeadLetterReason.NOT_AN_OBJECT);
    assertThat(reason("{\"id\":1}")).isEqualTo(DeadLetterReason.MISSING_ROUTING_FIELD);
    assertThat(reason("{\"event_type\":\"Bad Name\",\"id\":1}"))
        .isEqualTo(DeadLetterReason.INVALID_TABLE_NAME);
    assertThat(reason("{\"event_type\":\"dead_letters\",\"id\":1}"))
        .isEqualTo(DeadLetterReason.INVALID_TABLE_NAME);
    assertThat(reason("{\"event_type\":\"orders\"}")).isEqualTo(DeadLetterReason.MISSING_KEY);
    assertThat(reason("{\"event_type\":\"orders\",\"id\":null}"))
        .isEqualTo(DeadLetterReason.MISSING_KEY);
    assertThat(reason("{\"event_type\":\"orders\",\"id\":{\"a\":1}}"))
        .isEqualTo(DeadLetterReason.INVALID_KEY);
    assertThat(single("{\"id\":1}"))
        .isEqualTo(
            new Routing.Rejected(
                DeadLetterReason.MISSING_ROUTING_FIELD, "routing field 'event_type' is absent"));
  }

  @Test
  void perTableRulesGiveTheKeyAndAFixedTableTakesEveryEvent() {
    IngestSettings settings =
        new IngestSettings(
            "events",
            "event_type",
            "everything",
            List.of(
                new TableRule("every*", List.of("tenant", "seq"), List.of(), null, true),
                TableRule.DEFAULT),
            "dead_letters",
            1,
            EventFormat.JSON);
    EventRouter fixed = settings.router(id -> Optional.empty());

    Routing.Routed routed =
        (Routing.Routed) fixed.route("{\"tenant\":\"t1\",\"seq\":5,\"v\":1}").get(0);

    assertThat(routed.table()).isEqualTo(TableIdentifier.of("events", "everything"));
    assertThat(routed.keyFields()).containsExactly("tenant", "seq");
    assertThat(routed.schema().identifierFieldNames()).containsExactlyInAnyOrder("tenant", "seq");
    assertThat(fixed.route("{\"tenant\":\"t1\",\"id\":5}"))
        .containsExactly(
            new Routing.Rejected(DeadLetterReason.MISSING_KEY, "key field 'seq' is absent"));
  }

  @Test
  void declaredTimestampFieldsBecomeTimestamptzColumnsAndOthersStayStrings() {
    IngestSettings settings =
        IngestSettings.defaults("events")
            .withTables(
                List.of(
                    new TableRule(
                        "clicks", List.of("id"), List.of(), null, true, List.of("at", "seen"))));
    EventRouter timed = settings.router(id -> Optional.empty());

    Routing.Routed routed =
        (Routing.Routed)
            timed
                .route(
                    "{\"event_type\":\"clicks\",\"id\":1,\"at\":\"2026-11-29T10:15:30+01:00\","
                        + "\"seen\":1764411330000,\"note\":\"2026-11-29T10:15:30Z\"}")
                .get(0);

    assertThat(routed.schema().findField("at").type()).isEqualTo(Types.TimestampType.withZone());
    assertThat(routed.schema().findField("seen").type()).isEqualTo(Types.TimestampType.withZone());
    assertThat(routed.schema().findField("note").type())
        .as("not declared: a string, however it looks")
        .isEqualTo(Types.StringType.get());
    int at = routed.schema().columns().indexOf(routed.schema().findField("at"));
    int seen = routed.schema().columns().indexOf(routed.schema().findField("seen"));
    assertThat(routed.row().getTimestamp(at, 6).toInstant())
        .isEqualTo(java.time.Instant.parse("2026-11-29T09:15:30Z"));
    assertThat(routed.row().getTimestamp(seen, 6).toInstant())
        .isEqualTo(java.time.Instant.ofEpochMilli(1764411330000L));
    assertThat(timed.route("{\"event_type\":\"clicks\",\"id\":2,\"at\":\"2026-11-29T10:15:30\"}"))
        .as("no offset: ambiguous, so refused")
        .singleElement()
        .isInstanceOfSatisfying(
            Routing.Rejected.class,
            r -> {
              assertThat(r.reason()).isEqualTo(DeadLetterReason.INCOMPATIBLE_TYPE);
              assertThat(r.detail())
                  .isEqualTo(
                      "field 'at' = \"2026-11-29T10:15:30\" (STRING) does not fit column type"
                          + " timestamptz of events.clicks without a disallowed change");
            });
  }

  private Routing single(String json) {
    List<Routing> routings = router.route(json);
    assertThat(routings).hasSize(1);
    return routings.get(0);
  }

  private Routing.Routed routed(String json) {
    Routing routing = single(json);
    assertThat(routing).isInstanceOf(Routing.Routed.class);
    return (Routing.Routed) routing;
  }

  private DeadLetterReason reason(String json) {
    Routing routing = single(json);
    assertThat(routing).isInstanceOf(Routing.Rejected.class);
    return ((Routing.Rejected) routing).reason();
  }

  @Test
  void anIntegerBeyondALongIsAnExactDecimalAndOneBeyond38DigitsIsRefused() {
    List<Routing> routings =
        router.route("{\"event_type\":\"big\",\"id\":1,\"n\":123456789012345678901234567890}");
    assertThat(routings).hasSize(1).first().isInstanceOf(Routing.Routed.class);
    Routing.Routed routed = (Routing.Routed) routings.get(0);
    assertThat(routed.schema().findType("n")).isEqualTo(Types.DecimalType.of(38, 0));
    int n = routed.schema().columns().indexOf(routed.schema().findField("n"));
    assertThat(routed.row().getDecimal(n, 38, 0).toBigDecimal())
        .isEqualTo(new java.math.BigDecimal("123456789012345678901234567890"));

    assertThat(router.route("{\"event_type\":\"big\",\"id\":2,\"m\":" + "9".repeat(39) + "}"))
        .containsExactly(
            new Routing.Rejected(
                DeadLetterReason.INCOMPATIBLE_TYPE,
                "field 'm' = "
                    + "9".repeat(39)
                    + " does not fit type decimal(38, 0) (new column of events.big)"));
  }

  @Test
  void schemaChangesAFrozenOrAddOnlyRuleDoesNotAllowAreRefusedAndChangeNothing() {
    Schema existing =
        new Schema(
            List.of(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "event_type", Types.StringType.get()),
                Types.NestedField.optional(3, "amount", Types.DoubleType.get())),
            java.util.Set.of(1));
    Map<TableIdentifier, Schema> tables = new HashMap<>();
    tables.put(TableIdentifier.of("events", "frozen"), existing);
    tables.put(TableIdentifier.of("events", "added"), existing);
    List<Schema> frozenSchemas = new java.util.ArrayList<>();
    JsonEventRouter governed =
        new JsonEventRouter(
            IngestSettings.defaults("events")
                .withTables(
                    List.of(
                        rule("frozen", SchemaChanges.FREEZE),
                        rule("added", SchemaChanges.ADD_ONLY))),
            id -> Optional.ofNullable(tables.get(id)),
            (table, wanted) -> {
              if (table.name().equals("frozen")) {
                frozenSchemas.add(wanted);
              }
              return wanted;
            });

    // Known columns only: written under every rule.
    assertThat(governed.route("{\"event_type\":\"frozen\",\"id\":1,\"amount\":2.5}"))
        .first()
        .isInstanceOf(Routing.Routed.class);
    assertThat(governed.route("{\"event_type\":\"frozen\",\"id\":2,\"note\":\"x\"}"))
        .containsExactly(
            new Routing.Rejected(
                DeadLetterReason.SCHEMA_CHANGE_REFUSED,
                "field 'note' would be a new column of events.frozen, whose rule 'frozen' has"
                    + " schema-changes: freeze"));
    // add-only takes the new column.
    Routing added = governed.route("{\"event_type\":\"added\",\"id\":2,\"note\":\"x\"}").get(0);
    assertThat(added).isInstanceOf(Routing.Routed.class);
    assertThat(((Routing.Routed) added).schema().findField("note")).isNotNull();
    assertThat(frozenSchemas)
        .as("the frozen table was only ever asked for the schema it has")
        .isNotEmpty()
        .allSatisfy(schema -> assertThat(schema.sameSchema(existing)).isTrue());
  }

  private static TableRule rule(String match, SchemaChanges changes) {
    return new TableRule(match, List.of("id"), List.of(), null, true, List.of(), changes);
  }

  @Test
  void rowsThatBreakTheirTablesContractAreRefusedNamingTheCheck() {
    List<ContractCheck> contract =
        List.of(
            new ContractCheck(
                "has_amount", "amount", ContractCheck.Kind.REQUIRED, null, null, null),
            new ContractCheck(
                "positive",
                "amount",
                ContractCheck.Kind.MIN,
                java.math.BigDecimal.ZERO,
                null,
                null),
            new ContractCheck(
                "capped",
                "amount",
                ContractCheck.Kind.MAX,
                new java.math.BigDecimal("1000.5"),
                null,
                null),
            new ContractCheck(
                "sku_format", "sku", ContractCheck.Kind.REGEX, null, "[A-Z]{3}-\\d+", null),
            new ContractCheck(
                "known_status",
                "status",
                ContractCheck.Kind.ENUM,
                null,
                null,
                List.of("new", "paid")),
            new ContractCheck(
                "short_note",
                "note",
                ContractCheck.Kind.MAX_LENGTH,
                java.math.BigDecimal.valueOf(3),
                null,
                null));
    JsonEventRouter checked =
        new JsonEventRouter(
            IngestSettings.defaults("events")
                .withTables(
                    List.of(
                        new TableRule(
                            "pay*",
                            List.of("id"),
                            List.of(),
                            null,
                            true,
                            List.of(),
                            SchemaChanges.EVOLVE,
                            contract))),
            id -> Optional.empty(),
            TableRows.SchemaResolver.AS_INFERRED);
    String prefix = "{\"event_type\":\"payments\",\"id\":1,";

    assertThat(
            checked.route(
                prefix
                    + "\"amount\":1000.5,\"sku\":\"ABC-1\",\"status\":\"paid\",\"note\":\"\u00e9t\u00e9\"}"))
        .first()
        .isInstanceOf(Routing.Routed.class);
    Map<String, String> broken = new java.util.LinkedHashMap<>();
    broken.put("\"sku\":\"A\"}", "has_amount: field 'amount' is absent or null");
    broken.put("\"amount\":-0.01}", "positive: field 'amount' = -0.01 is below min 0");
    broken.put("\"amount\":1001}", "capped: field 'amount' = 1001 is above max 1000.5");
    broken.put("\"amount\":\"5\"}", "positive: field 'amount' = \"5\" is not a number");
    broken.put(
        "\"amount\":1,\"sku\":\"abc-1\"}",
        "sku_format: field 'sku' = \"abc-1\" does not match [A-Z]{3}-\\d+");
    broken.put(
        "\"amount\":1,\"status\":\"lost\"}",
        "known_status: field 'status' = \"lost\" is not one of [new, paid]");
    broken.put(
        "\"amount\":1,\"note\":\"four\"}",
        "short_note: field 'note' is 4 characters long, above max-length 3");
    for (Map.Entry<String, String> event : broken.entrySet()) {
      String check = event.getValue().substring(0, event.getValue().indexOf(':'));
      assertThat(checked.route(prefix + event.getKey()))
          .as(event.getKey())
          .containsExactly(
              new Routing.Rejected(
                  DeadLetterReason.CONTRACT_VIOLATION,
                  "contract check '"
                      + check
                      + "' of events.payments: "
                      + event.getValue().substring(check.length() + 2),
                  "payments/" + check));
    }
    // Other tables have no contract; deletes are not checked.
    assertThat(checked.route("{\"event_type\":\"orders\",\"id\":1}"))
        .first()
        .isInstanceOf(Routing.Routed.class);
  }
}
