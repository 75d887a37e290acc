/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * One optimizing process (all work planned for one table from one snapshot), as stored and shown.
 *
 * @param processId unique id, also in the snapshot summary ({@code firn.process-id})
 * @param type {@code minor}, {@code major} or {@code full}: the most rewriting type of its
 *     partitions
 * @param trigger {@code auto} (policy triggers) or {@code manual} (REST)
 * @param status running, succeeded, partial, failed or cancelled (maintenance runs: succeeded or
 *     failed)
 * @param snapshotId the planning snapshot
 * @param partitions due partitions (commit groups)
 * @param tasks rewrite tasks
 * @param rewriteBytes data-file bytes planned for rewriting
 * @param finishedAt null while running
 * @param message for people: what happened, or why it failed
 * @param committedGroups partitions committed so far
 * @param failedGroups partitions that failed or conflicted
 */
public record ProcessRecord(
    String processId,
    String catalog,
    String namespace,
    String table,
    String type,
    String trigger,
    ProcessStatus status,
    long snapshotId,
    int partitions,
    int tasks,
    long rewriteBytes,
    Instant createdAt,
    @Nullable Instant finishedAt,
    String message,
    int committedGroups,
    int failedGroups,
    long rowsWritten,
    long bytesRead,
    long bytesWritten) {}
