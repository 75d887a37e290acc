/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.types.RowKind;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.jspecify.annotations.Nullable;

/**
 * Turns a row image (a JSON object) for a named table into a {@link Routing}: a row in the table's
 * widest known schema, or a key-only delete. Shared by the plain JSON and the CDC formats.
 *
 * <p>Inference is conservative and stable: JSON integers are {@code long} ({@code decimal(38, 0)}
 * beyond a long: exact, never a double), other numbers {@code double}, strings {@code string},
 * booleans {@code boolean}; nested objects and arrays are kept as their JSON text in a {@code
 * string} column. Where the event declares its fields' types (a Debezium envelope's schema, {@link
 * DeclaredColumn}), a new column takes the declared type, a column created with the table is
 * required where the source declares it so, an existing column is widened when the source's type
 * became wider (int to long, float to double, a decimal's precision) and made optional when the
 * source sends null for it; a declared type that is no widening of the column's leaves the column
 * as it is. A field never seen before becomes a new optional column (a null value adds nothing
 * until a typed value arrives). Values are always emitted in the column's current type (an integer
 * into a {@code double} column becomes a double); a value that would need a disallowed change (a
 * decimal into a {@code long} column, a number into a {@code string} column) is rejected, never
 * coerced (apache/iceberg#17024).
 *
 * <p>Not thread-safe: one instance per Flink subtask. The schema cache only grows; when an image
 * brings an unknown field the table's schema is re-read through {@code schemaLoader} first, so
 * columns another subtask added keep their type. Every schema this class infers for a table (on
 * first sight, and whenever an image brings new fields) goes through the {@link SchemaResolver},
 * which makes the table cover it and returns the table's own schema: rows are built in that.
 */
final class TableRows {

  /** Makes a table cover a schema inferred for it. */
  @FunctionalInterface
  interface SchemaResolver {
    /** Leaves the schemas as inferred (for tests without a catalog). */
    SchemaResolver AS_INFERRED = (table, wanted) -> wanted;

    /**
     * Creates {@code table} or brings its schema up to {@code wanted} (new columns, allowed
     * widenings) when needed.
     *
     * @return the schema to build {@code table}'s rows in: it has every column of {@code wanted}
     */
    Schema resolve(TableIdentifier table, Schema wanted);
  }

  /** The type of a new column whose first value is an integer beyond a long. */
  private static final Types.DecimalType BIG_INTEGER = Types.DecimalType.of(38, 0);

  private final IngestSettings settings;
  private final Function<TableIdentifier, Optional<Schema>> schemaLoader;
  private final SchemaResolver resolver;
  private final Map<TableIdentifier, Schema> schemas = new HashMap<>();
  // Per table name, looked up for every event: the rule, the identifier, the key set.
  private final Map<String, TableRule> rules = new HashMap<>();
  private final Map<String, TableIdentifier> identifiers = new HashMap<>();
  private final Map<String, Set<String>> keySets = new HashMap<>();
  private final Set<String> validNames = new HashSet<>();

  TableRows(
      IngestSettings settings,
      Function<TableIdentifier, Optional<Schema>> schemaLoader,
      SchemaResolver resolver) {
    this.settings = settings;
    this.schemaLoader = schemaLoader;
    this.resolver = resolver;
  }

  private final Map<String, String> mappedNames = new HashMap<>();

  /** A routed name's table, or why it cannot be one ({@code problem} not null). */
  record TableName(String table, Routing.@Nullable Rejected problem) {}

  /**
   * The table a routed {@code name} goes to ({@link TableNames}), checked.
   *
   * @param origin where the name came from, for the message (e.g. {@code source.table})
   */
  TableName tableName(String name, String origin) {
    String mapped = name;
    if (!settings.tableNames().asIs()) {
      mapped = mappedNames.get(name);
      if (mapped == null) {
        mapped = settings.tableNames().map(name);
        if (mappedNames.size() < 10_000) {
          mappedNames.put(name, mapped);
        }
      }
    }
    Routing.Rejected problem =
        checkTableName(
            mapped,
            mapped.equals(name) ? origin : origin + " = '" + abbreviate(name) + "' renamed, gives");
    return new TableName(mapped, problem);
  }

