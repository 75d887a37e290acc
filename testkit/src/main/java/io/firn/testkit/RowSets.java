/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;

/**
 * Rows as multisets, to compare a table before and after an optimizing, or with the reference model
 * of a {@link CdcWriter}.
 *
 * <p>The canonical form of a row is {@code name=value} for every top-level column of the schema, in
 * schema order, joined by {@code ", "}; a column the row does not have is {@code null}. Example:
 * {@code id=7, region=eu-west, amount=12.5, payload=..., updated_at=3, note=null}.
 */
public final class RowSets {
  private RowSets() {}

  /**
   * Refreshes the table, reads all its live rows with {@code IcebergGenerics.read(table).build()}
   * (Iceberg's own application of equality and position deletes) and returns them as a multiset:
   * canonical row (in the table's current schema) → count.
   */
  public static Map<String, Long> read(Table table) {
    table.refresh();
    Schema schema = table.schema();
    Map<String, Long> result = new HashMap<>();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      for (Record row : rows) {
        result.merge(canonical(row, schema), 1L, Long::sum);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Failed to read " + table.name(), e);
    }
    return result;
  }

  /** The same multiset for the given rows, in the canonical form of the given schema. */
  public static Map<String, Long> of(Collection<? extends Record> rows, Schema schema) {
    Map<String, Long> result = new HashMap<>();
    for (Record row : rows) {
      result.merge(canonical(row, schema), 1L, Long::sum);
    }
    return result;
  }

  /** The canonical form of one row in the given schema. */
  public static String canonical(Record row, Schema schema) {
    StringBuilder text = new StringBuilder();
    for (Types.NestedField column : schema.columns()) {
      if (text.length() > 0) {
        text.append(", ");
      }
      text.append(column.name()).append('=').append(row.getField(column.name()));
    }
    return text.toString();
  }

  /** Locations of the table's live data and delete files, each once, after a refresh. */
  public static List<String> liveFiles(Table table) {
    table.refresh();
    Set<String> files = new LinkedHashSet<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        files.add(task.file().location());
        task.deletes().forEach(d -> files.add(d.location()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Failed to plan " + table.name(), e);
    }
    return List.copyOf(files);
  }
}
