/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.jspecify.annotations.Nullable;

/**
 * Debezium-style change events: {@code {"op": "c"|"r"|"u"|"d", "before": {...}, "after": {...},
 * "source": {"table": ...}}}, bare or inside the {@code {"schema": ..., "payload": {...}}} envelope
 * that Kafka Connect's JSON converter writes with schemas enabled.
 *
 * <ul>
 *   <li>a row flattened by Debezium's {@code ExtractNewRecordState} (no {@code op}; {@code
 *       __deleted} or {@code __op}) upserts itself, or deletes its key when deleted;
 *   <li>{@code t} (truncate) is a {@code truncate_not_applied} dead letter (ADR 0008 §8);
 *   <li>{@code c} (create) and {@code r} (snapshot read) upsert {@code after};
 *   <li>{@code u} upserts {@code after}; when {@code before} carries a different key, that key is
 *       deleted first (a primary-key change);
 *   <li>{@code d} deletes the key of {@code before}.
 * </ul>
 *
 * <p>The table is the fixed table when one is configured, else the envelope's {@code source.table};
 * only when a routing field is configured ({@code routing.field}) does that field of the row image
 * ({@code after}, or {@code before} for a delete) win when the image has it. The name then goes
 * through {@link TableNames} ({@code routing.lower-case}, {@code routing.rename}). A tombstone (a
 * null event or null payload, which Debezium sends after a delete for log compaction) routes
 * nowhere. Columns are inferred from the JSON values like plain JSON events (see {@link
 * TableRows}), unless the envelope carries its {@code schema}: then Debezium's logical types are
 * decoded and new columns get the types the schema declares ({@link DebeziumLogicalTypes}).
 */
public final class DebeziumEventRouter implements EventRouter {

  private final IngestSettings settings;
  private final TableRows rows;
  private final ChangeHistory history;
  private final ObjectMapper mapper = OwnerRecyclerPool.mapper();

  /**
   * @param schemaLoader the table's current schema from the catalog, empty when the table does not
   *     exist yet
   * @param resolver makes the table cover each schema inferred for it (creating it when absent)
   */
  DebeziumEventRouter(
      IngestSettings settings,
      Function<TableIdentifier, Optional<Schema>> schemaLoader,
      TableRows.SchemaResolver resolver) {
    this(settings, new TableRows(settings, schemaLoader, resolver));
  }

  /**
   * @param rows the routed tables' schemas and rows, shared by every router of the job's subtask
   *     (one schema cache per table, whatever format its events come in)
   */
  DebeziumEventRouter(IngestSettings settings, TableRows rows) {
    this.settings = settings;
    this.rows = rows;
    this.history = new ChangeHistory(settings, rows);
  }

  @Override
  public List<Routing> route(String payload) {
    try {
      return routeChecked(payload);
    } catch (RefusedRecordException e) {
      // A refusal deep in schema inference or table resolution (ADR 0018): the whole event.
      return List.of(e.rejected());
    }
  }

  private List<Routing> routeChecked(String payload) {
    JsonNode event;
    try {
      event = mapper.readTree(payload);
    } catch (JsonProcessingException e) {
      return List.of(
          new Routing.Rejected(
              DeadLetterReason.UNPARSEABLE_JSON, "not JSON: " + e.getOriginalMessage()));
    }
    if (event == null || event.isNull()) {
      return List.of();
    }
    if (!event.isObject()) {
      return List.of(
          new Routing.Rejected(
              DeadLetterReason.NOT_AN_OBJECT,
              "expected a JSON object, got " + event.getNodeType()));
    }
    DebeziumLogicalTypes.Declared declared = DebeziumLogicalTypes.Declared.NONE;
    JsonNode schema = null;
    if (!event.has("op") && event.has("payload")) {
      schema = event.get("schema");
      event = event.get("payload");
      if (event.isNull()) {
        return List.of();
      }
      if (!event.isObject()) {
        return List.of(
            new Routing.Rejected(
                DeadLetterReason.NOT_AN_OBJECT,
                "expected the envelope's 'payload' to be a JSON object, got "
                    + event.getNodeType()));
      }
      declared = DebeziumLogicalTypes.decode(schema, event);
    }
    JsonNode op = event.get("op");
    if (op == null && isFlattened(event)) {
      return flattened((ObjectNode) event, schema);
    }
    if (op == null || !op.isTextual()) {
      return List.of(
          new Routing.Rejected(
              DeadLetterReason.UNKNOWN_OPERATION,
              "CDC field 'op' is "
                  + (op == null ? "absent" : op.getNodeType() + ", not a string")
                  + "; expected one of c, r, u, d"));
    }
    return switch (op.asText()) {
      case "c", "r" ->
          history.with(
              upsert(event, op.asText(), declared),
              op.asText(),
              event.get("after"),
              declared.after(),
              sourceTs(event));
      case "u" ->
          history.with(
              update(event, declared), "u", event.get("after"), declared.after(), sourceTs(event));
      case "d" ->
          history.with(
              delete(event, declared),
              "d",
              event.get("before"),
              declared.before(),
              sourceTs(event));
      case "t" -> List.of(truncate(event));
      default ->
          List.of(
              new Routing.Rejected(
                  DeadLetterReason.UNKNOWN_OPERATION,
                  "CDC op '"
                      + TableRows.abbreviate(op.asText())
                      + "'"
                      + describe(op.asText())
                      + " is not supported; expected one of c, r, u, d"));
    };
  }

