package io.firn.ingest;

import java.io.Serializable;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * How events are routed.
 *
 * @param namespace the Iceberg namespace every routed table and the dead-letter table live in
 * @param routingField the JSON field whose string value names the table (default {@code
 *     event_type})
 * @param keyFields the primary-key fields; they become the tables' identifier and equality fields
 * @param deadLetterTable the dead-letter table's name inside {@code namespace}
 * @param writeParallelism writers per table ({@link Integer#MAX_VALUE}: all the sink has)
 * @param format how payloads are read (plain JSON or Debezium-style CDC)
 */
public record IngestSettings(
    String namespace,
    String routingField,
    List<String> keyFields,
    String deadLetterTable,
    int writeParallelism,
    EventFormat format)
    implements Serializable {

  private static final long serialVersionUID = 1L;

  /** What a routed table name must look like (lower-case identifier, as in SQL). */
  public static final Pattern TABLE_NAME = Pattern.compile("[a-z][a-z0-9_]{0,127}");

  public IngestSettings {
    keyFields = List.copyOf(keyFields);
    if (namespace == null || namespace.isBlank()) {
      throw new IllegalArgumentException("ingest namespace must be set (e.g. 'events')");
    }
    if (routingField == null || routingField.isBlank()) {
      throw new IllegalArgumentException("ingest routing field must be set (e.g. 'event_type')");
    }
    if (keyFields.isEmpty()) {
      throw new IllegalArgumentException("ingest key fields must name at least one field");
    }
    if (!TABLE_NAME.matcher(deadLetterTable).matches()) {
      throw new IllegalArgumentException(
          "dead-letter table '" + deadLetterTable + "' must match " + TABLE_NAME.pattern());
    }
    if (format == null) {
      throw new IllegalArgumentException("ingest format must be set (json or debezium)");
    }
    if (writeParallelism < 1) {
      throw new IllegalArgumentException(
          "write parallelism " + writeParallelism + " must be at least 1");
    }
  }

  /**
   * Defaults: routing field {@code event_type}, key {@code id}, table {@code dead_letters}, JSON
   * events, two writers per table.
   */
  public static IngestSettings defaults(String namespace) {
    return new IngestSettings(
        namespace, "event_type", List.of("id"), "dead_letters", 2, EventFormat.JSON);
  }

  /** These settings with another event format. */
  public IngestSettings withFormat(EventFormat newFormat) {
    return new IngestSettings(
        namespace, routingField, keyFields, deadLetterTable, writeParallelism, newFormat);
  }

  /** The router for {@link #format()}. */
  public EventRouter router(Function<TableIdentifier, Optional<Schema>> schemaLoader) {
    return switch (format) {
      case JSON -> new JsonEventRouter(this, schemaLoader);
      case DEBEZIUM -> new DebeziumEventRouter(this, schemaLoader);
    };
  }
}
