/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nested values through the real job (ADR 0008 §15): a Flink MiniCluster, Iceberg tables on a JDBC
 * catalog, rows read back with Iceberg's generic reader equal to the last JSON event per key, with
 * a nested field added to a struct and to the structs of a list mid-stream.
 */
class NestedColumnsIT {
  private static final int EVENTS = 240;
  private static final int CHANGE_AT = 180;
  private static final ObjectMapper JSON = new ObjectMapper();

  @RegisterExtension
  static final MiniClusterExtension CLUSTER =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(4)
              .build());

  @TempDir Path dir;

  @Test
  void nestedValuesReadBackAsWrittenWhileTheirStructsGrowMidStream() throws Exception {
    List<String> events = new ArrayList<>();
    for (int i = 0; i < EVENTS; i++) {
      events.add(order(i));
    }
    // Poison among them (ADR 0018): each is its dead letter, nothing else.
    Map<String, String> poison = new LinkedHashMap<>();
    poison.put(
        "{\"event_type\":\"orders\",\"id\":1,\"tags\":[\"a\",1]}",
        DeadLetterReason.INCOMPATIBLE_TYPE.code());
    poison.put(
        "{\"event_type\":\"orders\",\"id\":2,\"customer\":\"ann\"}",
        DeadLetterReason.INCOMPATIBLE_TYPE.code());
    poison.put(
        "{\"event_type\":\"orders\",\"id\":3,\"deep\":"
            + "{\"a\":".repeat(17)
            + "1"
            + "}".repeat(17)
            + "}",
        DeadLetterReason.SCHEMA_LIMIT_EXCEEDED.code());
    poison.put(
        "{\"event_type\":\"orders\",\"id\":4,\"customer\":{\"Name\":\"x\"}}",
        DeadLetterReason.INVALID_FIELD_NAME.code());
    int at = 50;
    for (String event : poison.keySet()) {
      events.add(at, event);
      at += 40;
    }
    // A table made before, whose string column holds JSON text: objects stay JSON text there.
    events.add(10, "{\"event_type\":\"legacy\",\"id\":1,\"payload\":{\"a\":[1,{\"b\":null}]}}");
    CatalogLoader loader = IngestJob.catalogLoader(IngestJobIT.catalogSettings(dir));
    Catalog catalog = loader.loadCatalog();
    TableIdentifier legacyId = TableIdentifier.of("events", "legacy");
    VersionTwoTableCreator.ensureNamespace(catalog, Namespace.of("events"));
    catalog.createTable(
        legacyId,
        new Schema(
            List.of(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "payload", Types.StringType.get())),
            Set.of(1)),
        org.apache.iceberg.PartitionSpec.unpartitioned(),
        Map.of("format-version", "2"));

    // One source subtask, a commit every 200 ms: the structs grow while rows in the older schema
    // are committed and in flight.
    IngestJobIT.runListed(
        events,
        IngestSettings.defaults("events")
            .withTables(
                List.of(
                    NestedColumnsTest.rule(
                        "orders",
                        SchemaChanges.EVOLVE,
                        NestedValues.COLUMNS,
                        "attributes",
                        "sizes"),
                    TableRule.DEFAULT)),
        loader);

    Table orders = catalog.loadTable(TableIdentifier.of("events", "orders"));
    Types.StructType customer = orders.schema().findType("customer").asStructType();
    assertThat(customer.fields())
        .extracting(Types.NestedField::name)
        .containsExactly("name", "address", "tier");
    assertThat(orders.schema().findType("items").asListType().elementType().asStructType().fields())
        .extracting(Types.NestedField::name)
        .containsExactly("sku", "qty", "price");
    // A map field: one map column, however many keys the events had.
    assertThat(orders.schema().findType("attributes").isMapType()).isTrue();
    assertThat(orders.schema().findType("attributes").asMapType().valueType())
        .isEqualTo(Types.StringType.get());
    // A map field whose struct values grow mid-stream.
    assertThat(orders.schema().findType("sizes").asMapType().valueType().asStructType().fields())
        .extracting(Types.NestedField::name)
        .containsExactly("w", "h");
    assertThat(orders.schema().findField("deep")).as("the refused event added nothing").isNull();

    Map<Long, Object> expected = new HashMap<>();
    for (int i = 0; i < EVENTS; i++) {
      JsonNode event = JSON.readTree(order(i));
      expected.put(event.get("id").asLong(), PlainValues.of(event));
    }
    Map<Long, Object> actual = new HashMap<>();
    for (Record record : IngestJobIT.readAll(orders)) {
      actual.put((Long) record.getField("id"), PlainValues.of(record));
    }
    assertThat(actual).hasSize(40);
    assertThat(actual)
        .as("keys 30 to 39 end in the older shape: no tier, no prices")
        .containsEntry(35L, expected.get(35L));
    assertThat(expected.get(35L).toString()).doesNotContain("tier", "price");
    assertThat(actual).isEqualTo(expected);

    assertThat(IngestJobIT.readAll(catalog.loadTable(legacyId)))
        .extracting(r -> r.getField("id"), r -> r.getField("payload"))
        .containsExactly(tuple(1L, "{\"a\":[1,{\"b\":null}]}"));
    assertThat(catalog.loadTable(legacyId).schema().findType("payload"))
        .isEqualTo(Types.StringType.get());
    assertThat(IngestJobIT.readAll(catalog.loadTable(TableIdentifier.of("events", "dead_letters"))))
        .extracting(r -> r.getField("payload"), r -> r.getField("reason"))
        .containsExactlyInAnyOrderElementsOf(
            poison.entrySet().stream().map(e -> tuple(e.getKey(), e.getValue())).toList());
  }

  /**
   * The {@code i}th order event: 40 keys updated in turn (30 from event 160 on), a customer struct
   * with a nested address, items (a list of structs, some null), free-form attributes (a map
   * field), tags (a list, some empty), sizes (a map field of structs); from {@link #CHANGE_AT} on
   * the customer has a tier, the items a price and the sizes a height.
   */
  private static String order(int i) {
    boolean later = i >= CHANGE_AT;
    String address =
        i % 7 == 0
            ? "null"
            : String.format(Locale.ROOT, "{\"zip\":\"%04d\",\"city\":\"c%d\"}", i, i % 3);
    String customer =
        String.format(
            Locale.ROOT,
            "{\"name\":\"n%d\",\"address\":%s%s}",
            i,
            address,
            later ? ",\"tier\":\"t" + i % 4 + "\"" : "");
    StringBuilder items = new StringBuilder("[");
    for (int k = 0; k < i % 3 + 1; k++) {
      items.append(k == 0 ? "" : ",");
      items.append(
          k == 1 && i % 2 == 0
              ? "null"
              : String.format(
                  Locale.ROOT,
                  "{\"sku\":\"s%d\",\"qty\":%d%s}",
                  k,
                  i + k,
                  later ? ",\"price\":" + (k + 0.5) : ""));
    }
    items.append(']');
    String tags = i == 0 || i % 5 != 0 ? "[\"t" + i % 2 + "\",\"x\"]" : "[]";
    String sizes =
        String.format(
            Locale.ROOT, "{\"s%d\":{\"w\":%d%s}}", i % 3, i, later ? ",\"h\":" + (i + 1) : "");
    return String.format(
        Locale.ROOT,
        "{\"event_type\":\"orders\",\"id\":%d,\"customer\":%s,\"items\":%s,"
            + "\"attributes\":{\"k%d\":\"v%d\",\"color\":\"c%d\"},\"tags\":%s,\"sizes\":%s}",
        // Keys 30 to 39 end before the change: their rows keep the older shape.
        i < 160 ? i % 40 : i % 30,
        customer,
        items,
        i % 6,
        i,
        i % 2,
        tags,
        sizes);
  }
}
