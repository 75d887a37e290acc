/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server;

import io.firn.core.table.PartitionStatistics;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.jspecify.annotations.Nullable;

/**
 * A table's size at its last evaluation, the figures of Apache Amoro's {@code table_summary_*}: the
 * console and {@code /metrics} ({@code firn_table_*}, docs/metrics.md) show the same values.
 *
 * @param totalBytes bytes of every live file, data and delete files (the snapshot summary's {@code
 *     total-files-size}; the data files' bytes when a writer left it out)
 * @param dataBytes bytes of the live data files
 * @param averageDataFileBytes {@code dataBytes} over the live data files; 0 without data files
 * @param records records of the live data files, before deletes apply
 * @param snapshots snapshots in the table's metadata (what snapshot expiry keeps)
 * @param manifests manifests of the current snapshot (data and delete manifests)
 */
public record TableSummary(
    long totalBytes,
    long dataBytes,
    long averageDataFileBytes,
    long records,
    int snapshots,
    int manifests) {

  /** Before the first evaluation (and for rows stored before these figures existed). */
  public static final TableSummary EMPTY = new TableSummary(0, 0, 0, 0, 0, 0);

  /** The figures, with the average computed from {@code dataFiles}. */
  public static TableSummary of(
      long totalBytes, long dataBytes, long dataFiles, long records, int snapshots, int manifests) {
    return new TableSummary(
        totalBytes,
        dataBytes,
        dataFiles <= 0 ? 0 : dataBytes / dataFiles,
        records,
        snapshots,
        manifests);
  }

  /**
   * The figures of a loaded table whose current snapshot was just evaluated: {@code totals} from
   * the evaluation, the rest from the table's metadata and the current snapshot's manifest list
   * (one small read).
   */
  public static TableSummary of(Table table, PartitionStatistics totals) {
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      return EMPTY;
    }
    Map<String, String> summary = current.summary() == null ? Map.of() : current.summary();
    long totalBytes = number(summary.get("total-files-size"));
    List<ManifestFile> manifests = current.allManifests(table.io());
    return of(
        totalBytes < 0 ? totals.dataBytes() : totalBytes,
        totals.dataBytes(),
        totals.dataFiles(),
        totals.records(),
        snapshots(table),
        manifests.size());
  }

  private static int snapshots(Table table) {
    int count = 0;
    for (Snapshot ignored : table.snapshots()) {
      count++;
    }
    return count;
  }

  private static long number(@Nullable String value) {
    if (value == null) {
      return -1;
    }
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
