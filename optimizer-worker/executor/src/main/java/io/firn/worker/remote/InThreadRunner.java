/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.remote;

import io.firn.core.commit.TaskResult;
import io.firn.core.plan.RewriteTask;
import io.firn.core.protocol.CompleteRequest;
import io.firn.core.protocol.TaskAssignment;
import io.firn.core.protocol.TaskCodec;
import io.firn.worker.executor.RewriteExecutor;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Runs each task with the {@link RewriteExecutor} in the slot's own thread: the runner of the
 * standalone worker, the server's in-process worker and each slot of the Flink worker. It cannot
 * stop a running rewrite; {@link Worker#close()} interrupts the slots still running once the drain
 * time is up.
 */
public final class InThreadRunner implements TaskRunner {
  @Override
  public Outcome run(TaskAssignment assignment, Lease lease) {
    return new Outcome.Completed(
        rewrite(assignment, lease.catalog(assignment.catalog()), lease.workerId()));
  }

  /**
   * Rewrites one assignment in this thread: loads its table, runs the executor and returns the
   * completion, unsigned. The Spark worker's executors call this too.
   *
   * @throws RuntimeException whatever loading the table or the executor threw
   */
  public static CompleteRequest rewrite(
      TaskAssignment assignment, Catalog catalog, String workerId) {
    Table table = catalog.loadTable(TableIdentifier.parse(assignment.table()));
    RewriteTask task = TaskCodec.decode(assignment, Worker.taskNumber(assignment.taskId()));
    TaskResult result =
        new RewriteExecutor(assignment.bloomThreshold())
            .execute(table, task, assignment.attemptId());
    return ResultCodec.encode(workerId, null, assignment.attemptId(), table, result);
  }
}
