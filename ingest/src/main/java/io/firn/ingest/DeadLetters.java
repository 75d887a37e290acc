/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import java.time.Instant;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/** The dead-letter table's schema and rows: what came in, why it was refused, and when. */
public final class DeadLetters {
  private DeadLetters() {}

  public static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "payload", Types.StringType.get()),
          Types.NestedField.required(2, "reason", Types.StringType.get()),
          Types.NestedField.optional(3, "detail", Types.StringType.get()),
          Types.NestedField.required(4, "received_at", Types.TimestampType.withZone()),
          Types.NestedField.optional(
              5,
              "source_position",
              Types.StringType.get(),
              "where the event came from: topic/partition/offset for Kafka, generator/index for"
                  + " the built-in generator"));

  public static RowData row(IngestEvent event, Routing.Rejected rejected, Instant receivedAt) {
    return GenericRowData.of(
        StringData.fromString(event.payload() == null ? "" : event.payload()),
        StringData.fromString(rejected.reason().code()),
        StringData.fromString(rejected.detail()),
        TimestampData.fromInstant(receivedAt),
        event.source() == null ? null : StringData.fromString(event.source()));
  }
}
