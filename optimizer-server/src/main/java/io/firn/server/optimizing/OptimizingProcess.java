/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import io.firn.core.plan.OptimizingPlan;
import io.firn.core.plan.OptimizingType;
import io.firn.core.plan.PartitionPlan;
import io.firn.core.table.PartitionKey;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Table;
import org.jspecify.annotations.Nullable;

/** A running process; fields guarded by the service lock. */
final class OptimizingProcess {
  final String id;
  final TableState table;
  final Table iceberg;
  final OptimizingPlan plan;
  final OptimizingType type;
  final String trigger;
  final Instant created;
  final Map<Integer, TaskState> tasks = new LinkedHashMap<>();
  final Set<PartitionKey> groups = new LinkedHashSet<>();
  final Set<PartitionKey> readyGroups = new LinkedHashSet<>();
  final Set<PartitionKey> finishedGroups = new LinkedHashSet<>();
  final Set<PartitionKey> committedGroups = new LinkedHashSet<>();
  final List<String> failureMessages = new ArrayList<>();
  ProcessStatus status = ProcessStatus.RUNNING;
  String message = "running";
  boolean commitScheduled;
  boolean finishing;

  /** A check around one of this process's commits failed: nothing more of it is committed. */
  boolean integrityAlarm;

  boolean startedByOverride;
  long rowsWritten;
  long bytesRead;
  long bytesWritten;

  OptimizingProcess(
      String id,
      TableState table,
      Table iceberg,
      OptimizingPlan plan,
      Instant created,
      @Nullable OptimizingType requested) {
    this.id = id;
    this.table = table;
    this.iceberg = iceberg;
    this.plan = plan;
    this.type = plan.type();
    this.trigger = requested == null ? "auto" : "manual";
    this.created = created;
  }

  PartitionPlan partition(PartitionKey key) {
    for (PartitionPlan partition : plan.duePartitions()) {
      if (partition.key().equals(key)) {
        return partition;
      }
    }
    throw new IllegalStateException("process " + id + " has no partition " + key);
  }

  List<TaskState> tasksOf(PartitionKey key) {
    return tasks.values().stream().filter(t -> t.task.partition().equals(key)).toList();
  }

  boolean groupDone(PartitionKey key) {
    return !finishedGroups.contains(key)
        && tasksOf(key).stream().allMatch(t -> t.status == TaskStatus.SUCCEEDED);
  }

  boolean allGroupsFinished() {
    return finishedGroups.containsAll(groups);
  }

  ProcessRecord record(Instant now) {
    long rewriteBytes = plan.duePartitions().stream().mapToLong(PartitionPlan::rewriteBytes).sum();
    return new ProcessRecord(
        id,
        table.catalog,
        table.namespace,
        table.table,
        type.name().toLowerCase(Locale.ROOT),
        trigger,
        status,
        plan.snapshotId(),
        groups.size(),
        tasks.size(),
        rewriteBytes,
        created,
        status == ProcessStatus.RUNNING ? null : now,
        message,
        committedGroups.size(),
        finishedGroups.size() - committedGroups.size(),
        rowsWritten,
        bytesRead,
        bytesWritten);
  }
}
