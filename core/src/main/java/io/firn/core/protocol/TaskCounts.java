/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.protocol;

/**
 * What one attempt read and wrote.
 *
 * @param rowsRead rows read from rewritten data files
 * @param rowsDeleted rows of rewritten data files dropped by deletes
 * @param rowsWritten rows in the new data files
 * @param positionsWritten deleted positions written for converted data files
 * @param bytesRead data-file bytes read
 * @param bytesWritten bytes of new files
 * @param equalityDeleteRecordsRead equality-delete records read
 * @param equalityDeleteKeysHeld distinct equality-delete keys held in memory
 * @param nanos wall time of the attempt
 */
public record TaskCounts(
    long rowsRead,
    long rowsDeleted,
    long rowsWritten,
    long positionsWritten,
    long bytesRead,
    long bytesWritten,
    long equalityDeleteRecordsRead,
    long equalityDeleteKeysHeld,
    long nanos) {}
