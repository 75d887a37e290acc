/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * What {@link CommitGuard}'s count of removed files relies on: every operation of a guarded
 * transaction removes at least the files it was asked to, or fails. (Its refusals of unplanned
 * removals are tested on real rows: {@code DeleteScopeTest} and the model-based history test.)
 */
class CommitGuardTest {
  private static final Schema SCHEMA =
      new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));

  @Test
  void aGuardedRowDeltaFailsWhenADeleteFileItRemovesIsGone() {
    InMemoryCatalog catalog = new InMemoryCatalog();
    catalog.initialize("guard", Map.of());
    catalog.createNamespace(Namespace.of("db"));
    Table table =
        catalog.createTable(
            TableIdentifier.of("db", "t"),
            SCHEMA,
            PartitionSpec.unpartitioned(),
            Map.of(TableProperties.FORMAT_VERSION, "2"));
    table
        .newAppend()
        .appendFile(
            DataFiles.builder(table.spec())
                .withPath("/d/data-0.parquet")
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(1000)
                .withRecordCount(10)
                .build())
        .commit();
    DeleteFile gone = equalityDelete(table, "/x/eq-0.parquet");
    DeleteFile live = equalityDelete(table, "/x/eq-1.parquet");
    table.newRowDelta().addDeletes(gone).addDeletes(live).commit();
    // Another process removes one of them after Firn planned to.
    table.newRowDelta().removeDeletes(gone).commit();
    long before = table.currentSnapshot().snapshotId();

    Transaction transaction = CommitGuard.transaction(table, List.of(), List.of(gone));
    assertThatThrownBy(
            () -> {
              CommitGuard.newRowDelta(transaction).removeDeletes(gone).commit();
              transaction.commitTransaction();
            })
        .isInstanceOf(ValidationException.class)
        .hasMessageContaining("Missing required files to delete")
        .hasMessageContaining(gone.location());
    table.refresh();
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(before);

    // Asked to remove what is live, the same delta commits, and the guard lets it through.
    Transaction ok = CommitGuard.transaction(table, List.of(), List.of(live));
    CommitGuard.newRowDelta(ok).removeDeletes(live).commit();
    ok.commitTransaction();
    table.refresh();
    assertThat(table.currentSnapshot().snapshotId()).isNotEqualTo(before);
    assertThat(table.currentSnapshot().removedDeleteFiles(table.io()))
        .extracting(DeleteFile::location)
        .containsExactly(live.location());
  }

  private static DeleteFile equalityDelete(Table table, String path) {
    return FileMetadata.deleteFileBuilder(table.spec())
        .ofEqualityDeletes(1)
        .withPath(path)
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(100)
        .withRecordCount(1)
        .build();
  }
}
