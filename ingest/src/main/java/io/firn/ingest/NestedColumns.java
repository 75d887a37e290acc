/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.jspecify.annotations.Nullable;

/**
 * JSON objects and arrays as Iceberg {@code struct}, {@code list} and {@code map} columns ({@code
 * nested: columns}, ADR 0008 §15): the type a nested value needs (inferred, or guided by what the
 * source declares), how a column's nested type grows when a later value carries a new sub-field,
 * the value as Flink's {@code GenericRowData} / {@code GenericArrayData} / {@code GenericMapData},
 * and which of a rule's {@code schema-changes} a nested change is.
 *
 * <p>A path names a field by its dotted field names from the top-level column ({@code
 * customer.address.zip}); list elements and map values add no segment ({@code items.sku} for {@code
 * items: list<struct<sku>>}).
 *
 * <ul>
 *   <li>An object is a struct, or a {@code map<string, V>} when its path is one of the rule's
 *       {@code map-fields} (or the source declares a map); an array is a {@code list<E>}. Every
 *       nested field, element and map value Firn creates is optional.
 *   <li>A value gives no type while it holds nothing typed: {@code null}, {@code []}, {@code {}},
 *       {@code [null]}, {@code {"a": null}}. Such a value adds no column or sub-field (as a null
 *       does), so an empty array never fixes a wrong element type.
 *   <li>The elements of one new array (the values of one new map) must agree on a type: integers
 *       and other numbers make {@code double}, objects merge into one struct; anything else (a
 *       number and a string, an object and a scalar) is {@code incompatible_type}.
 *   <li>Nesting deeper than {@link #MAX_DEPTH} levels, or an event adding more than {@link
 *       #MAX_NEW_FIELDS} fields, is {@code schema_limit_exceeded}.
 *   <li>A column that exists keeps its kind: a struct takes objects only, a list arrays only; a
 *       {@code string} column takes an object or array as its JSON text.
 * </ul>
 */
final class NestedColumns {
  private NestedColumns() {}

  /** The deepest nesting of objects and arrays a column may have. */
  static final int MAX_DEPTH = 16;

  /** The most fields (top-level columns and nested fields) one event may add to a table. */
  static final int MAX_NEW_FIELDS = 1000;

  /** Marks a value that needs a change of its column's type before it can be written. */
  static final Object CHANGE = new Object();

  /**
   * The schema growth of one event: the rule it follows, where new field ids come from, how many
   * fields it added.
   */
  static final class Growth {
    private final TableIdentifier table;
    private final TableRule rule;
    private int nextId;
    private int added;

    /**
     * @param highestId the highest field id the table's schema has: new ids follow it
     */
    Growth(TableIdentifier table, TableRule rule, int highestId) {
      this.table = table;
      this.rule = rule;
      this.nextId = highestId;
    }

    /** The id of a new field. */
    int newId() {
      return ++nextId;
    }

    /** The highest id given so far. */
    int highestId() {
      return nextId;
    }

    /** Counts one new field at {@code path}; refuses the event beyond {@link #MAX_NEW_FIELDS}. */
    void added(String path) {
      if (++added > MAX_NEW_FIELDS) {
        throw new RefusedRecordException(
            DeadLetterReason.SCHEMA_LIMIT_EXCEEDED,
            "the event would add more than "
                + MAX_NEW_FIELDS
                + " fields to "
                + table
                + " (the last one '"
                + TableRows.abbreviate(path)
                + "'): name free-form objects in the rule's map-fields, or use nested: json");
      }
    }
  }

  /**
   * Whether {@code value} holds something typed (see the class comment): whether it adds a column
   * or sub-field when it is new. Beyond {@link #MAX_DEPTH} levels a value counts as typed, so that
   * the depth limit refuses it instead of dropping it silently.
   */
  static boolean typed(JsonNode value) {
    return typed(value, 0);
  }

