/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.jdbc.UncheckedSQLException;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * Events no table can take are refused with a precise reason before any table is created or changed
 * for them (ADR 0018); {@code PoisonRecordsIT} runs the same corpus through the job.
 */
class PoisonEventsTest {
  private static final String SOURCE = ",\"source\":{\"table\":\"orders\"}}";

  private final Map<TableIdentifier, Schema> catalog = new HashMap<>();
  private final EventRouter router =
      IngestSettings.defaults("events")
          .withFormat(EventFormat.DEBEZIUM)
          .withTables(
              List.of(new TableRule("orders", List.of("id"), List.of(), null, true, List.of("at"))))
          .router(id -> Optional.ofNullable(catalog.get(id)));

  @Test
  void aKeyThatIsNoStringAndNoLongIsAnInvalidKeyNotADoubleKeyColumn() {
    // 1.5 used to make a double key column, which Iceberg refuses: the job restarted forever.
    assertThat(rejected(create("{\"id\":1.5}")))
        .isEqualTo(
            new Routing.Rejected(
                DeadLetterReason.INVALID_KEY,
                "key field 'id' of 'after' = 1.5 must be a string or an integer of at most 64"
                    + " bits"));
    for (String key : List.of("1.0", "1e10", "-0.0", "true", "123456789012345678901234567890")) {
      assertThat(rejected(create("{\"id\":" + key + "}")).reason())
          .as(key)
          .isEqualTo(DeadLetterReason.INVALID_KEY);
    }
    assertThat(rejected("{\"op\":\"d\",\"before\":{\"id\":2.5}" + SOURCE).detail())
        .isEqualTo(
            "key field 'id' of 'before' = 2.5 must be a string or an integer of at most 64 bits");
    assertThat(
            IngestSettings.defaults("events")
                .router(id -> Optional.empty())
                .route("{\"event_type\":\"orders\",\"id\":1.5}"))
        .extracting(r -> ((Routing.Rejected) r).reason())
        .containsExactly(DeadLetterReason.INVALID_KEY);

    Routing.Routed routed = routed(create("{\"id\":9223372036854775807,\"v\":1.5}"));
    assertThat(routed.schema().findType("id")).isEqualTo(Types.LongType.get());
    assertThat(routed.schema().identifierFieldNames()).containsExactly("id");
  }

  @Test
  void fieldsThatCannotBecomeColumnsAreInvalidFieldNames() {
    assertThat(rejected(create("{\"id\":1,\"\":2}")))
        .isEqualTo(
            new Routing.Rejected(
                DeadLetterReason.INVALID_FIELD_NAME,
                "field '' of events.orders is empty or blank: Flink's writers refuse such a column"
                    + " name"));
    assertThat(rejected(create("{\"id\":1,\" \":2}")).reason())
        .isEqualTo(DeadLetterReason.INVALID_FIELD_NAME);
    assertThat(rejected(create("{\"id\":1,\"_pos\":2}")).detail())
        .isEqualTo(
            "field '_pos' of events.orders is the name of an Iceberg metadata column: readers"
                + " would confuse the two");
    assertThat(rejected(create("{\"id\":1,\"code\":\"a\",\"Code\":\"b\"}")).detail())
        .isEqualTo(
            "field 'Code' of events.orders differs only by case from field 'code' of the same"
                + " event: case-insensitive engines (Spark, Trino) cannot tell them apart");
    assertThat(rejected(create("{\"ID\":1,\"id\":1}")).detail())
        .as("the key column is in the new table's schema first")
        .startsWith("field 'ID' of events.orders differs only by case from column 'id'");

    routed(create("{\"id\":1,\"code\":\"a\"}"));
    assertThat(rejected(create("{\"id\":2,\"CODE\":\"b\"}")).detail())
        .isEqualTo(
            "field 'CODE' of events.orders differs only by case from column 'code':"
                + " case-insensitive engines (Spark, Trino) cannot tell them apart");
    assertThat(rejected(create("{\"id\":2,\"code\":\"b\",\"_file\":\"f\"}")).reason())
        .isEqualTo(DeadLetterReason.INVALID_FIELD_NAME);
    assertThat(rejected(create("{\"id\":2,\"code\":\"b\",\"\":1}")).detail())
        .as("a known table: Iceberg's column lookup itself refuses the empty name")
        .startsWith("field '' of events.orders is empty or blank");
    assertThat(routed(create("{\"id\":2,\"code\":\"b\",\"nothing\":null,\"NOTHING\":null}")))
        .as("null fields add no column, so their names do not matter")
        .satisfies(r -> assertThat(r.schema().columns()).hasSize(2));
  }

