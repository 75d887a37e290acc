/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.optimize;

import io.firn.core.commit.Committer;
import io.firn.core.plan.OptimizingHistory;
import io.firn.core.plan.OptimizingPlan;
import io.firn.core.plan.OptimizingType;
import io.firn.core.plan.Planner;
import io.firn.core.policy.OptimizingPolicy;
import io.firn.core.table.TableEvaluator;
import io.firn.core.table.TableFileGroups;
import io.firn.core.table.TableScanner;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.util.SnapshotUtil;
import org.jspecify.annotations.Nullable;

/**
 * From a table to a plan: checks the table is one Firn optimizes, reads what the planner needs
 * (cheap signals, the files, Firn's history from snapshot summaries) and hands it to the pure
 * {@link Planner}. The one planning front end of the server, the CLI and every local run; it
 * changes nothing.
 */
public final class TablePlanner {
  private static final int HISTORY_DEPTH = 1000;

  private final Planner planner;
  private final OptimizingPolicy policy;

  public TablePlanner(Planner planner, OptimizingPolicy policy) {
    this.planner = planner;
    this.policy = policy;
  }

  /**
   * Plans from a full read of the table's files.
   *
   * @param requested a type to force, or null to let the policy's triggers decide
   * @throws UnsupportedTableException when the table is not format version 2
   */
  public OptimizingPlan plan(Table table, @Nullable OptimizingType requested, Instant now) {
    checkSupported(table);
    TableFileGroups files = TableScanner.scanInGroups(table);
    return planner.plan(files, policy, history(table), now, Optional.ofNullable(requested));
  }

  /**
   * Plans only the partitions that cheap signals (snapshot summary, partitions metadata table)
   * flag; reads nothing more when none is flagged.
   *
   * @throws UnsupportedTableException when the table is not format version 2
   */
  public OptimizingPlan planFromCheapSignals(Table table, Instant now) {
    checkSupported(table);
    Snapshot current = table.currentSnapshot();
    TableEvaluator.Evaluation evaluation = TableEvaluator.evaluate(table, policy);
    if (!evaluation.needsPlan()) {
      return OptimizingPlan.skipped(
          table.name(),
          current == null ? -1 : current.snapshotId(),
          current == null ? 0 : current.sequenceNumber(),
          evaluation.reason());
    }
    long groupFiles = TableScanner.DEFAULT_GROUP_FILES;
    TableFileGroups files =
        evaluation.partitions().isEmpty()
            ? TableScanner.scanInGroups(
                table, current.snapshotId(), evaluation::includes, groupFiles)
            : TableScanner.scanInGroups(
                table, current.snapshotId(), evaluation.partitions(), groupFiles);
    return planner.plan(files, policy, history(table), now, Optional.empty());
  }

  /**
   * @throws UnsupportedTableException for tables Firn must not optimize
   */
  public static void checkSupported(Table table) {
    int version = TableUtil.formatVersion(table);
    if (version != 2) {
      throw new UnsupportedTableException(
          "table "
              + table.name()
              + " is format-version "
              + version
              + "; Firn optimizes format-version 2 tables only (equality deletes and file-scoped"
              + " position deletes). Upgrade with: ALTER TABLE ... SET TBLPROPERTIES"
              + " ('format-version'='2')"
              + (version > 2 ? " — version 3 deletion vectors are not supported yet" : ""));
    }
  }

  /** When Firn last committed each type on this table, from its snapshot summaries. */
  public static OptimizingHistory history(Table table) {
    Map<OptimizingType, Instant> last = new EnumMap<>(OptimizingType.class);
    int depth = 0;
    for (Snapshot snapshot : SnapshotUtil.currentAncestors(table)) {
      if (++depth > HISTORY_DEPTH) {
        break;
      }
      String type =
          snapshot.summary() == null ? null : snapshot.summary().get(Committer.OPTIMIZING_TYPE);
      if (type != null) {
        try {
          last.putIfAbsent(
              OptimizingType.parse(type), Instant.ofEpochMilli(snapshot.timestampMillis()));
        } catch (IllegalArgumentException ignored) {
          // A summary written by a newer version; not ours to interpret.
        }
      }
    }
    return new OptimizingHistory(last);
  }
}