  private static String describe(String op) {
    return op.equals("m") ? " (message)" : "";
  }

  /**
   * A truncate is not applied (ADR 0008 §8): it becomes a dead letter of its own reason, so that
   * the operator sees it and empties the table knowingly.
   */
  private Routing.Rejected truncate(JsonNode event) {
    JsonNode table = event.path("source").path("table");
    return new Routing.Rejected(
        DeadLetterReason.TRUNCATE_NOT_APPLIED,
        "CDC op 't' (truncate"
            + (table.isTextual()
                ? " of source table '" + TableRows.abbreviate(table.asText()) + "'"
                : "")
            + ") is not applied: Firn never empties a table from a stream; the rows written before"
            + " it stay. Empty the table yourself if the truncate must reach it");
  }

  /** Prefix of the fields Debezium's {@code ExtractNewRecordState} adds ({@code __deleted}...). */
  private static final String ADDED = "__";

  /**
   * Whether {@code event} is a row flattened by Debezium's {@code ExtractNewRecordState}: no {@code
   * op}, but its {@code __deleted} (delete.handling.mode=rewrite) or {@code __op} (add.fields=op).
   */
  private static boolean isFlattened(JsonNode event) {
    return event.has(ADDED + "deleted") || event.has(ADDED + "op");
  }

  /**
   * A flattened row: deleted when {@code __op} is {@code d} or {@code __deleted} is true, else
   * upserted; the table is the routing field's when configured, else {@code __table} (or {@code
   * __source_table}); the {@code __} fields are no columns.
   */
  private List<Routing> flattened(ObjectNode event, @Nullable JsonNode schema) {
    Map<String, DeclaredColumn> declared = DebeziumLogicalTypes.decodeRow(schema, event);
    String op = event.path(ADDED + "op").asText("");
    JsonNode deleted = event.get(ADDED + "deleted");
    boolean delete =
        op.equals("d")
            || (deleted != null && (deleted.asText().equals("true") || deleted.asBoolean(false)));
    JsonNode tableName = event.get(ADDED + "table");
    if (tableName == null || !tableName.isTextual()) {
      tableName = event.get(ADDED + "source_table");
    }
    ObjectNode image = event.deepCopy();
    image.remove(
        image.properties().stream()
            .map(Map.Entry::getKey)
            .filter(name -> name.startsWith(ADDED))
            .toList());
    ObjectNode source = mapper.createObjectNode();
    if (tableName != null && tableName.isTextual()) {
      source.set("table", tableName);
    }
    ObjectNode change = mapper.createObjectNode();
    change.set("source", source);
    change.set(delete ? "before" : "after", image);
    DebeziumLogicalTypes.Declared images = new DebeziumLogicalTypes.Declared(declared, declared);
    JsonNode ts = event.get(ADDED + "source_ts_ms");
    return delete
        ? history.with(delete(change, images), "d", image, declared, ts)
        : history.with(upsert(change, "c", images), op.isEmpty() ? "u" : op, image, declared, ts);
  }

  /** The source's commit time of a change event (epoch ms), or a missing node. */
  private static JsonNode sourceTs(JsonNode event) {
    JsonNode ts = event.path("source").path("ts_ms");
    return ts.isMissingNode() ? event.path("ts_ms") : ts;
  }