  /**
   * The table name's problem, or null when {@code name} may be a routed table.
   *
   * @param origin where the name came from, for the message (e.g. {@code routing field
   *     'event_type'})
   */
  Routing.@Nullable Rejected checkTableName(String name, String origin) {
    if (validNames.contains(name)) {
      return null;
    }
    if (!IngestSettings.TABLE_NAME.matcher(name).matches()
        || name.equals(settings.deadLetterTable())) {
      return new Routing.Rejected(
          DeadLetterReason.INVALID_TABLE_NAME,
          origin
              + " = '"
              + name
              + "' must match "
              + IngestSettings.TABLE_NAME.pattern()
              + " and not be the dead-letter table");
    }
    if (validNames.size() < 10_000) {
      validNames.add(name);
    }
    return null;
  }

  /**
   * The key fields' problem in {@code image}, or null when every key field is usable (always for
   * append tables: they have no key).
   */
  Routing.@Nullable Rejected checkKey(String table, JsonNode image, String where) {
    return checkKey(table, image, where, DeclaredColumn.NONE);
  }

  /**
   * The key fields' problem in {@code image}, whose fields' types are {@code declared}, or null
   * when every key field is usable.
   */
  Routing.@Nullable Rejected checkKey(
      String table, JsonNode image, String where, Map<String, DeclaredColumn> declared) {
    for (String key : keys(table)) {
      JsonNode value = image.get(key);
      if (value == null || value.isNull()) {
        return new Routing.Rejected(
            DeadLetterReason.MISSING_KEY,
            "key field '" + key + "'" + where + " is " + (value == null ? "absent" : "null"));
      }
      // An integer that fits a long: JSON decimals (1.5, but also 1.0 and 1e10) would make a
      // double key column, which Iceberg refuses as an identifier field (ADR 0018).
      if (!value.isTextual()
          && !(value.isIntegralNumber() && value.canConvertToLong())
          && !declaredKey(declared.get(key), value)) {
        return new Routing.Rejected(
            DeadLetterReason.INVALID_KEY,
            "key field '"
                + key
                + "'"
                + where
                + " = "
                + abbreviate(value.toString())
                + " must be a string or an integer of at most 64 bits");
      }
    }
    return null;
  }

  /**
   * Whether a key value that is neither a string nor a long has a declared type a key column can
   * have (a decimal, a date, a timestamp) and fits it.
   */
  private static boolean declaredKey(@Nullable DeclaredColumn declared, JsonNode value) {
    Type type = declared == null ? null : declared.type();
    return type != null && DeclaredColumn.canBeKey(type) && convert(type, value) != null;
  }

  /** Whether the key fields of two (checked) images are equal. */
  boolean sameKey(String table, JsonNode left, JsonNode right) {
    for (String key : keys(table)) {
      if (!left.get(key).equals(right.get(key))) {
        return false;
      }
    }
    return true;
  }

  /** An upsert of {@code image} (whose key was checked) into table {@code name}. */
  Routing upsert(String name, JsonNode image) {
    return upsert(name, image, DeclaredColumn.NONE);
  }

  /**
   * An upsert of {@code image} (whose key was checked), whose fields' types are {@code declared},
   * into table {@code name}.
   */
  Routing upsert(String name, JsonNode image, Map<String, DeclaredColumn> declared) {
    TableIdentifier table = identifier(name);
    List<ContractCheck> contract = rule(name).contract();
    if (!contract.isEmpty()) {
      Routing.Rejected violation = checkContract(table, contract, image);
      if (violation != null) {
        return violation;
      }
    }
    Schema schema = schemas.get(table);
    if (schema != null) {
      // The common case: nothing new in this event.
      Routing known = toKnownRow(table, schema, image, declared);
      if (known != null) {
        return known;
      }
    }
    Schema base; // the table's schema before this event, null for a new table
    Schema wanted;
    if (schema == null) {
      base = schemaLoader.apply(table).orElse(null);
      wanted =
          base != null
              ? widen(name, base, image, declared, false)
              : newTableSchema(name, image, declared);
    } else {
      // Another subtask may have added the column already: take the catalog's type for it.
      Schema cached = schema;
      base = schemaLoader.apply(table).map(current -> union(current, cached)).orElse(cached);
      wanted = widen(name, base, image, declared, false);
    }
    if (base != null && wanted != base) {
      checkAllowed(table, base, wanted);
    }
    schema = resolver.resolve(table, wanted);
    schemas.put(table, schema);
    return toRow(table, schema, image, declared);
  }