  @Test
  void nestedPoisonIsRefusedWithItsPathBeforeTheTableChanges() {
    routed(create("{\"id\":1,\"customer\":{\"name\":\"ann\",\"age\":30,\"tags\":[\"a\"]}}"));

    // Too deep: 17 levels of objects and arrays.
    Routing.Rejected deep =
        rejected(create("{\"id\":2,\"deep\":" + "[".repeat(17) + "1" + "]".repeat(17) + "}"));
    assertThat(deep)
        .isEqualTo(
            new Routing.Rejected(
                DeadLetterReason.SCHEMA_LIMIT_EXCEEDED,
                "field 'deep' of events.orders nests objects and arrays deeper than 16 levels"));
    // Far deeper than any bound (Jackson's own limit is 1000): the same, no stack overflow.
    assertThat(
            rejected(create("{\"id\":2,\"deep\":" + "[".repeat(990) + "]".repeat(990) + "}"))
                .reason())
        .isEqualTo(DeadLetterReason.SCHEMA_LIMIT_EXCEEDED);
    // Mixed arrays, new or in an existing list column.
    assertThat(rejected(create("{\"id\":2,\"scores\":[1,true]}")).detail())
        .startsWith("field 'scores' = true mixes long and boolean values");
    assertThat(rejected(create("{\"id\":2,\"customer\":{\"tags\":[\"b\",2]}}")).detail())
        .isEqualTo(
            "field 'customer.tags' = 2 (NUMBER) does not fit type string of events.orders without"
                + " a disallowed change");
    // A struct where a scalar is, and a scalar where a struct is.
    assertThat(rejected(create("{\"id\":2,\"customer\":{\"age\":{\"years\":3}}}")).detail())
        .isEqualTo(
            "field 'customer.age' = {\"years\":3} (OBJECT) does not fit type long of"
                + " events.orders without a disallowed change");
    assertThat(rejected(create("{\"id\":2,\"customer\":7}")).reason())
        .isEqualTo(DeadLetterReason.INCOMPATIBLE_TYPE);
    // Sub-fields differing only by case, from the struct's or the same object's fields.
    assertThat(rejected(create("{\"id\":2,\"customer\":{\"NAME\":\"b\"}}")).reason())
        .isEqualTo(DeadLetterReason.INVALID_FIELD_NAME);
    assertThat(rejected(create("{\"id\":2,\"x\":{\"ab\":1,\"aB\":2}}")).detail())
        .isEqualTo(
            "field 'x.aB' of events.orders differs only by case from field 'ab': case-insensitive"
                + " engines (Spark, Trino) cannot tell them apart");
    // Hostile sub-field names.
    for (String name : List.of("", " ", "\\t", "a.b", "..")) {
      assertThat(rejected(create("{\"id\":2,\"customer\":{\"" + name + "\":1}}")).reason())
          .as(name)
          .isEqualTo(DeadLetterReason.INVALID_FIELD_NAME);
    }
    // A nested key.
    assertThat(rejected(create("{\"id\":{\"a\":1}}")).reason())
        .isEqualTo(DeadLetterReason.INVALID_KEY);

    // A string field holds an object as its JSON text, as a string column does.
    assertThat(
            ((org.apache.flink.table.data.GenericRowData)
                    routed(create("{\"id\":4,\"customer\":{\"name\":{\"first\":\"a\"}}}")).row())
                .getField(1))
        .isEqualTo(
            org.apache.flink.table.data.GenericRowData.of(
                org.apache.flink.table.data.StringData.fromString("{\"first\":\"a\"}"),
                null,
                null));
    // None of it changed the table: a good event's schema is the first one's.
    assertThat(routed(create("{\"id\":3,\"customer\":{\"name\":\"bob\"}}")).schema().columns())
        .extracting(Types.NestedField::name)
        .containsExactly("id", "customer");
  }

