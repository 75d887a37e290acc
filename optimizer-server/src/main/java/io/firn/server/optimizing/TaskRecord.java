/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * One rewrite task of a process, as stored and shown.
 *
 * @param taskNumber the task's number within its process
 * @param partition the partition path ({@code <unpartitioned>} when none)
 * @param status pending, leased, succeeded, committed, failed or cancelled
 * @param attempts attempts leased so far
 * @param attemptId the current or last attempt, null before the first lease
 * @param workerId the worker of that attempt
 * @param message the last failure, or what happened
 */
public record TaskRecord(
    String processId,
    int taskNumber,
    String partition,
    TaskStatus status,
    int attempts,
    @Nullable String attemptId,
    @Nullable String workerId,
    int rewriteFiles,
    int convertFiles,
    long rewriteBytes,
    @Nullable Instant startedAt,
    @Nullable Instant finishedAt,
    String message,
    long rowsRead,
    long rowsWritten,
    long bytesWritten) {}
