/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.remote;

import io.firn.core.commit.TaskResult;
import io.firn.core.protocol.CompleteRequest;
import io.firn.core.protocol.FileCodec;
import io.firn.core.protocol.ProtocolException;
import io.firn.core.protocol.TaskAssignment;
import io.firn.core.protocol.TaskCodec;
import io.firn.core.protocol.TaskCounts;
import io.firn.core.protocol.WireFile;
import io.firn.core.protocol.WorkerProtocol;
import io.firn.worker.executor.RewriteExecutor;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.jspecify.annotations.Nullable;

/** {@link TaskResult} to {@link CompleteRequest} and back. Stateless. */
public final class ResultCodec {
  private ResultCodec() {}

  public static CompleteRequest encode(
      String workerId,
      @Nullable String workerSecret,
      String attemptId,
      Table table,
      TaskResult result) {
    List<WireFile> data = new ArrayList<>();
    for (DataFile file : result.dataFiles()) {
      data.add(FileCodec.encode(file, spec(table, file)));
    }
    List<WireFile> deletes = new ArrayList<>();
    for (DeleteFile file : result.positionDeletes()) {
      deletes.add(FileCodec.encode(file, spec(table, file)));
    }
    return new CompleteRequest(
        WorkerProtocol.VERSION,
        workerId,
        workerSecret,
        attemptId,
        data,
        deletes,
        new TaskCounts(
            result.rowsRead(),
            result.rowsDeleted(),
            result.rowsWritten(),
            result.positionsWritten(),
            result.bytesRead(),
            result.bytesWritten(),
            result.equalityDeleteRecordsRead(),
            result.equalityDeleteKeysHeld(),
            result.nanos()));
  }

  /**
   * @param leased the assignment the completion answers: its files are read against the schema and
   *     specs the assignment carries, never against any the worker might send
   * @param taskId the task's number within its process plan
   * @throws ProtocolException when a file cannot be decoded or the counts are missing
   */
  public static TaskResult decode(CompleteRequest request, TaskAssignment leased, int taskId) {
    FileCodec.Decoder decoder = TaskCodec.decoder(leased);
    if (request.counts() == null) {
      throw new ProtocolException("completion of " + request.attemptId() + ": counts are missing");
    }
    List<DataFile> data = new ArrayList<>();
    for (WireFile wire : request.dataFiles()) {
      data.add(decoder.dataFile(wire));
    }
    List<DeleteFile> deletes = new ArrayList<>();
    for (WireFile wire : request.deleteFiles()) {
      deletes.add(decoder.deleteFile(wire));
    }
    TaskCounts counts = request.counts();
    return new TaskResult(
        taskId,
        data,
        deletes,
        counts.rowsRead(),
        counts.rowsDeleted(),
        counts.rowsWritten(),
        counts.positionsWritten(),
        counts.bytesRead(),
        counts.bytesWritten(),
        counts.equalityDeleteRecordsRead(),
        counts.equalityDeleteKeysHeld(),
        counts.nanos());
  }

  private static PartitionSpec spec(Table table, ContentFile<?> file) {
    return RewriteExecutor.spec(table, file.specId());
  }
}