  private List<Routing> upsert(JsonNode event, String op, DebeziumLogicalTypes.Declared declared) {
    JsonNode after = event.get("after");
    Routing.Rejected problem = checkImage(after, "after", op);
    if (problem != null) {
      return List.of(problem);
    }
    Target target = target(after, event);
    if (target.problem() != null) {
      return List.of(target.problem());
    }
    Routing.Rejected badKey = rows.checkKey(target.table(), after, " of 'after'", declared.after());
    if (badKey != null) {
      return List.of(badKey);
    }
    return List.of(rows.upsert(target.table(), after, declared.after()));
  }

  private List<Routing> update(JsonNode event, DebeziumLogicalTypes.Declared declared) {
    JsonNode after = event.get("after");
    Routing.Rejected problem = checkImage(after, "after", "u");
    if (problem != null) {
      return List.of(problem);
    }
    Target target = target(after, event);
    if (target.problem() != null) {
      return List.of(target.problem());
    }
    Routing.Rejected badKey = rows.checkKey(target.table(), after, " of 'after'", declared.after());
    if (badKey != null) {
      return List.of(badKey);
    }
    JsonNode before = event.get("before");
    if (before != null
        && before.isObject()
        && rows.checkKey(target.table(), before, " of 'before'", declared.before()) == null
        && !rows.sameKey(target.table(), before, after)) {
      Routing delete = rows.delete(target.table(), before, declared.before());
      if (delete instanceof Routing.Rejected) {
        return List.of(delete);
      }
      Routing upsert = rows.upsert(target.table(), after, declared.after());
      // All or nothing: an update whose new row is refused must not delete the old key either.
      return upsert instanceof Routing.Rejected ? List.of(upsert) : List.of(delete, upsert);
    }
    return List.of(rows.upsert(target.table(), after, declared.after()));
  }

  private List<Routing> delete(JsonNode event, DebeziumLogicalTypes.Declared declared) {
    JsonNode before = event.get("before");
    Routing.Rejected problem = checkImage(before, "before", "d");
    if (problem != null) {
      return List.of(problem);
    }
    Target target = target(before, event);
    if (target.problem() != null) {
      return List.of(target.problem());
    }
    Routing.Rejected badKey =
        rows.checkKey(target.table(), before, " of 'before'", declared.before());
    if (badKey != null) {
      return List.of(badKey);
    }
    return List.of(rows.delete(target.table(), before, declared.before()));
  }

  /** The image's problem (absent or not an object), or null. */
  private Routing.@Nullable Rejected checkImage(@Nullable JsonNode image, String name, String op) {
    if (image == null || !image.isObject()) {
      return new Routing.Rejected(
          DeadLetterReason.MISSING_ROW_IMAGE,
          "CDC op '"
              + op
              + "' needs '"
              + name
              + "' to be a JSON object, got "
              + (image == null
                  ? "absent"
                  : image.getNodeType().toString().toLowerCase(Locale.ROOT)));
    }
    return null;
  }

  /** The routed table's name, or why there is none ({@code problem} not null). */
  private record Target(@Nullable String name, Routing.@Nullable Rejected problem) {
    /** The table's name; only for a target whose {@link #problem()} is null. */
    String table() {
      return Objects.requireNonNull(name, "a target with a problem has no table");
    }
  }

  private Target target(JsonNode image, JsonNode event) {
    if (settings.fixedTable() != null) {
      return new Target(settings.fixedTable(), null);
    }
    String origin;
    JsonNode name = settings.routingField() == null ? null : image.get(settings.routingField());
    if (name != null && name.isTextual()) {
      origin = "routing field '" + settings.routingField() + "'";
    } else {
      JsonNode source = event.get("source");
      name = source == null ? null : source.get("table");
      if (name == null || !name.isTextual()) {
        return new Target(
            null,
            new Routing.Rejected(
                DeadLetterReason.MISSING_ROUTING_FIELD,
                settings.routingField() == null
                    ? "the event has no source.table"
                    : "routing field '"
                        + settings.routingField()
                        + "' is not a string in the row image and the event has no"
                        + " source.table"));
      }
      origin = "source.table";
    }
    TableRows.TableName table = rows.tableName(name.asText(), origin);
    return new Target(table.table(), table.problem());
  }
}