  @Test
  void timestampsOutsideIcebergsMicrosecondsAreIncompatible() {
    routed(create("{\"id\":1,\"at\":\"2026-11-29T10:00:00Z\"}"));

    for (String at :
        List.of(
            "\"+999999999-12-31T23:59:59Z\"",
            "\"-300000-01-01T00:00:00Z\"",
            "9000000000000000000")) {
      assertThat(rejected(create("{\"id\":2,\"at\":" + at + "}")))
          .as(at)
          .isEqualTo(
              new Routing.Rejected(
                  DeadLetterReason.INCOMPATIBLE_TYPE,
                  "field 'at' = "
                      + at
                      + (at.startsWith("\"") ? " (STRING)" : " (NUMBER)")
                      + " does not fit column type timestamptz of events.orders without a"
                      + " disallowed change"));
    }
    assertThat(routed(create("{\"id\":3,\"at\":\"+294000-01-01T00:00:00Z\"}")).row().isNullAt(1))
        .as("the far but representable future is a timestamp")
        .isFalse();
  }

  @Test
  void anUpdateWhoseNewRowIsRefusedDoesNotDeleteTheOldKeyEither() {
    catalog.put(
        TableIdentifier.of("events", "orders"),
        new Schema(
            List.of(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "amount", Types.DoubleType.get())),
            Set.of(1)));

    assertThat(
            router.route(
                "{\"op\":\"u\",\"before\":{\"id\":1},\"after\":{\"id\":2,\"amount\":\"x\"}"
                    + SOURCE))
        .singleElement()
        .isInstanceOfSatisfying(
            Routing.Rejected.class,
            r -> assertThat(r.reason()).isEqualTo(DeadLetterReason.INCOMPATIBLE_TYPE));
    assertThat(
            router.route(
                "{\"op\":\"u\",\"before\":{\"id\":1},\"after\":{\"id\":2,\"amount\":3}" + SOURCE))
        .as("a good key change: delete, then upsert")
        .extracting(r -> ((Routing.Routed) r).delete())
        .containsExactly(true, false);
  }

  @Test
  void onlyIcebergsValidationFailuresCountAsRefusalsNeverTheCatalogOrTheStorage() {
    assertThat(
            IngestRouter.refusedByIceberg(
                new IllegalArgumentException("Cannot create partition from name: id_bucket")))
        .isTrue();
    assertThat(IngestRouter.refusedByIceberg(new ValidationException("Cannot change column type")))
        .isTrue();
    assertThat(
            IngestRouter.refusedByIceberg(
                new org.apache.flink.table.api.ValidationException("Field names must contain")))
        .isTrue();

    assertThat(
            IngestRouter.refusedByIceberg(
                new IllegalArgumentException("wrapped", new IOException("disk full"))))
        .isFalse();
    assertThat(
            IngestRouter.refusedByIceberg(
                new ValidationException(
                    new UncheckedIOException(new IOException("reset")), "wrapped")))
        .isFalse();
    assertThat(IngestRouter.refusedByIceberg(new UncheckedIOException(new IOException("io"))))
        .isFalse();
    assertThat(
            IngestRouter.refusedByIceberg(
                new UncheckedSQLException(new SQLException("database is locked"), "commit")))
        .isFalse();
    assertThat(IngestRouter.refusedByIceberg(new CommitFailedException("lost a race"))).isFalse();
    assertThat(IngestRouter.refusedByIceberg(new NoSuchTableException("dropped"))).isFalse();
    assertThat(
            IngestRouter.refusedByIceberg(new IllegalStateException("other commits kept winning")))
        .isFalse();
  }

  private static String create(String after) {
    return "{\"op\":\"c\",\"before\":null,\"after\":" + after + SOURCE;
  }

  private Routing.Routed routed(String json) {
    List<Routing> routings = router.route(json);
    assertThat(routings).singleElement().isInstanceOf(Routing.Routed.class);
    return (Routing.Routed) routings.get(0);
  }

  private Routing.Rejected rejected(String json) {
    List<Routing> routings = router.route(json);
    assertThat(routings).singleElement().isInstanceOf(Routing.Rejected.class);
    return (Routing.Rejected) routings.get(0);
  }
}
