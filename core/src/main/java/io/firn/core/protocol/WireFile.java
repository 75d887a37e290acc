/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.protocol;

import java.util.List;

/**
 * An Iceberg data or delete file on the wire.
 *
 * @param json a file scan task JSON by Iceberg's {@code ScanTaskParser} holding just this file
 *     (with the schema and the file's own partition spec)
 * @param dataSequenceNumber the file's data sequence number (Iceberg's JSON omits it), -1 for a new
 *     file not committed yet
 * @param fileSequenceNumber the file's file sequence number, -1 for a new file
 * @param deletes for a data file in a task: indexes into {@link TaskAssignment#deletes()} of the
 *     delete files that apply to it; empty otherwise
 */
public record WireFile(
    String json, long dataSequenceNumber, long fileSequenceNumber, List<Integer> deletes) {
  public WireFile {
    deletes = List.copyOf(deletes);
  }
}
