/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.bench.spark;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a reader faces in the table's current snapshot, and what a full scan with deletes applied
 * costs and returns.
 *
 * @param snapshotId current snapshot id, or -1 for an empty table
 * @param dataFiles live data files
 * @param equalityDeleteFiles live equality-delete files (dangling ones included)
 * @param positionDeleteFiles live position-delete files and deletion vectors (dangling ones
 *     included)
 * @param bytes total size of those files
 * @param dataRecords rows stored in the data files, before deletes
 * @param scanSeconds wall time of the full scan
 * @param rows rows returned by the full scan (deletes applied)
 * @param checksum order-independent sum of Spark's {@code hash(*)} over those rows
 */
public record TableState(
    long snapshotId,
    long dataFiles,
    long equalityDeleteFiles,
    long positionDeleteFiles,
    long bytes,
    long dataRecords,
    double scanSeconds,
    long rows,
    long checksum) {

  Map<String, Object> toJson() {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("snapshotId", snapshotId);
    json.put("dataFiles", dataFiles);
    json.put("equalityDeleteFiles", equalityDeleteFiles);
    json.put("positionDeleteFiles", positionDeleteFiles);
    json.put("bytes", bytes);
    json.put("dataRecords", dataRecords);
    json.put("scanSeconds", scanSeconds);
    json.put("rows", rows);
    json.put("checksum", checksum);
    return json;
  }
}
