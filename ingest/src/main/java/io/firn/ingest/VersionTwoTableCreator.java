/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.flink.sink.dynamic.TableCreator;

/**
 * Creates routed tables pinned to {@code format-version=2} (ARCHITECTURE.md, "Committing next to
 * live writers") with the configured properties; the sink's default creator passes no properties at
 * all. Creates the namespace when missing, and loads the table when another writer created it
 * first.
 */
public final class VersionTwoTableCreator implements TableCreator {
  private static final long serialVersionUID = 1L;

  private final Map<String, String> properties;
  private final IngestSettings settings;

  /** Tables with {@code properties} only (no per-table rules). */
  public VersionTwoTableCreator(Map<String, String> properties) {
    this(properties, IngestSettings.defaults("unused"));
  }

  /**
   * {@code properties} may not override {@code format-version}; a table's {@link
   * TableRule#targetFileSize()} from {@code settings} becomes its {@code
   * write.target-file-size-bytes}.
   */
  public VersionTwoTableCreator(Map<String, String> properties, IngestSettings settings) {
    this.settings = settings;
    if (properties.containsKey(TableProperties.FORMAT_VERSION)
        && !"2".equals(properties.get(TableProperties.FORMAT_VERSION))) {
      throw new IllegalArgumentException(
          "table property format-version = "
              + properties.get(TableProperties.FORMAT_VERSION)
              + " is not allowed: ingest tables stay at format version 2");
    }
    Map<String, String> all = new LinkedHashMap<>(properties);
    all.put(TableProperties.FORMAT_VERSION, "2");
    this.properties = Map.copyOf(all);
  }

  /**
   * Creates {@code namespace} unless it exists. Several subtasks may race: the loser gets {@link
   * AlreadyExistsException} from most catalogs, but the JDBC catalog on SQLite throws a constraint
   * violation instead; any failure after which the namespace exists counts as success.
   */
  static void ensureNamespace(Catalog catalog, Namespace namespace) {
    if (!(catalog instanceof SupportsNamespaces namespaces)
        || namespaces.namespaceExists(namespace)) {
      return;
    }
    try {
      namespaces.createNamespace(namespace);
    } catch (RuntimeException e) {
      if (!namespaces.namespaceExists(namespace)) {
        throw e;
      }
    }
  }

  @Override
  public Table createTable(
      Catalog catalog, TableIdentifier identifier, Schema schema, PartitionSpec spec) {
    try {
      return create(catalog, identifier, schema, spec);
    } catch (AlreadyExistsException e) {
      return catalog.loadTable(identifier);
    }
  }

  /**
   * Creates the table (and its namespace when missing).
   *
   * @throws AlreadyExistsException when it exists, e.g. because another subtask was first
   */
  Table create(Catalog catalog, TableIdentifier identifier, Schema schema, PartitionSpec spec) {
    ensureNamespace(catalog, identifier.namespace());
    Map<String, String> tableProperties = new LinkedHashMap<>(properties);
    Long targetFileSize = settings.table(identifier.name()).targetFileSize();
    if (targetFileSize != null) {
      tableProperties.put(
          TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, Long.toString(targetFileSize));
    }
    return catalog
        .buildTable(identifier, schema)
        .withPartitionSpec(spec)
        .withProperties(tableProperties)
        .create();
  }
}
