/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.maintenance;

import io.firn.core.commit.Committer;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.jspecify.annotations.Nullable;

/**
 * What the maintenance operations that commit to a table ({@link DanglingDeleteRemoval}, {@link
 * ManifestRewrite}) share: their commits carry Firn's summary tags ({@link Committer#PROCESS_ID},
 * {@link Committer#OPTIMIZING_TYPE}), and their failures read the same to an operator.
 */
final class TaggedCommits {
  private TaggedCommits() {}

  /** The newest ancestor of the current snapshot committed by this process and operation. */
  static @Nullable Snapshot find(Table table, String processId, String type) {
    for (Snapshot s = table.currentSnapshot(); s != null; ) {
      if (processId.equals(s.summary().get(Committer.PROCESS_ID))
          && type.equals(s.summary().get(Committer.OPTIMIZING_TYPE))) {
        return s;
      }
      s = s.parentId() == null ? null : table.snapshot(s.parentId());
    }
    return null;
  }

  /** The message of a run that lost to concurrent commits every attempt. */
  static String conflict(int attempts, RuntimeException e) {
    return "conflict with concurrent commits "
        + attempts
        + " times ("
        + e.getMessage()
        + "); table unchanged, run again later";
  }

  /** The message of a commit the catalog did not confirm. */
  static String unknown(RuntimeException e) {
    return "the catalog did not confirm the commit ("
        + e.getMessage()
        + "); check the table history before running again";
  }
}
