/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import java.io.Serializable;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.jspecify.annotations.Nullable;

/**
 * How events are routed and written.
 *
 * @param namespace the Iceberg namespace every routed table and the dead-letter table live in
 * @param routingField the field whose string value names the table (default {@code event_type} for
 *     JSON); for change events null routes by the envelope's {@code source.table} only, a field
 *     routes by the row image's field first; unused when {@code fixedTable} is set
 * @param fixedTable the one table every event goes to, or null to route by {@code routingField}
 * @param tables per-table settings, the first matching rule wins; {@link TableRule#DEFAULT} for
 *     tables no rule matches
 * @param deadLetterTable the dead-letter table's name inside {@code namespace}
 * @param writeParallelism writers per table ({@link Integer#MAX_VALUE}: all the sink has)
 * @param format how payloads are read (plain JSON or Debezium-style CDC)
 * @param tableNames how a routed name (the routing field's value or {@code source.table}) becomes
 *     the table's name
 * @param topicFormats other formats for the events of some Kafka topics, first match wins; events
 *     of other topics are read in {@code format} with {@code routingField}
 */
public record IngestSettings(
    String namespace,
    @Nullable String routingField,
    @Nullable String fixedTable,
    List<TableRule> tables,
    String deadLetterTable,
    int writeParallelism,
    EventFormat format,
    TableNames tableNames,
    List<TopicFormat> topicFormats)
    implements Serializable {

  private static final long serialVersionUID = 1L;

  /** What a routed table name must look like (lower-case identifier, as in SQL). */
  public static final Pattern TABLE_NAME = Pattern.compile("[a-z][a-z0-9_]{0,127}");

  /** Settings whose routed names are the table names as they are. */
  public IngestSettings(
      String namespace,
      @Nullable String routingField,
      @Nullable String fixedTable,
      List<TableRule> tables,
      String deadLetterTable,
      int writeParallelism,
      EventFormat format) {
    this(
        namespace,
        routingField,
        fixedTable,
        tables,
        deadLetterTable,
        writeParallelism,
        format,
        TableNames.AS_IS);
  }

  /** Settings that read every event in {@code format}. */
  public IngestSettings(
      String namespace,
      @Nullable String routingField,
      @Nullable String fixedTable,
      List<TableRule> tables,
      String deadLetterTable,
      int writeParallelism,
      EventFormat format,
      TableNames tableNames) {
    this(
        namespace,
        routingField,
        fixedTable,
        tables,
        deadLetterTable,
        writeParallelism,
        format,
        tableNames,
        List.of());
  }

  public IngestSettings {
    tables = List.copyOf(tables);
    topicFormats = topicFormats == null ? List.of() : List.copyOf(topicFormats);
    if (tableNames == null) {
      tableNames = TableNames.AS_IS;
    }
    if (namespace == null || namespace.isBlank()) {
      throw new IllegalArgumentException("ingest namespace must be set (e.g. 'events')");
    }
    if (fixedTable == null
        && format != EventFormat.DEBEZIUM
        && (routingField == null || routingField.isBlank())) {
      throw new IllegalArgumentException("ingest routing field must be set (e.g. 'event_type')");
    }
    if (fixedTable != null
        && (!TABLE_NAME.matcher(fixedTable).matches() || fixedTable.equals(deadLetterTable))) {
      throw new IllegalArgumentException(
          "fixed table '"
              + fixedTable
              + "' must match "
              + TABLE_NAME.pattern()
              + " and not be the dead-letter table");
    }
    if (deadLetterTable == null || !TABLE_NAME.matcher(deadLetterTable).matches()) {
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
   * Defaults: routing field {@code event_type}, key {@code id} and upserts for every table, table
   * {@code dead_letters}, JSON events, two writers per table.
   */
  public static IngestSettings defaults(String namespace) {
    return new IngestSettings(
        namespace, "event_type", null, List.of(), "dead_letters", 2, EventFormat.JSON);
  }

  /** These settings with {@code newTables} as the per-table rules. */
  public IngestSettings withTables(List<TableRule> newTables) {
    return new IngestSettings(
        namespace,
        routingField,
        fixedTable,
        newTables,
        deadLetterTable,
        writeParallelism,
        format,
        tableNames,
        topicFormats);
  }

  /** These settings with another event format. */
  public IngestSettings withFormat(EventFormat newFormat) {
    return new IngestSettings(
        namespace,
        routingField,
        fixedTable,
        tables,
        deadLetterTable,
        writeParallelism,
        newFormat,
        tableNames,
        topicFormats);
  }

  /** These settings with another routing field (null: change events by source.table only). */
  public IngestSettings withRoutingField(@Nullable String field) {
    return new IngestSettings(
        namespace,
        field,
        fixedTable,
        tables,
        deadLetterTable,
        writeParallelism,
        format,
        tableNames,
        topicFormats);
  }

  /** These settings with another mapping of routed names to table names. */
  public IngestSettings withTableNames(TableNames names) {
    return new IngestSettings(
        namespace,
        routingField,
        fixedTable,
        tables,
        deadLetterTable,
        writeParallelism,
        format,
        names,
        topicFormats);
  }

  /** These settings with other formats for the events of some Kafka topics. */
  public IngestSettings withTopicFormats(List<TopicFormat> formats) {
    return new IngestSettings(
        namespace,
        routingField,
        fixedTable,
        tables,
        deadLetterTable,
        writeParallelism,
        format,
        tableNames,
        formats);
  }

  /**
   * The settings of the table named {@code table}: the change-history rule when it is a rule's
   * change-history table, else the first matching rule, else the default.
   */
  public TableRule table(String table) {
    // A change-history table first: a broader rule (say '*') must not make it an upsert table.
    for (TableRule rule : tables) {
      if (rule.historySource(table) != null) {
        return rule.historyRule();
      }
    }
    for (TableRule rule : tables) {
      if (rule.matches(table)) {
        return rule;
      }
    }
    return TableRule.DEFAULT;
  }

  /** The router for {@link #format()}, with the schemas as inferred (no catalog behind it). */
  public EventRouter router(Function<TableIdentifier, Optional<Schema>> schemaLoader) {
    return router(schemaLoader, TableRows.SchemaResolver.AS_INFERRED);
  }

  /**
   * The router for {@link #format()}.
   *
   * @param schemaLoader a table's current schema, empty when it does not exist
   * @param resolver makes a table cover each schema inferred for it (creating it when absent)
   */
  EventRouter router(
      Function<TableIdentifier, Optional<Schema>> schemaLoader, TableRows.SchemaResolver resolver) {
    TableRows rows = new TableRows(this, schemaLoader, resolver);
    if (topicFormats.isEmpty()) {
      return router(format, rows);
    }
    return new TopicFormatRouter(this, rows);
  }

  /** The router of these settings' {@code format}, writing through {@code rows}. */
  EventRouter router(EventFormat eventFormat, TableRows rows) {
    return switch (eventFormat) {
      case JSON -> new JsonEventRouter(this, rows);
      case DEBEZIUM -> new DebeziumEventRouter(this, rows);
    };
  }
}
