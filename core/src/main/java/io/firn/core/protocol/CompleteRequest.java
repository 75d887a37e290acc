package io.firn.core.protocol;

import java.util.List;

/**
 * A finished attempt and what it wrote (nothing is committed yet; the server commits).
 *
 * @param protocolVersion {@link WorkerProtocol#VERSION}
 * @param workerId from {@link RegisterResponse}
 * @param attemptId from {@link TaskAssignment}
 * @param dataFiles new data files
 * @param deleteFiles new position-delete files
 * @param counts rows and bytes, for the server's row check and metrics
 */
public record CompleteRequest(
    int protocolVersion,
    String workerId,
    String attemptId,
    List<WireFile> dataFiles,
    List<WireFile> deleteFiles,
    TaskCounts counts) {
  public CompleteRequest {
    dataFiles = List.copyOf(dataFiles);
    deleteFiles = List.copyOf(deleteFiles);
  }
}
