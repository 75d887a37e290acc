/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Plain JSON events: each event is one JSON object that upserts its row into the table named by the
 * routing field (schema inference and evolution: {@link TableRows}).
 */
public final class JsonEventRouter implements EventRouter {

  private final IngestSettings settings;
  private final TableRows rows;
  private final ChangeHistory history;

  /** Where a routed name comes from, for messages (made once, not per event). */
  private final String routingOrigin;

  private final ObjectMapper mapper = OwnerRecyclerPool.mapper();

  /**
   * @param schemaLoader the table's current schema from the catalog, empty when the table does not
   *     exist yet
   * @param resolver makes the table cover each schema inferred for it (creating it when absent)
   */
  JsonEventRouter(
      IngestSettings settings,
      Function<TableIdentifier, Optional<Schema>> schemaLoader,
      TableRows.SchemaResolver resolver) {
    this(settings, new TableRows(settings, schemaLoader, resolver));
  }

  /**
   * @param rows the routed tables' schemas and rows, shared by every router of the job's subtask
   *     (one schema cache per table, whatever format its events come in)
   */
  JsonEventRouter(IngestSettings settings, TableRows rows) {
    this.settings = settings;
    this.rows = rows;
    this.routingOrigin = "routing field '" + settings.routingField() + "'";
    this.history = new ChangeHistory(settings, rows);
  }

  @Override
  public List<Routing> route(String payload) {
    try {
      return routeOne(payload);
    } catch (RefusedRecordException e) {
      // A refusal deep in schema inference or table resolution (ADR 0018).
      return List.of(e.rejected());
    }
  }

  private List<Routing> routeOne(String payload) {
    JsonNode event;
    try {
      event = mapper.readTree(payload);
    } catch (JsonProcessingException e) {
      return List.of(
          new Routing.Rejected(
              DeadLetterReason.UNPARSEABLE_JSON, "not JSON: " + e.getOriginalMessage()));
    }
    if (event == null || !event.isObject()) {
      return List.of(
          new Routing.Rejected(
              DeadLetterReason.NOT_AN_OBJECT,
              "expected a JSON object, got " + (event == null ? "nothing" : event.getNodeType())));
    }
    String tableName = settings.fixedTable();
    if (tableName == null) {
      JsonNode routing = event.get(settings.routingField());
      if (routing == null || !routing.isTextual()) {
        return List.of(
            new Routing.Rejected(
                DeadLetterReason.MISSING_ROUTING_FIELD,
                "routing field '"
                    + settings.routingField()
                    + "' is "
                    + (routing == null ? "absent" : routing.getNodeType() + ", not a string")));
      }
      TableRows.TableName name = rows.tableName(routing.asText(), routingOrigin);
      if (name.problem() != null) {
        return List.of(name.problem());
      }
      tableName = name.table();
    }
    Routing.Rejected badKey = rows.checkKey(tableName, event, "");
    if (badKey != null) {
      return List.of(badKey);
    }
    return history.with(List.of(rows.upsert(tableName, event)), "u", event, Map.of(), null);
  }
}
