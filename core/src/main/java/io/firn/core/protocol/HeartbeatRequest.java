package io.firn.core.protocol;

import java.util.List;

/**
 * A worker is alive and still runs these attempts.
 *
 * @param protocolVersion {@link WorkerProtocol#VERSION}
 * @param workerId from {@link RegisterResponse}
 * @param attemptIds the attempts the worker is running now
 */
public record HeartbeatRequest(int protocolVersion, String workerId, List<String> attemptIds) {
  public HeartbeatRequest {
    attemptIds = List.copyOf(attemptIds);
  }
}
