/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.executor;

import java.util.Arrays;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.types.Types;
import org.jspecify.annotations.Nullable;

/**
 * Extracts equality keys from records as plain Java values with value equality: the value itself
 * for a one-column key (strings normalised to {@link String}), a list for composite keys, and
 * {@link #NULL} for a null one-column key.
 */
final class Keys {
  static final Object NULL = new Object();

  private final int[] positions;

  private Keys(int[] positions) {
    this.positions = positions;
  }

  /**
   * @throws UnsupportedOperationException when a key column is not a top-level column of the read
   *     schema
   */
  static Keys of(Schema readSchema, List<Integer> fieldIds) {
    List<Types.NestedField> columns = readSchema.columns();
    int[] positions = new int[fieldIds.size()];
    for (int i = 0; i < positions.length; i++) {
      int id = fieldIds.get(i);
      positions[i] = -1;
      for (int c = 0; c < columns.size(); c++) {
        if (columns.get(c).fieldId() == id) {
          positions[i] = c;
        }
      }
      if (positions[i] < 0) {
        throw new UnsupportedOperationException(
            "equality field id "
                + id
                + " is not a top-level column of "
                + readSchema.asStruct()
                + "; nested equality keys are not supported");
      }
    }
    return new Keys(positions);
  }

  /** The raw value of a one-column key (null stays null). */
  @Nullable Object value(StructLike row) {
    return row.get(positions[0], Object.class);
  }

  Object key(StructLike row) {
    if (positions.length == 1) {
      Object value = normalise(row.get(positions[0], Object.class));
      return value == null ? NULL : value;
    }
    Object[] values = new Object[positions.length];
    for (int i = 0; i < positions.length; i++) {
      values[i] = normalise(row.get(positions[i], Object.class));
    }
    return Arrays.asList(values);
  }

  /** Null stays null: a one-column key stands for it by {@code NULL}, a list holds it. */
  private static @Nullable Object normalise(@Nullable Object value) {
    if (value == null) {
      return null;
    }
    if (value instanceof Integer i) {
      // Same key and hash as the long the primitive map stores (ints are promotable to longs).
      return Long.valueOf(i);
    }
    return value instanceof CharSequence && !(value instanceof String) ? value.toString() : value;
  }
}
