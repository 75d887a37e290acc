/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import java.util.Set;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.jspecify.annotations.Nullable;

/** What to do with one event: write it to its table, or dead-letter it. */
public sealed interface Routing {

  /**
   * The event goes to {@code table}.
   *
   * @param schema the table's widest known schema, including columns this event adds; {@code row}
   *     is in this schema
   * @param row the full row to upsert, or (when {@code delete}) a row of {@code RowKind.DELETE}
   *     that holds only the key fields
   * @param keyFields the equality fields for the upsert
   * @param delete whether the row's key is to be deleted instead of upserted
   */
  record Routed(
      TableIdentifier table, Schema schema, RowData row, Set<String> keyFields, boolean delete)
      implements Routing {}

  /**
   * The event cannot be routed; {@code detail} names the field, the value and the rule.
   *
   * @param check for a {@code contract_violation}: the table and the contract check it broke
   *     ({@code <table>/<check>}), else null
   */
  record Rejected(DeadLetterReason reason, String detail, @Nullable String check)
      implements Routing {
    public Rejected(DeadLetterReason reason, String detail) {
      this(reason, detail, null);
    }
  }
}
