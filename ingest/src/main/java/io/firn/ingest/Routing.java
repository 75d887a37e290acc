package io.firn.ingest;

import java.util.Set;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;

/** What to do with one event: write it to its table, or dead-letter it. */
public sealed interface Routing {

  /**
   * The event goes to {@code table}.
   *
   * @param schema the table's widest known schema, including columns this event adds; {@code row}
   *     is in this schema
   * @param keyFields the equality fields for the upsert
   */
  record Routed(TableIdentifier table, Schema schema, RowData row, Set<String> keyFields)
      implements Routing {}

  /** The event cannot be routed; {@code detail} names the field, the value and the rule. */
  record Rejected(DeadLetterReason reason, String detail) implements Routing {}
}
