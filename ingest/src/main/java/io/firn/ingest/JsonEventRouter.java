package io.firn.ingest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Turns a JSON object into a {@link Routing}: the table from the routing field, the key fields, and
 * a row in the table's widest known schema.
 *
 * <p>Inference is conservative and stable: JSON integers are {@code long}, other numbers {@code
 * double}, strings {@code string}, booleans {@code boolean}; nested objects and arrays are kept as
 * their JSON text in a {@code string} column. A field never seen before becomes a new optional
 * column (a null value adds nothing until a typed value arrives). Values are always emitted in the
 * column's current type (an integer into a {@code double} column becomes a double); a value that
 * would need a disallowed change (a decimal into a {@code long} column, a number into a {@code
 * string} column) is rejected, never coerced (DESIGN.md §8, Iceberg #17024).
 *
 * <p>Not thread-safe: one instance per Flink subtask. The schema cache only grows; when an event
 * brings an unknown field the table's schema is re-read through {@code schemaLoader} first, so
 * columns another subtask added keep their type.
 */
public final class JsonEventRouter {

  private final IngestSettings settings;
  private final Function<TableIdentifier, Optional<Schema>> schemaLoader;
  private final ObjectMapper mapper = new ObjectMapper();
  private final Map<TableIdentifier, Schema> schemas = new HashMap<>();

  /**
   * @param schemaLoader the table's current schema from the catalog, empty when the table does not
   *     exist yet
   */
  public JsonEventRouter(
      IngestSettings settings, Function<TableIdentifier, Optional<Schema>> schemaLoader) {
    this.settings = settings;
    this.schemaLoader = schemaLoader;
  }

  public Routing route(String payload) {
    JsonNode event;
    try {
      event = mapper.readTree(payload);
    } catch (JsonProcessingException e) {
      return new Routing.Rejected(
          DeadLetterReason.UNPARSEABLE_JSON, "not JSON: " + e.getOriginalMessage());
    }
    if (event == null || !event.isObject()) {
      return new Routing.Rejected(
          DeadLetterReason.NOT_AN_OBJECT,
          "expected a JSON object, got " + (event == null ? "nothing" : event.getNodeType()));
    }
    JsonNode routing = event.get(settings.routingField());
    if (routing == null || !routing.isTextual()) {
      return new Routing.Rejected(
          DeadLetterReason.MISSING_ROUTING_FIELD,
          "routing field '"
              + settings.routingField()
              + "' is "
              + (routing == null ? "absent" : routing.getNodeType() + ", not a string"));
    }
    String tableName = routing.asText();
    if (!IngestSettings.TABLE_NAME.matcher(tableName).matches()
        || tableName.equals(settings.deadLetterTable())) {
      return new Routing.Rejected(
          DeadLetterReason.INVALID_TABLE_NAME,
          "routing field '"
              + settings.routingField()
              + "' = '"
              + tableName
              + "' must match "
              + IngestSettings.TABLE_NAME.pattern()
              + " and not be the dead-letter table");
    }
    for (String key : settings.keyFields()) {
      JsonNode value = event.get(key);
      if (value == null || value.isNull()) {
        return new Routing.Rejected(
            DeadLetterReason.MISSING_KEY,
            "key field '" + key + "' is " + (value == null ? "absent" : "null"));
      }
      if (!value.isTextual() && !value.canConvertToLong()) {
        return new Routing.Rejected(
            DeadLetterReason.INVALID_KEY,
            "key field '" + key + "' = " + value + " must be a string or an integer");
      }
    }
    TableIdentifier table = TableIdentifier.of(Namespace.of(settings.namespace()), tableName);
    Schema schema = schemas.get(table);
    if (schema == null) {
      schema = schemaLoader.apply(table).orElseGet(() -> newTableSchema(event));
    } else if (hasNewFields(schema, event)) {
      // Another subtask may have added the column already: take the catalog's type for it.
      Schema cached = schema;
      schema = schemaLoader.apply(table).map(current -> union(current, cached)).orElse(cached);
    }
    schema = widen(schema, event);
    schemas.put(table, schema);
    return toRow(table, schema, event);
  }

  private static boolean hasNewFields(Schema schema, JsonNode event) {
    for (Iterator<Map.Entry<String, JsonNode>> it = event.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      if (!field.getValue().isNull() && schema.findField(field.getKey()) == null) {
        return true;
      }
    }
    return false;
  }

  private Schema newTableSchema(JsonNode event) {
    List<Types.NestedField> columns = new ArrayList<>();
    Set<Integer> identifiers = new HashSet<>();
    int id = 0;
    for (String key : settings.keyFields()) {
      id++;
      columns.add(Types.NestedField.required(id, key, infer(event.get(key))));
      identifiers.add(id);
    }
    Schema keysOnly = new Schema(columns, identifiers);
    return widen(keysOnly, event);
  }

  /** {@code base} plus the columns of {@code extra} it lacks (as optional, in extra's order). */
  private static Schema union(Schema base, Schema extra) {
    List<Types.NestedField> columns = new ArrayList<>(base.columns());
    int nextId = base.highestFieldId();
    for (Types.NestedField column : extra.columns()) {
      if (base.findField(column.name()) == null) {
        nextId++;
        columns.add(Types.NestedField.optional(nextId, column.name(), column.type()));
      }
    }
    return columns.size() == base.columns().size()
        ? base
        : new Schema(columns, base.identifierFieldIds());
  }

  /** The schema plus an optional column for each non-null field it lacks, in event order. */
  private static Schema widen(Schema schema, JsonNode event) {
    List<Types.NestedField> columns = new ArrayList<>(schema.columns());
    int nextId = schema.highestFieldId();
    boolean changed = false;
    for (Iterator<Map.Entry<String, JsonNode>> it = event.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      if (!field.getValue().isNull() && schema.findField(field.getKey()) == null) {
        nextId++;
        columns.add(Types.NestedField.optional(nextId, field.getKey(), infer(field.getValue())));
        changed = true;
      }
    }
    return changed ? new Schema(columns, schema.identifierFieldIds()) : schema;
  }

  private static Type infer(JsonNode value) {
    if (value.isIntegralNumber() && value.canConvertToLong()) {
      return Types.LongType.get();
    }
    if (value.isNumber()) {
      return Types.DoubleType.get();
    }
    if (value.isBoolean()) {
      return Types.BooleanType.get();
    }
    return Types.StringType.get();
  }

  private Routing toRow(TableIdentifier table, Schema schema, JsonNode event) {
    List<Types.NestedField> columns = schema.columns();
    GenericRowData row = new GenericRowData(columns.size());
    for (int i = 0; i < columns.size(); i++) {
      Types.NestedField column = columns.get(i);
      JsonNode value = event.get(column.name());
      if (value == null || value.isNull()) {
        if (column.isRequired()) {
          return new Routing.Rejected(
              DeadLetterReason.MISSING_KEY,
              "required column '" + column.name() + "' of " + table + " is absent or null");
        }
        continue;
      }
      Object converted = convert(column.type(), value);
      if (converted == null) {
        return new Routing.Rejected(
            DeadLetterReason.INCOMPATIBLE_TYPE,
            "field '"
                + column.name()
                + "' = "
                + abbreviate(value.toString())
                + " ("
                + value.getNodeType()
                + ") does not fit column type "
                + column.type()
                + " of "
                + table
                + " without a disallowed change");
      }
      row.setField(i, converted);
    }
    return new Routing.Routed(table, schema, row, new LinkedHashSet<>(settings.keyFields()));
  }

  /** The value in the column's type, or null when it does not fit. */
  private static Object convert(Type type, JsonNode value) {
    JsonNodeType node = value.getNodeType();
    switch (type.typeId()) {
      case LONG:
        return value.isIntegralNumber() && value.canConvertToLong() ? value.longValue() : null;
      case INTEGER:
        return value.isIntegralNumber() && value.canConvertToInt() ? value.intValue() : null;
      case DOUBLE:
        return value.isNumber() ? value.doubleValue() : null;
      case FLOAT:
        return value.isNumber() ? value.floatValue() : null;
      case BOOLEAN:
        return value.isBoolean() ? value.booleanValue() : null;
      case STRING:
        if (value.isTextual()) {
          return StringData.fromString(value.asText());
        }
        return node == JsonNodeType.OBJECT || node == JsonNodeType.ARRAY
            ? StringData.fromString(value.toString())
            : null;
      default:
        return null;
    }
  }

  static String abbreviate(String text) {
    return text.length() <= 200 ? text : text.substring(0, 200) + "...";
  }
}
