/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.protocol;

import java.util.List;

/**
 * A worker is alive and still runs these attempts.
 *
 * @param protocolVersion {@link WorkerProtocol#VERSION}
 * @param workerId from {@link RegisterResponse}
 * @param workerSecret from {@link RegisterResponse}: proves the caller is that worker
 * @param attemptIds the attempts the worker is running now
 */
public record HeartbeatRequest(
    int protocolVersion, String workerId, String workerSecret, List<String> attemptIds) {
  public HeartbeatRequest {
    attemptIds = List.copyOf(attemptIds);
  }
}
