/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.spark;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.firn.core.catalog.CatalogSettings;
import io.firn.core.catalog.Catalogs;
import io.firn.core.protocol.TaskAssignment;
import io.firn.worker.remote.InThreadRunner;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.iceberg.catalog.Catalog;
import org.apache.spark.api.java.function.Function;

/**
 * Runs on a Spark executor: one leased {@link TaskAssignment} (JSON) in, its {@link TaskOutcome}
 * out, rewritten in the executor's thread as the in-thread runner does ({@link
 * InThreadRunner#rewrite}). Exceptions become a failure outcome instead of a failed Spark task, so
 * Spark does not retry the rewrite behind the server's back; the server decides about retries.
 */
final class RewriteFunction implements Function<String, TaskOutcome> {
  private static final long serialVersionUID = 1L;
  private static final ObjectMapper JSON =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  /** One connection per catalog and executor JVM, shared by its tasks. */
  private static final Map<String, Catalog> CATALOGS = new ConcurrentHashMap<>();

  private final String workerId;
  private final String catalogsJson;

  /**
   * @param workerId the driver's registration, written into the completion
   * @param catalogsJson the {@code CatalogSettings} list the server sent at registration, as JSON
   */
  RewriteFunction(String workerId, String catalogsJson) {
    this.workerId = workerId;
    this.catalogsJson = catalogsJson;
  }

  @Override
  public TaskOutcome call(String assignmentJson) {
    try {
      TaskAssignment assignment = JSON.readValue(assignmentJson, TaskAssignment.class);
      return new TaskOutcome(
          JSON.writeValueAsString(
              InThreadRunner.rewrite(assignment, catalog(assignment.catalog()), workerId)),
          null);
    } catch (JsonProcessingException | RuntimeException e) {
      return new TaskOutcome(null, e.toString());
    }
  }

  private Catalog catalog(String name) throws JsonProcessingException {
    String key = name + "\n" + catalogsJson;
    Catalog catalog = CATALOGS.get(key);
    if (catalog != null) {
      return catalog;
    }
    List<CatalogSettings> settings = JSON.readValue(catalogsJson, new TypeReference<>() {});
    for (CatalogSettings candidate : settings) {
      if (candidate.name().equals(name)) {
        return CATALOGS.computeIfAbsent(key, k -> Catalogs.connect(candidate));
      }
    }
    throw new IllegalStateException(
        "the server sent a task of catalog '" + name + "' but no settings for it");
  }
}
