/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server;

/** What the snapshot watcher tells the rest of the server. Called on the watcher's thread. */
public interface TableListener {
  /**
   * A table was evaluated at a new snapshot (or first seen).
   *
   * @param ownCommit the new snapshots are all Firn's own commits on top of the last evaluated one:
   *     the evaluation was skipped and {@code runtime} carries the previous verdict
   */
  void evaluated(TableRuntime runtime, boolean ownCommit);

  /** A table was dropped or is no longer matched by the table patterns. */
  void forgotten(String catalog, String namespace, String table);

  TableListener NONE =
      new TableListener() {
        @Override
        public void evaluated(TableRuntime runtime, boolean ownCommit) {}

        @Override
        public void forgotten(String catalog, String namespace, String table) {}
      };
}