  private static boolean typed(JsonNode value, int depth) {
    if (value == null || value.isNull()) {
      return false;
    }
    if (!value.isContainerNode()) {
      return true;
    }
    if (depth >= MAX_DEPTH) {
      return true;
    }
    for (JsonNode element : value) {
      if (typed(element, depth + 1)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The type a column (or nested field) at {@code path} must have to hold {@code value}: {@code
   * current} itself when it holds the value as it is, a grown copy (new sub-fields, a wider
   * declared type, an optional field that was required) when it must change, a new type when {@code
   * current} is null; null when {@code current} is null and the value holds nothing typed.
   *
   * @param declared the type the source declares for the field, or null
   * @param depth the nesting level of {@code value} (1 for a top-level column's value)
   * @throws RefusedRecordException when the value cannot be held ({@code incompatible_type}), a new
   *     sub-field's name cannot be a field ({@code invalid_field_name}) or a limit is exceeded
   *     ({@code schema_limit_exceeded})
   */
  static @Nullable Type evolve(
      Growth growth,
      String path,
      @Nullable Type current,
      JsonNode value,
      @Nullable Type declared,
      int depth) {
    return evolve(growth, path, current, value, declared, depth, false, false);
  }

  /**
   * {@link #evolve}, where {@code fresh} says that {@code current} is this event's own: the type of
   * the earlier elements of a new array (values of a new map), which later ones may widen to {@code
   * double} or refuse as mixed ({@link #unify}); and {@code mapValue} that {@code value} is a value
   * of a map, which shares the map's path but is no map field itself.
   */
  private static @Nullable Type evolve(
      Growth growth,
      String path,
      @Nullable Type current,
      @Nullable JsonNode value,
      @Nullable Type declared,
      int depth,
      boolean fresh,
      boolean mapValue) {
    if (value == null || value.isNull()) {
      return current;
    }
    if (fresh && current != null && !sameKind(current, value)) {
      return unify(growth, path, current, value, declared);
    }
    if (current != null && current.isPrimitiveType()) {
      // Values are converted later (or refused); only a declared widening changes the type.
      return declared != null && followsWidening(growth, current, declared, value)
          ? declared
          : current;
    }
    if (current == null
        && (!value.isContainerNode() || (declared != null && declared.isPrimitiveType()))) {
      Type type = TableRows.typeOf(growth.rule, path, value, declared);
      if (TableRows.convert(type, value) == null) {
        throw new RefusedRecordException(
            DeadLetterReason.INCOMPATIBLE_TYPE,
            "field '"
                + TableRows.abbreviate(path)
                + "' = "
                + TableRows.abbreviate(value.toString())
                + " does not fit "
                + (declared != null ? "its declared type " : "type ")
                + type
                + (depth == 1 ? " (new column of " : " (new field of ")
                + growth.table
                + ")");
      }
      return type;
    }
    if (depth > MAX_DEPTH) {
      throw new RefusedRecordException(
          DeadLetterReason.SCHEMA_LIMIT_EXCEEDED,
          "field '"
              + TableRows.abbreviate(path)
              + "' of "
              + growth.table
              + " nests objects and arrays deeper than "
              + MAX_DEPTH
              + " levels");
    }
    if (value.isObject()) {
      if (current == null) {
        boolean map =
            declared != null
                ? declared.isMapType()
                : !mapValue && growth.rule.mapFields().contains(path);
        return map
            ? map(growth, path, null, value, declaredMap(declared), depth, fresh)
            : struct(growth, path, null, value, declaredStruct(declared), depth, fresh);
      }
      if (current.isStructType()) {
        return struct(
            growth, path, current.asStructType(), value, declaredStruct(declared), depth, fresh);
      }
      if (current.isMapType()) {
        return map(growth, path, current.asMapType(), value, declaredMap(declared), depth, fresh);
      }
    } else if (current == null || current.isListType()) {
      return list(
          growth,
          path,
          current == null ? null : current.asListType(),
          value,
          declared != null && declared.isListType() ? declared.asListType() : null,
          depth,
          fresh);
    }
    throw incompatible(growth.table, path, current, value);
  }

  private static Types.@Nullable StructType declaredStruct(@Nullable Type declared) {
    return declared != null && declared.isStructType() ? declared.asStructType() : null;
  }

  private static Types.@Nullable MapType declaredMap(@Nullable Type declared) {
    return declared != null && declared.isMapType() ? declared.asMapType() : null;
  }

  /** Whether a field of type {@code current} takes the wider type the source declares. */
  private static boolean followsWidening(
      Growth growth, Type current, Type declared, JsonNode value) {
    return DeclaredColumn.widens(current, declared)
        && (growth.rule.schemaChanges() == SchemaChanges.EVOLVE
            || TableRows.convert(current, value) == null);
  }

  private static @Nullable Type struct(
      Growth growth,
      String path,
      Types.@Nullable StructType current,
      JsonNode value,
      Types.@Nullable StructType declared,
      int depth,
      boolean fresh) {
    List<Types.NestedField> fields =
        current == null ? new ArrayList<>() : new ArrayList<>(current.fields());
    boolean changed = false;
    // A required field (of a table made elsewhere) the source sends null or leaves out: optional.
    for (int i = 0; i < fields.size(); i++) {
      Types.NestedField field = fields.get(i);
      if (field.isRequired() && !present(value.get(field.name()))) {
        fields.set(i, withType(field, field.type(), true));
        changed = true;
      }
    }
    Map<String, String> added = null;
    for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = it.next();
      String name = entry.getKey();
      JsonNode sub = entry.getValue();
      if (sub.isNull()) {
        continue;
      }
      String subPath = path + "." + name;
      Type declaredSub = declaredField(declared, name);
      int index = indexOf(fields, name);
      if (index >= 0) {
        Types.NestedField field = fields.get(index);
        // Null only for a new field: an existing field's type evolves into a type.
        Type type =
            Objects.requireNonNull(
                evolve(growth, subPath, field.type(), sub, declaredSub, depth + 1, fresh, false));
        if (type != field.type()) {
          fields.set(index, withType(field, type, field.isOptional()));
          changed = true;
        }
        continue;
      }
      Type type = evolve(growth, subPath, null, sub, declaredSub, depth + 1);
      if (type == null) {
        continue;
      }
      if (added == null) {
        added = new HashMap<>();
      }
      String problem = nameProblem(name, fields, added);
      if (problem != null) {
        throw new RefusedRecordException(
            DeadLetterReason.INVALID_FIELD_NAME,
            "field '" + TableRows.abbreviate(subPath) + "' of " + growth.table + " " + problem);
      }
      added.put(name.toLowerCase(Locale.ROOT), name);
      growth.added(subPath);
      fields.add(Types.NestedField.optional(growth.newId(), name, type));
      changed = true;
    }
    if (current == null) {
      return fields.isEmpty() ? null : Types.StructType.of(fields);
    }
    return changed ? Types.StructType.of(fields) : current;
  }

  private static @Nullable Type declaredField(Types.@Nullable StructType declared, String name) {
    if (declared == null) {
      return null;
    }
    Types.NestedField field = declared.field(name);
    return field == null ? null : field.type();
  }

  private static int indexOf(List<Types.NestedField> fields, String name) {
    for (int i = 0; i < fields.size(); i++) {
      if (fields.get(i).name().equals(name)) {
        return i;
      }
    }
    return -1;
  }

  private static Types.NestedField withType(Types.NestedField field, Type type, boolean optional) {
    return Types.NestedField.of(field.fieldId(), optional, field.name(), type, field.doc());
  }

  /**
   * Why {@code name} cannot be a new nested field next to {@code fields} and the fields {@code
   * added} by this value (lower-case name to name), or null when it can.
   */
  private static @Nullable String nameProblem(
      String name, List<Types.NestedField> fields, Map<String, String> added) {
    if (name.isBlank()) {
      return "is empty or blank: Flink's writers refuse such a field name";
    }
    if (name.indexOf('.') >= 0) {
      return "has a '.' in its name: Iceberg names nested fields by dotted paths, so it would be"
          + " ambiguous";
    }
    String other = null;
    for (Types.NestedField field : fields) {
      if (field.name().equalsIgnoreCase(name)) {
        other = "field '" + field.name() + "'";
      }
    }
    if (other == null && added.containsKey(name.toLowerCase(Locale.ROOT))) {
      other = "field '" + added.get(name.toLowerCase(Locale.ROOT)) + "' of the same object";
    }
    return other == null
        ? null
        : "differs only by case from "
            + other
            + ": case-insensitive engines (Spark, Trino) cannot tell them apart";
  }

  private static @Nullable Type list(
      Growth growth,
      String path,
      Types.@Nullable ListType current,
      JsonNode value,
      Types.@Nullable ListType declared,
      int depth,
      boolean fresh) {
    Type element = current == null ? null : current.elementType();
    Type declaredElement = declared == null ? null : declared.elementType();
    boolean relax = false;
    for (JsonNode item : value) {
      if (item.isNull()) {
        relax |= current != null && current.isElementRequired();
        continue;
      }
      element =
          evolve(
              growth,
              path,
              element,
              item,
              declaredElement,
              depth + 1,
              current == null || fresh,
              false);
    }
    if (current == null) {
      return element == null ? null : Types.ListType.ofOptional(growth.newId(), element);
    }
    if (element == current.elementType() && !relax) {
      return current;
    }
    return current.isElementOptional() || relax
        ? Types.ListType.ofOptional(current.elementId(), element)
        : Types.ListType.ofRequired(current.elementId(), element);
  }

  private static @Nullable Type map(
      Growth growth,
      String path,
      Types.@Nullable MapType current,
      JsonNode value,
      Types.@Nullable MapType declared,
      int depth,
      boolean fresh) {
    Type valueType = current == null ? null : current.valueType();
    Type declaredValue = declared == null ? null : declared.valueType();
    boolean relax = false;
    for (JsonNode item : value) {
      if (item.isNull()) {
        relax |= current != null && current.isValueRequired();
        continue;
      }
      valueType =
          evolve(
              growth,
              path,
              valueType,
              item,
              declaredValue,
              depth + 1,
              current == null || fresh,
              true);
    }
    if (current == null) {
      if (valueType == null) {
        return null;
      }
      int keyId = growth.newId();
      return Types.MapType.ofOptional(keyId, growth.newId(), Types.StringType.get(), valueType);
    }
    if (valueType == current.valueType() && !relax) {
      return current;
    }
    return current.isValueOptional() || relax
        ? Types.MapType.ofOptional(current.keyId(), current.valueId(), current.keyType(), valueType)
        : Types.MapType.ofRequired(
            current.keyId(), current.valueId(), current.keyType(), valueType);
  }

  /** Whether {@code value} is of the kind of {@code type}: an object of a struct or map, etc. */
  private static boolean sameKind(Type type, JsonNode value) {
    if (type.isPrimitiveType()) {
      return false;
    }
    return value.isArray() ? type.isListType() : value.isObject() && !type.isListType();
  }

  /**
   * The one type of a primitive {@code item} and the type {@code soFar} of the earlier elements of
   * a new array (values of a new map): the same type, or {@code double} for integers and other
   * numbers; anything else mixes types and is refused.
   */
  private static Type unify(
      Growth growth, String path, Type soFar, JsonNode item, @Nullable Type declared) {
    if (soFar.isPrimitiveType() && (!item.isContainerNode() || declared != null)) {
      Type type = TableRows.typeOf(growth.rule, path, item, declared);
      if (type.equals(soFar)) {
        return soFar;
      }
      if (isNumber(type) && isNumber(soFar)) {
        return Types.DoubleType.get();
      }
    }
    throw new RefusedRecordException(
        DeadLetterReason.INCOMPATIBLE_TYPE,
        "field '"
            + TableRows.abbreviate(path)
            + "' = "
            + TableRows.abbreviate(item.toString())
            + " mixes "
            + describe(soFar)
            + " and "
            + item.getNodeType().toString().toLowerCase(Locale.ROOT)
            + " values: the elements of an array (values of a map) need one type (new field of "
            + growth.table
            + "; nested: json keeps such values as JSON text)");
  }

  private static boolean isNumber(Type type) {
    return type.typeId() == Type.TypeID.LONG || type.typeId() == Type.TypeID.DOUBLE;
  }

  private static String describe(Type type) {
    return type.isStructType() ? "object" : type.isListType() ? "array" : type.toString();
  }

  private static boolean present(JsonNode value) {
    return value != null && !value.isNull();
  }

  /**
   * {@code value} (not null) in {@code type}: a {@code GenericRowData} for a struct (fields the
   * value lacks are null), a {@code GenericArrayData} for a list, a {@code GenericMapData} for a
   * map (string keys), Flink's value of a primitive otherwise; {@link #CHANGE} when the type must
   * grow first (a typed sub-field it lacks, a null for a required field).
   *
   * @throws RefusedRecordException {@code incompatible_type} naming the path
   */
  static Object value(TableIdentifier table, String path, Type type, JsonNode value) {
    switch (type.typeId()) {
      case STRUCT:
        {
          if (!value.isObject()) {
            throw incompatible(table, path, type, value);
          }
          List<Types.NestedField> fields = type.asStructType().fields();
          GenericRowData row = new GenericRowData(fields.size());
          int present = 0;
          for (int i = 0; i < fields.size(); i++) {
            Types.NestedField field = fields.get(i);
            JsonNode sub = value.get(field.name());
            if (!present(sub)) {
              if (field.isRequired()) {
                return CHANGE;
              }
              continue;
            }
            present++;
            Object converted = value(table, path + "." + field.name(), field.type(), sub);
            if (converted == CHANGE) {
              return CHANGE;
            }
            row.setField(i, converted);
          }
          if (value.size() > present) {
            for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
              Map.Entry<String, JsonNode> entry = it.next();
              if (type.asStructType().field(entry.getKey()) == null && typed(entry.getValue())) {
                return CHANGE;
              }
            }
          }
          return row;
        }
      case LIST:
        {
          if (!value.isArray()) {
            throw incompatible(table, path, type, value);
          }
          Types.ListType list = type.asListType();
          Object[] elements = new Object[value.size()];
          for (int i = 0; i < elements.length; i++) {
            JsonNode item = value.get(i);
            if (!present(item)) {
              if (list.isElementRequired()) {
                return CHANGE;
              }
              continue;
            }
            Object converted = value(table, path, list.elementType(), item);
            if (converted == CHANGE) {
              return CHANGE;
            }
            elements[i] = converted;
          }
          return new GenericArrayData(elements);
        }
      case MAP:
        {
          if (!value.isObject()) {
            throw incompatible(table, path, type, value);
          }
          Types.MapType map = type.asMapType();
          Map<Object, Object> entries = new HashMap<>();
          for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> entry = it.next();
            Object key = TableRows.convert(map.keyType(), TextNode.valueOf(entry.getKey()));
            if (key == null) {
              throw incompatible(table, path, map.keyType(), TextNode.valueOf(entry.getKey()));
            }
            JsonNode item = entry.getValue();
            Object converted = null;
            if (present(item)) {
              converted = value(table, path, map.valueType(), item);
              if (converted == CHANGE) {
                return CHANGE;
              }
            } else if (map.isValueRequired()) {
              return CHANGE;
            }
            entries.put(key, converted);
          }
          return new GenericMapData(entries);
        }
      default:
        {
          Object converted = TableRows.convert(type, value);
          if (converted == null) {
            throw incompatible(table, path, type, value);
          }
          return converted;
        }
    }
  }

  /** The refusal of a value at {@code path} that does not fit {@code type}. */
  static RefusedRecordException incompatible(
      TableIdentifier table, String path, @Nullable Type type, JsonNode value) {
    Routing.Rejected rejected = incompatibleValue(table, path, type, value);
    return new RefusedRecordException(rejected.reason(), rejected.detail());
  }

  /** The dead letter of a value at {@code path} that does not fit {@code type}. */
  static Routing.Rejected incompatibleValue(
      TableIdentifier table, String path, @Nullable Type type, JsonNode value) {
    return new Routing.Rejected(
        DeadLetterReason.INCOMPATIBLE_TYPE,
        "field '"
            + TableRows.abbreviate(path)
            + "' = "
            + TableRows.abbreviate(value.toString())
            + " ("
            + value.getNodeType()
            + ") does not fit type "
            + TableRows.abbreviate(String.valueOf(type))
            + " of "
            + table
            + " without a disallowed change");
  }

  /**
   * The first change from field {@code before} to {@code after} (the same field, at {@code path})
   * that {@code allowed} refuses, described, or null when it allows all of them.
   */
  static @Nullable String refusedChange(
      String path, Types.NestedField before, Types.NestedField after, SchemaChanges allowed) {
    if (allowed == SchemaChanges.EVOLVE) {
      return null;
    }
    if (before.isRequired() && after.isOptional()) {
      return "column '" + TableRows.abbreviate(path) + "' would become optional";
    }
    return refusedChange(path, before.type(), after.type(), allowed);
  }

  private static @Nullable String refusedChange(
      String path, Type before, Type after, SchemaChanges allowed) {
    if (before.equals(after)) {
      return null;
    }
    if (before.isStructType() && after.isStructType()) {
      for (Types.NestedField field : after.asStructType().fields()) {
        Types.NestedField old = before.asStructType().field(field.fieldId());
        String subPath = path + "." + field.name();
        String change =
            old == null
                ? (allowed == SchemaChanges.FREEZE
                    ? "field '" + TableRows.abbreviate(subPath) + "' would be a new nested field"
                    : null)
                : refusedChange(subPath, old, field, allowed);
        if (change != null) {
          return change;
        }
      }
      return null;
    }
    if (before.isListType() && after.isListType()) {
      if (before.asListType().isElementRequired() && after.asListType().isElementOptional()) {
        return "the elements of '" + TableRows.abbreviate(path) + "' would become optional";
      }
      return refusedChange(
          path, before.asListType().elementType(), after.asListType().elementType(), allowed);
    }
    if (before.isMapType() && after.isMapType()) {
      if (before.asMapType().isValueRequired() && after.asMapType().isValueOptional()) {
        return "the values of '" + TableRows.abbreviate(path) + "' would become optional";
      }
      return refusedChange(
          path, before.asMapType().valueType(), after.asMapType().valueType(), allowed);
    }
    return "column '"
        + TableRows.abbreviate(path)
        + "' would widen from "
        + before
        + " to "
        + after;
  }

  /**
   * Whether a field of type {@code existing} holds every value of type {@code wanted}: the same
   * primitive or a wider one, and for nested types every field of {@code wanted} by name (optional
   * where {@code wanted} is), recursively. Field ids do not matter: a table assigns its own.
   */
  static boolean covers(Type existing, Type wanted) {
    if (wanted.isPrimitiveType()) {
      return existing.equals(wanted)
          || (existing.isPrimitiveType()
              && TypeUtil.isPromotionAllowed(wanted, existing.asPrimitiveType()));
    }
    if (wanted.isStructType()) {
      if (!existing.isStructType()) {
        return false;
      }
      for (Types.NestedField field : wanted.asStructType().fields()) {
        Types.NestedField other = existing.asStructType().field(field.name());
        if (other == null || !covers(other, field)) {
          return false;
        }
      }
      return true;
    }
    if (wanted.isListType()) {
      return existing.isListType()
          && (existing.asListType().isElementOptional() || wanted.asListType().isElementRequired())
          && covers(existing.asListType().elementType(), wanted.asListType().elementType());
    }
    return existing.isMapType()
        && (existing.asMapType().isValueOptional() || wanted.asMapType().isValueRequired())
        && covers(existing.asMapType().keyType(), wanted.asMapType().keyType())
        && covers(existing.asMapType().valueType(), wanted.asMapType().valueType());
  }

  /** Whether field {@code existing} holds every value of field {@code wanted} ({@link #covers}). */
  static boolean covers(Types.NestedField existing, Types.NestedField wanted) {
    return (existing.isOptional() || wanted.isRequired()) && covers(existing.type(), wanted.type());
  }
}
