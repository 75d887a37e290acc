/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.protocol;

/**
 * An attempt failed; the worker already deleted its partial output.
 *
 * @param protocolVersion {@link WorkerProtocol#VERSION}
 * @param workerId from {@link RegisterResponse}
 * @param workerSecret from {@link RegisterResponse}: proves the caller is that worker
 * @param attemptId from {@link TaskAssignment}
 * @param reason for the operator: the exception and its message
 */
public record FailRequest(
    int protocolVersion, String workerId, String workerSecret, String attemptId, String reason) {}
