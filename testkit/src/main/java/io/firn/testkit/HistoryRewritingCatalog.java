/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.testkit;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;

/**
 * A real JDBC catalog in which, right after every commit Firn makes (a snapshot whose summary has
 * {@code firn.process-id}), a concurrent party moves the table's main branch back to the snapshot
 * before the writer commit Firn's snapshot follows: Firn's snapshot and the writer's last commit
 * leave the table's history, as when a catalog loses a commit or someone rolls the table back. Both
 * are real catalog commits; only their timing is arranged, so that Firn's checks after the commit
 * must notice. Used as {@code catalog-impl} (a custom catalog) by the tests of those checks.
 */
public class HistoryRewritingCatalog extends JdbcCatalog {
  private static final String FIRN_PROCESS_ID = "firn.process-id";

  @Override
  protected TableOperations newTableOps(TableIdentifier identifier) {
    TableOperations delegate = super.newTableOps(identifier);
    // Every call forwarded; after a commit, the rollback. A proxy, so that the testkit needs no
    // Firn module (core's tests use it).
    return (TableOperations)
        Proxy.newProxyInstance(
            TableOperations.class.getClassLoader(),
            new Class<?>[] {TableOperations.class},
            (proxy, method, args) -> {
              Object result;
              try {
                result = method.invoke(delegate, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
              if (method.getName().equals("commit")) {
                rollBackAfterFirn(delegate, (TableMetadata) args[1]);
              }
              return result;
            });
  }

  private static void rollBackAfterFirn(TableOperations operations, TableMetadata metadata) {
    Snapshot committed = metadata.currentSnapshot();
    if (committed == null
        || committed.summary() == null
        || !committed.summary().containsKey(FIRN_PROCESS_ID)
        || committed.parentId() == null) {
      return;
    }
    TableMetadata now = operations.refresh();
    Snapshot parent = now.snapshot(committed.parentId());
    long target =
        parent != null && parent.parentId() != null && now.snapshot(parent.parentId()) != null
            ? parent.parentId()
            : committed.parentId();
    TableMetadata rolledBack =
        TableMetadata.buildFrom(now).setBranchSnapshot(target, SnapshotRef.MAIN_BRANCH).build();
    operations.commit(now, rolledBack);
  }
}
