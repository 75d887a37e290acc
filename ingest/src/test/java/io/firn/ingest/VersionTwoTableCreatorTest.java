/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.jdbc.UncheckedSQLException;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VersionTwoTableCreatorTest {

  @Test
  void tablesAreVersionTwoAndTakeTheTargetFileSizeOfTheirRule() {
    InMemoryCatalog catalog = new InMemoryCatalog();
    catalog.initialize("test", Map.of());
    IngestSettings settings =
        IngestSettings.defaults("events")
            .withTables(
                List.of(new TableRule("order_*", List.of("id"), List.of(), 64L << 20, true)));
    VersionTwoTableCreator creator = new VersionTwoTableCreator(Map.of("owner", "firn"), settings);
    Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));

    Table orders =
        creator.createTable(
            catalog,
            TableIdentifier.of("events", "order_lines"),
            schema,
            PartitionSpec.unpartitioned());
    Table users =
        creator.createTable(
            catalog, TableIdentifier.of("events", "users"), schema, PartitionSpec.unpartitioned());

    assertThat(TableUtil.formatVersion(orders)).isEqualTo(2);
    assertThat(TableUtil.formatVersion(users)).isEqualTo(2);
    assertThat(orders.properties())
        .containsEntry(TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, "67108864")
        .containsEntry("owner", "firn");
    assertThat(users.properties())
        .doesNotContainKey(TableProperties.WRITE_TARGET_FILE_SIZE_BYTES)
        .containsEntry("owner", "firn");
  }

  @Test
  void aNamespaceCreatedByAnotherSubtaskMeanwhileIsNoError(@TempDir Path dir) {
    // What two routers racing on an SQLite JDBC catalog saw: the other one's insert won, this one
    // gets a primary-key violation instead of AlreadyExistsException.
    JdbcCatalog catalog =
        new JdbcCatalog() {
          @Override
          public void createNamespace(Namespace namespace, Map<String, String> metadata) {
            super.createNamespace(namespace, metadata);
            throw new UncheckedSQLException(
                new SQLException("[SQLITE_CONSTRAINT_PRIMARYKEY] A PRIMARY KEY constraint failed"),
                "Failed to insert namespace %s",
                namespace);
          }
        };
    catalog.initialize(
        "race",
        Map.of(
            "uri",
            "jdbc:sqlite:" + dir.resolve("catalog.db"),
            "warehouse",
            dir.resolve("warehouse").toString()));

    VersionTwoTableCreator.ensureNamespace(catalog, Namespace.of("events"));

    assertThat(catalog.namespaceExists(Namespace.of("events"))).isTrue();
  }
}
