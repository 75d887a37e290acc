/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.protocol;

/**
 * A free slot asks for work.
 *
 * @param protocolVersion {@link WorkerProtocol#VERSION}
 * @param workerId from {@link RegisterResponse}
 * @param workerSecret from {@link RegisterResponse}: proves the caller is that worker
 * @param waitMillis how long the server may hold the request when no task is ready (long poll)
 */
public record PollRequest(
    int protocolVersion, String workerId, String workerSecret, long waitMillis) {}
