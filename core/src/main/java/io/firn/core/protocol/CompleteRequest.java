/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.protocol;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A finished attempt and what it wrote (nothing is committed yet; the server commits).
 *
 * @param protocolVersion {@link WorkerProtocol#VERSION}
 * @param workerId from {@link RegisterResponse}
 * @param workerSecret from {@link RegisterResponse}: proves the caller is that worker; null in a
 *     completion not signed yet (a Spark executor's, which the driver signs with {@link #signedBy})
 * @param attemptId from {@link TaskAssignment}
 * @param dataFiles new data files
 * @param deleteFiles new position-delete files
 * @param counts rows and bytes, for the server's row check and metrics
 */
public record CompleteRequest(
    int protocolVersion,
    String workerId,
    @Nullable String workerSecret,
    String attemptId,
    List<WireFile> dataFiles,
    List<WireFile> deleteFiles,
    TaskCounts counts) {
  public CompleteRequest {
    dataFiles = List.copyOf(dataFiles);
    deleteFiles = List.copyOf(deleteFiles);
  }

  /** The same completion sent as the given worker (a Spark driver signs what an executor wrote). */
  public CompleteRequest signedBy(String workerId, String workerSecret) {
    return new CompleteRequest(
        protocolVersion, workerId, workerSecret, attemptId, dataFiles, deleteFiles, counts);
  }

  @Override
  public String toString() {
    return "CompleteRequest[worker "
        + workerId
        + ", attempt "
        + attemptId
        + ", "
        + dataFiles.size()
        + " data file(s), "
        + deleteFiles.size()
        + " delete file(s), "
        + counts
        + "]";
  }
}
