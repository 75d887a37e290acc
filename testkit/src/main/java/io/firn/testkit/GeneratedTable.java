/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.testkit;

import org.apache.iceberg.Table;

/** A table made by {@link CdcTableGenerator}, and the writer that continues its CDC stream. */
public final class GeneratedTable {
  private final Table table;
  private final CdcWriter writer;
  private final CdcTableSpec spec;

  GeneratedTable(Table table, CdcWriter writer, CdcTableSpec spec) {
    this.table = table;
    this.writer = writer;
    this.spec = spec;
  }

  /**
   * The table, loaded from the catalog after the last generated commit. The writer commits through
   * its own instance: call {@link Table#refresh()} to see its later commits ({@link
   * RowSets#read(Table)} refreshes by itself).
   */
  public Table table() {
    return table;
  }

  /** The writer that continues the same stream (same random sequence and reference model). */
  public CdcWriter writer() {
    return writer;
  }

  /** The spec the table was generated from. */
  public CdcTableSpec spec() {
    return spec;
  }
}
