package io.firn.core.protocol;

/**
 * A free slot asks for work.
 *
 * @param protocolVersion {@link WorkerProtocol#VERSION}
 * @param workerId from {@link RegisterResponse}
 * @param waitMillis how long the server may hold the request when no task is ready (long poll)
 */
public record PollRequest(int protocolVersion, String workerId, long waitMillis) {}
