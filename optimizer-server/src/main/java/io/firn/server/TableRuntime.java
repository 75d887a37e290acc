/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * What the server last learned about one table.
 *
 * @param catalog the catalog's configured name
 * @param namespace the namespace, levels joined by dots
 * @param table the table's name
 * @param snapshotId the current snapshot id when evaluated; null for a table without snapshots
 * @param needsPlan whether the evaluation found partitions worth planning
 * @param reason for people: why (not)
 * @param evaluatedAt when the evaluation finished
 * @param health 0–100 from the evaluation's cheap signals (100: nothing to optimize)
 * @param dataFiles live data files
 * @param equalityDeleteFiles live equality-delete files
 * @param positionDeleteFiles live position-delete files
 * @param summary bytes, records, snapshots and manifests
 */
public record TableRuntime(
    String catalog,
    String namespace,
    String table,
    @Nullable Long snapshotId,
    boolean needsPlan,
    String reason,
    Instant evaluatedAt,
    int health,
    long dataFiles,
    long equalityDeleteFiles,
    long positionDeleteFiles,
    TableSummary summary) {

  public String qualifiedName() {
    return catalog + "." + namespace + "." + table;
  }
}
