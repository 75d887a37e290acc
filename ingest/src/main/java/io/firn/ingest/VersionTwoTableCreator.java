package io.firn.ingest;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.flink.sink.dynamic.TableCreator;

/**
 * Creates routed tables pinned to {@code format-version=2} (DESIGN.md §4.1) with the configured
 * properties; the sink's default creator passes no properties at all. Creates the namespace when
 * missing, and loads the table when another writer created it first.
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

  @Override
  public Table createTable(
      Catalog catalog, TableIdentifier identifier, Schema schema, PartitionSpec spec) {
    if (catalog instanceof SupportsNamespaces namespaces
        && !namespaces.namespaceExists(identifier.namespace())) {
      try {
        namespaces.createNamespace(identifier.namespace());
      } catch (AlreadyExistsException e) {
        // created concurrently by another subtask: fine
      }
    }
    Map<String, String> tableProperties = new LinkedHashMap<>(properties);
    Long targetFileSize = settings.table(identifier.name()).targetFileSize();
    if (targetFileSize != null) {
      tableProperties.put(
          TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, Long.toString(targetFileSize));
    }
    try {
      return catalog
          .buildTable(identifier, schema)
          .withPartitionSpec(spec)
          .withProperties(tableProperties)
          .create();
    } catch (AlreadyExistsException e) {
      return catalog.loadTable(identifier);
    }
  }
}