  /** The first check of the table's data contract {@code image} breaks, or null. */
  private static Routing.@Nullable Rejected checkContract(
      TableIdentifier table, List<ContractCheck> contract, JsonNode image) {
    for (ContractCheck check : contract) {
      String violation = check.violation(image);
      if (violation != null) {
        return new Routing.Rejected(
            DeadLetterReason.CONTRACT_VIOLATION,
            "contract check '" + check.name() + "' of " + table + ": " + violation,
            table.name() + "/" + check.name());
      }
    }
    return null;
  }

  /**
   * The key columns of {@code table}: the rule's primary key for upsert tables, none for append
   * tables (an identifier field would make Iceberg's writer replace rows of equal keys within a
   * checkpoint: appends keep every row).
   */
  private List<String> keys(String table) {
    TableRule rule = rule(table);
    return rule.upsert() ? rule.primaryKey() : List.of();
  }

  private TableRule rule(String table) {
    return rules.computeIfAbsent(table, settings::table);
  }

  private Set<String> keySet(String table) {
    return keySets.computeIfAbsent(
        table, t -> Collections.unmodifiableSet(new LinkedHashSet<>(keys(t))));
  }

  /**
   * A key-only delete of {@code image}'s key (checked) from table {@code name}. The image's other
   * fields add no columns: a delete needs only the key. A table seen for the first time is created
   * from the image, so that a stream may begin with deletes.
   */
  Routing delete(String name, JsonNode image) {
    return delete(name, image, DeclaredColumn.NONE);
  }

  /** A key-only delete of {@code image}'s key, whose fields' types are {@code declared}. */
  Routing delete(String name, JsonNode image, Map<String, DeclaredColumn> declared) {
    TableIdentifier table = identifier(name);
    Schema schema = schemas.get(table);
    if (schema == null) {
      schema =
          resolver.resolve(
              table,
              schemaLoader.apply(table).orElseGet(() -> newTableSchema(name, image, declared)));
      schemas.put(table, schema);
    }
    GenericRowData row = new GenericRowData(RowKind.DELETE, schema.columns().size());
    List<Types.NestedField> columns = schema.columns();
    for (String key : keys(name)) {
      for (int i = 0; i < columns.size(); i++) {
        Types.NestedField column = columns.get(i);
        if (column.name().equals(key)) {
          JsonNode value = image.get(key);
          Object converted = convert(column.type(), value);
          if (converted == null) {
            return incompatible(table, column, value);
          }
          row.setField(i, converted);
        }
      }
    }
    return new Routing.Routed(table, schema, row, keySet(name), true);
  }

  private TableIdentifier identifier(String name) {
    return identifiers.computeIfAbsent(
        name, n -> TableIdentifier.of(Namespace.of(settings.namespace()), n));
  }

  private static boolean hasNewFields(TableRule rule, Schema schema, JsonNode image) {
    for (Iterator<Map.Entry<String, JsonNode>> it = image.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      if (adds(rule, field.getValue()) && !hasColumn(schema, field.getKey())) {
        return true;
      }
    }
    return false;
  }

  private Schema newTableSchema(String name, JsonNode image, Map<String, DeclaredColumn> declared) {
    List<Types.NestedField> columns = new ArrayList<>();
    Set<Integer> identifiers = new HashSet<>();
    int id = 0;
    for (String key : keys(name)) {
      id++;
      DeclaredColumn keyColumn = declared.get(key);
      Type keyType = keyColumn == null ? null : keyColumn.type();
      columns.add(
          Types.NestedField.required(
              id,
              key,
              keyType != null && DeclaredColumn.canBeKey(keyType)
                  ? keyType
                  : infer(rule(name), key, image.get(key))));
      identifiers.add(id);
    }
    Schema keysOnly = new Schema(columns, identifiers);
    return widen(name, keysOnly, image, declared, true);
  }

  /**
   * Whether a new field of this value becomes a column: any non-null value with {@code nested:
   * json}; with {@code nested: columns} one that holds something typed ({@link
   * NestedColumns#typed}: not {@code []}, {@code {}}, {@code [null]}).
   */
  private static boolean adds(TableRule rule, JsonNode value) {
    return rule.nested() == NestedValues.JSON ? !value.isNull() : NestedColumns.typed(value);
  }

