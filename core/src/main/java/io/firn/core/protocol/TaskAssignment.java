/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.protocol;

import java.util.List;

/**
 * One leased attempt of one rewrite task.
 *
 * @param taskId the task's id, stable over attempts ({@code processId/n})
 * @param attemptId this attempt; completions of any other attempt of the task are rejected
 * @param processId the optimizing process the task belongs to
 * @param catalog the catalog's configured name
 * @param table the table identifier within the catalog ({@code namespace.table})
 * @param type {@code minor}, {@code major} or {@code full}
 * @param snapshotId the planning snapshot
 * @param sequenceNumber the planning snapshot's sequence number
 * @param specId the partition spec of every file of the task
 * @param partition the partition path, for logs
 * @param targetSize output data file size in bytes
 * @param minTargetSize the smallest output data file the plan accepts (the policy's
 *     min-target-size-ratio × targetSize); 0 from a server that does not send it, which means the
 *     default ratio
 * @param bloomThreshold equality-delete keys above which a Bloom pre-filter is built
 * @param schema the table schema the specs bind to (Iceberg's schema JSON), once for every file
 * @param specs every partition spec a file of the task names (Iceberg's spec JSON), once each
 * @param rewrite data files to rewrite, each with indexes into {@code deletes}
 * @param convert data files whose deletes become one position-delete file
 * @param deletes the delete files the data files refer to, each listed once
 * @param leaseExpiresAtMillis epoch millis; heartbeats extend it
 */
public record TaskAssignment(
    String taskId,
    String attemptId,
    String processId,
    String catalog,
    String table,
    String type,
    long snapshotId,
    long sequenceNumber,
    int specId,
    String partition,
    long targetSize,
    long minTargetSize,
    long bloomThreshold,
    String schema,
    List<String> specs,
    List<WireFile> rewrite,
    List<WireFile> convert,
    List<WireFile> deletes,
    long leaseExpiresAtMillis) {
  public TaskAssignment {
    specs = List.copyOf(specs);
    rewrite = List.copyOf(rewrite);
    convert = List.copyOf(convert);
    deletes = List.copyOf(deletes);
  }

  /** The same assignment with another lease deadline. */
  public TaskAssignment withLease(String newAttemptId, long expiresAtMillis) {
    return new TaskAssignment(
        taskId,
        newAttemptId,
        processId,
        catalog,
        table,
        type,
        snapshotId,
        sequenceNumber,
        specId,
        partition,
        targetSize,
        minTargetSize,
        bloomThreshold,
        schema,
        specs,
        rewrite,
        convert,
        deletes,
        expiresAtMillis);
  }
}
