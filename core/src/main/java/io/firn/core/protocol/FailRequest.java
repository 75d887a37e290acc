package io.firn.core.protocol;

/**
 * An attempt failed; the worker already deleted its partial output.
 *
 * @param protocolVersion {@link WorkerProtocol#VERSION}
 * @param workerId from {@link RegisterResponse}
 * @param attemptId from {@link TaskAssignment}
 * @param reason for the operator: the exception and its message
 */
public record FailRequest(int protocolVersion, String workerId, String attemptId, String reason) {}