  /**
   * The type the source declares for a field, as the rule uses it: none for a struct, list or map
   * with {@code nested: json} (their values are JSON text).
   */
  private static @Nullable Type declaredType(TableRule rule, @Nullable DeclaredColumn source) {
    if (source == null || source.type() == null) {
      return null;
    }
    return source.type().isNestedType() && rule.nested() == NestedValues.JSON
        ? null
        : source.type();
  }

  /** Whether {@code schema} has a column {@code name} (Iceberg's lookup refuses an empty name). */
  private static boolean hasColumn(Schema schema, String name) {
    return !name.isEmpty() && schema.findField(name) != null;
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

  /**
   * The schema plus an optional column for each non-null field it lacks, in image order, and with
   * the changes {@code declared} asks of its columns (a wider type; optional when the source sends
   * null).
   *
   * @param creating whether the schema is a new table's: a new column the source declares required
   *     is required
   * @throws RefusedRecordException when a new field's name cannot be a column ({@link
   *     #columnNameProblem}) or its value does not fit its declared type
   */
  private Schema widen(
      String table,
      Schema schema,
      JsonNode image,
      Map<String, DeclaredColumn> declared,
      boolean creating) {
    List<Types.NestedField> columns = new ArrayList<>(schema.columns());
    boolean changed = !declared.isEmpty() && applyDeclared(table, schema, columns, image, declared);
    TableRule rule = rule(table);
    boolean nested = rule.nested() == NestedValues.COLUMNS;
    NestedColumns.Growth growth =
        new NestedColumns.Growth(identifier(table), rule, schema.highestFieldId());
    Map<String, String> added = null;
    for (Iterator<Map.Entry<String, JsonNode>> it = image.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      String name = field.getKey();
      if (nested && !field.getValue().isNull() && hasColumn(schema, name)) {
        // A struct, list or map column grows with the value's new sub-fields.
        int index = columnIndex(columns, name);
        Types.NestedField column = columns.get(index);
        if (column.type().isNestedType()) {
          Type type =
              NestedColumns.evolve(
                  growth,
                  name,
                  column.type(),
                  field.getValue(),
                  declaredType(rule, declared.get(name)),
                  1);
          if (type != column.type()) {
            columns.set(
                index,
                Types.NestedField.of(
                    column.fieldId(), column.isOptional(), name, type, column.doc()));
            changed = true;
          }
        }
      } else if (adds(rule, field.getValue()) && !hasColumn(schema, name)) {
        if (added == null) {
          added = new HashMap<>();
        }
        String problem = columnNameProblem(name, schema, added);
        if (problem != null) {
          throw new RefusedRecordException(
              DeadLetterReason.INVALID_FIELD_NAME,
              "field '" + abbreviate(name) + "' of " + identifier(table) + " " + problem);
        }
        added.put(name.toLowerCase(Locale.ROOT), name);
        growth.added(name);
        DeclaredColumn source = declared.get(name);
        // adds() saw a typed value, so a new column's type is never null.
        Type type =
            nested
                ? Objects.requireNonNull(
                    NestedColumns.evolve(
                        growth, name, null, field.getValue(), declaredType(rule, source), 1))
                : typeOf(rule, name, field.getValue(), declaredType(rule, source));
        if (type.isPrimitiveType() && convert(type, field.getValue()) == null) {
          throw new RefusedRecordException(
              DeadLetterReason.INCOMPATIBLE_TYPE,
              "field '"
                  + abbreviate(name)
                  + "' = "
                  + abbreviate(field.getValue().toString())
                  + " does not fit "
                  + (source != null && source.type() != null ? "its declared type " : "type ")
                  + type
                  + " (new column of "
                  + identifier(table)
                  + ")");
        }
        boolean required = creating && source != null && !source.optional();
        columns.add(Types.NestedField.of(growth.newId(), !required, name, type));
      }
    }
    if (added == null && !changed) {
      return schema;
    }
    try {
      return new Schema(columns, schema.identifierFieldIds());
    } catch (IllegalArgumentException | ValidationException e) {
      // A top-level column named like another's nested path ('a.b' next to a struct 'a' with 'b').
      throw new RefusedRecordException(
          DeadLetterReason.INVALID_FIELD_NAME,
          "the event's fields cannot be columns of "
              + identifier(table)
              + " together: "
              + abbreviate(String.valueOf(e.getMessage())),
          e);
    }
  }

  private static int columnIndex(List<Types.NestedField> columns, String name) {
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).name().equals(name)) {
        return i;
      }
    }
    throw new IllegalStateException("no column '" + name + "' in " + columns);
  }

  /**
   * Refuses the event when its rule does not allow turning {@code base} into {@code wanted} ({@code
   * schema-changes}).
   *
   * @throws RefusedRecordException {@code schema_change_refused}, naming the first change refused
   */
  private void checkAllowed(TableIdentifier table, Schema base, Schema wanted) {
    TableRule rule = rule(table.name());
    if (rule.schemaChanges() == SchemaChanges.EVOLVE) {
      return;
    }
    for (Types.NestedField column : wanted.columns()) {
      Types.NestedField before = base.findField(column.name());
      String change = null;
      if (before == null) {
        change =
            rule.schemaChanges() == SchemaChanges.FREEZE
                ? "field '" + abbreviate(column.name()) + "' would be a new column"
                : null;
      } else {
        change = NestedColumns.refusedChange(column.name(), before, column, rule.schemaChanges());
      }
      if (change != null) {
        throw new RefusedRecordException(
            DeadLetterReason.SCHEMA_CHANGE_REFUSED,
            change
                + " of "
                + table
                + ", whose rule '"
                + rule.match()
                + "' has schema-changes: "
                + rule.schemaChanges().code());
      }
    }
  }

  /**
   * Replaces in {@code columns} (those of {@code schema}) each column whose declared type widens it
   * (for a value present in {@code image}) or which the source now sends as null although it is
   * required (not a key).
   *
   * @return whether a column changed
   */
  private boolean applyDeclared(
      String table,
      Schema schema,
      List<Types.NestedField> columns,
      JsonNode image,
      Map<String, DeclaredColumn> declared) {
    boolean changed = false;
    for (int i = 0; i < columns.size(); i++) {
      Types.NestedField column = columns.get(i);
      DeclaredColumn source = declared.get(column.name());
      if (source == null) {
        continue;
      }
      JsonNode value = image.get(column.name());
      boolean present = value != null && !value.isNull();
      Type declaredType = source.type();
      Type type =
          present
                  && declaredType != null
                  && followsWidening(table, column.type(), declaredType, value)
              ? declaredType
              : column.type();
      boolean relax = !present && relaxes(schema, column, source);
      if (type != column.type() || relax) {
        columns.set(
            i,
            Types.NestedField.of(
                column.fieldId(), column.isOptional() || relax, column.name(), type, column.doc()));
        changed = true;
      }
    }
    return changed;
  }

  /**
   * Whether a column of type {@code current} takes the wider type the source declares for {@code
   * value}: always under {@code schema-changes: evolve} (the source's column became wider), else
   * only when the value does not fit the column (and the rule then refuses the event).
   */
  private boolean followsWidening(
      String table, Type current, @Nullable Type declared, JsonNode value) {
    return DeclaredColumn.widens(current, declared)
        && (rule(table).schemaChanges() == SchemaChanges.EVOLVE || convert(current, value) == null);
  }

  /** Whether the required, non-key {@code column} must become optional: the source says so. */
  private static boolean relaxes(Schema schema, Types.NestedField column, DeclaredColumn source) {
    return source.optional()
        && column.isRequired()
        && !schema.identifierFieldIds().contains(column.fieldId());
  }

  /**
   * Why {@code name} cannot become a new column of {@code schema}, next to the new columns {@code
   * added} (by lower-case name), or null when it can.
   */
  private static @Nullable String columnNameProblem(
      String name, Schema schema, Map<String, String> added) {
    if (name.isBlank()) {
      // Flink's RowType refuses the name: the writers could never open the table again.
      return "is empty or blank: Flink's writers refuse such a column name";
    }
    if (MetadataColumns.isMetadataColumn(name)) {
      // Iceberg's readers add the metadata column to a read schema; with a data column of that
      // name a table with position deletes cannot be read ("multiple fields for name _pos").
      return "is the name of an Iceberg metadata column: readers would confuse the two";
    }
    Types.NestedField existing = schema.caseInsensitiveFindField(name);
    String other = existing != null ? "column '" + existing.name() + "'" : null;
    if (other == null && added.containsKey(name.toLowerCase(Locale.ROOT))) {
      other = "field '" + added.get(name.toLowerCase(Locale.ROOT)) + "' of the same event";
    }
    if (other != null) {
      return "differs only by case from "
          + other
          + ": case-insensitive engines (Spark, Trino) cannot tell them apart";
    }
    return null;
  }

  /**
   * A new column's type: {@code timestamptz} for the rule's timestamp fields, else the declared
   * type, else the type inferred from the value.
   */
  static Type typeOf(TableRule rule, String field, JsonNode value, @Nullable Type declared) {
    if (declared != null && !rule.timestampFields().contains(field)) {
      return declared;
    }
    return infer(rule, field, value);
  }

  private static Type infer(TableRule rule, String field, JsonNode value) {
    if (rule.timestampFields().contains(field)) {
      return Types.TimestampType.withZone();
    }
    if (value.isIntegralNumber() && value.canConvertToLong()) {
      return Types.LongType.get();
    }
    if (value.isIntegralNumber()) {
      // Beyond a long: exact as a decimal, never a double that drops digits. More than 38 digits
      // fit no Iceberg type: the value is refused when its column would be added.
      return BIG_INTEGER;
    }
    if (value.isNumber()) {
      return Types.DoubleType.get();
    }
    if (value.isBoolean()) {
      return Types.BooleanType.get();
    }
    return Types.StringType.get();
  }

  private Routing toRow(
      TableIdentifier table, Schema schema, JsonNode image, Map<String, DeclaredColumn> declared) {
    Routing routing = toKnownRow(table, schema, image, declared);
    if (routing == null) {
      throw new IllegalStateException(
          "schema " + schema.schemaId() + " of " + table + " lacks a field of " + image);
    }
    return routing;
  }

  /**
   * The image's row in {@code schema}, or null when the image has a non-null field {@code schema}
   * lacks or {@code declared} asks for a change of a column (a rejection comes first: an event
   * whose known columns are wrong changes no column).
   */
  private @Nullable Routing toKnownRow(
      TableIdentifier table, Schema schema, JsonNode image, Map<String, DeclaredColumn> declared) {
    List<Types.NestedField> columns = schema.columns();
    GenericRowData row = new GenericRowData(columns.size());
    int present = 0;
    boolean change = false;
    for (int i = 0; i < columns.size(); i++) {
      Types.NestedField column = columns.get(i);
      JsonNode value = image.get(column.name());
      DeclaredColumn source = declared.isEmpty() ? null : declared.get(column.name());
      if (value == null || value.isNull()) {
        if (column.isRequired() && source != null && relaxes(schema, column, source)) {
          change = true;
        } else if (column.isRequired()) {
          return new Routing.Rejected(
              DeadLetterReason.MISSING_KEY,
              "required column '" + column.name() + "' of " + table + " is absent or null");
        }
        continue;
      }
      present++;
      Type type = column.type();
      if (type.isNestedType()) {
        Object converted = nestedValue(table, column, value, source);
        if (converted == NestedColumns.CHANGE) {
          change = true;
        } else {
          row.setField(i, converted);
        }
        continue;
      }
      Type declaredType = source == null ? null : source.type();
      if (declaredType != null && followsWidening(table.name(), type, declaredType, value)) {
        type = declaredType;
        change = true;
      }
      Object converted = convert(type, value);
      if (converted == null) {
        return incompatible(table, column, value);
      }
      row.setField(i, converted);
    }
    // Fields beyond the columns found: nulls, or new fields.
    if (change || (image.size() > present && hasNewFields(rule(table.name()), schema, image))) {
      return null;
    }
    return new Routing.Routed(table, schema, row, keySet(table.name()), false);
  }

  /**
   * The value of a struct, list or map column, or {@link NestedColumns#CHANGE} when the column must
   * grow first (a new sub-field, a wider type the source declares, a required field sent null).
   */
  private Object nestedValue(
      TableIdentifier table,
      Types.NestedField column,
      JsonNode value,
      @Nullable DeclaredColumn source) {
    TableRule rule = rule(table.name());
    Type declared = declaredType(rule, source);
    if (declared != null
        && declared.isNestedType()
        && NestedColumns.evolve(
                new NestedColumns.Growth(table, rule, Integer.MAX_VALUE / 2),
                column.name(),
                column.type(),
                value,
                declared,
                1)
            != column.type()) {
      return NestedColumns.CHANGE;
    }
    return NestedColumns.value(table, column.name(), column.type(), value);
  }

  private static Routing.Rejected incompatible(
      TableIdentifier table, Types.NestedField column, JsonNode value) {
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

  /** The value in the column's type, or null when it does not fit. */
  static @Nullable Object convert(Type type, JsonNode value) {
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
      case TIMESTAMP:
        return timestamp((Types.TimestampType) type, value);
      case DECIMAL:
        return decimal((Types.DecimalType) type, value);
      case DATE:
        return date(value);
      case BINARY:
        return binary(value);
      default:
        return null;
    }
  }

  /** The number exactly in {@code decimal(p, s)}: no rounding, no digits beyond p. */
  private static @Nullable DecimalData decimal(Types.DecimalType type, JsonNode value) {
    if (!value.isNumber()) {
      return null;
    }
    BigDecimal exact;
    try {
      exact = value.decimalValue().setScale(type.scale());
    } catch (ArithmeticException e) {
      return null; // more fractional digits than the scale: it would round
    }
    return exact.precision() > type.precision()
        ? null
        : DecimalData.fromBigDecimal(exact, type.precision(), type.scale());
  }

  /** Days since the epoch from an ISO-8601 date. */
  private static @Nullable Integer date(JsonNode value) {
    if (!value.isTextual()) {
      return null;
    }
    try {
      return Math.toIntExact(LocalDate.parse(value.asText()).toEpochDay());
    } catch (DateTimeParseException | ArithmeticException e) {
      return null;
    }
  }

  /** The bytes of a base64 string (Kafka Connect's JSON form of {@code bytes}). */
  private static byte @Nullable [] binary(JsonNode value) {
    if (!value.isTextual()) {
      return null;
    }
    try {
      return Base64.getDecoder().decode(value.asText());
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /**
   * A timestamp from an ISO-8601 string (with an offset or {@code Z} for {@code timestamptz};
   * without one, or with {@code Z} read as UTC wall-clock time, for {@code timestamp}) or from
   * epoch milliseconds; null when it is neither.
   */
  private static @Nullable TimestampData timestamp(Types.TimestampType type, JsonNode value) {
    Instant instant;
    if (value.isIntegralNumber() && value.canConvertToLong()) {
      instant = Instant.ofEpochMilli(value.longValue());
    } else if (!value.isTextual()) {
      return null;
    } else {
      try {
        instant =
            type.shouldAdjustToUTC()
                ? OffsetDateTime.parse(value.asText()).toInstant()
                : localTimestamp(value.asText());
      } catch (DateTimeParseException e) {
        return null;
      }
    }
    if (!fitsMicros(instant)) {
      // Flink's TimestampData and Iceberg's writers would overflow silently: a wrong timestamp.
      return null;
    }
    return type.shouldAdjustToUTC()
        ? TimestampData.fromInstant(instant)
        : TimestampData.fromLocalDateTime(LocalDateTime.ofInstant(instant, ZoneOffset.UTC));
  }

  /** A wall-clock time without zone, or one in UTC ({@code ...Z}), as the instant of UTC time. */
  private static Instant localTimestamp(String text) {
    try {
      return LocalDateTime.parse(text).toInstant(ZoneOffset.UTC);
    } catch (DateTimeParseException e) {
      if (text.endsWith("Z")) {
        return Instant.parse(text);
      }
      throw e;
    }
  }

  /**
   * Whether {@code instant} has a {@code long} of microseconds since the epoch, as Iceberg stores.
   */
  private static boolean fitsMicros(Instant instant) {
    try {
      Math.addExact(
          Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1_000);
      return true;
    } catch (ArithmeticException e) {
      return false;
    }
  }

  static String abbreviate(String text) {
    return text.length() <= 200 ? text : text.substring(0, 200) + "...";
  }
}
