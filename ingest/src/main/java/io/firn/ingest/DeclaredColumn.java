/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import java.util.Map;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.jspecify.annotations.Nullable;

/**
 * What an event's own schema says about one of its fields (a Debezium envelope's Kafka Connect
 * schema, ADR 0008 §1): the Iceberg type the field's values have at the source, and whether the
 * source allows it to be null. Inference from JSON values is the fallback where nothing is
 * declared.
 *
 * @param type the field's type, or null when the schema gives none Firn keeps (a decimal of
 *     variable scale); a struct, array or map is its Iceberg type with placeholder field ids (ADR
 *     0008 §15), which a rule with {@code nested: json} ignores (JSON text)
 * @param optional whether the source allows null; a field the schema does not mark required is
 *     optional
 */
record DeclaredColumn(@Nullable Type type, boolean optional) {

  /** No declared types: plain JSON, or a change event without its schema. */
  static final Map<String, DeclaredColumn> NONE = Map.of();

  /**
   * Whether a column of type {@code current} must become {@code declared} for the source's values:
   * an allowed Iceberg promotion (int to long, float to double, a decimal's precision raised).
   */
  static boolean widens(Type current, @Nullable Type declared) {
    return declared != null
        && !declared.equals(current)
        && current.isPrimitiveType()
        && declared.isPrimitiveType()
        && TypeUtil.isPromotionAllowed(current, declared.asPrimitiveType());
  }

  /** Whether a column of this type can be an identifier (key) field: no floating point. */
  static boolean canBeKey(@Nullable Type type) {
    return type != null
        && type.isPrimitiveType()
        && type.typeId() != Type.TypeID.FLOAT
        && type.typeId() != Type.TypeID.DOUBLE;
  }
}
