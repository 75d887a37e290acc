/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.bench.spark;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Outcome of one baseline run; {@link #toJson()} is the file the benchmark driver reads.
 *
 * @param table the table identifier inside the catalog
 * @param sparkVersion the Spark version that ran the actions
 * @param threads Spark local threads
 * @param warmupSeconds wall time of the warm-up read of one row before the first scan
 * @param rewriteOptions the options {@code rewriteDataFiles} ran with
 * @param rewriteDataFilesSeconds wall time of {@code rewriteDataFiles}
 * @param rewriteDataFiles counts reported by {@code rewriteDataFiles}
 * @param rewritePositionDeletesSeconds wall time of {@code rewritePositionDeletes}
 * @param rewritePositionDeletes counts reported by {@code rewritePositionDeletes}
 * @param totalSeconds wall time of both actions, back to back
 * @param before the table before the actions
 * @param after the table after the actions
 */
public record BaselineResult(
    String table,
    String sparkVersion,
    int threads,
    double warmupSeconds,
    Map<String, String> rewriteOptions,
    double rewriteDataFilesSeconds,
    Map<String, Object> rewriteDataFiles,
    double rewritePositionDeletesSeconds,
    Map<String, Object> rewritePositionDeletes,
    double totalSeconds,
    TableState before,
    TableState after) {

  /** The engine name the benchmark report uses for this side. */
  public static final String ENGINE = "spark-actions";

  /** True when the rewrite kept the table's rows: same count and same checksum. */
  public boolean rowsPreserved() {
    return before.rows() == after.rows() && before.checksum() == after.checksum();
  }

  Map<String, Object> toJson() {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("engine", ENGINE);
    json.put("table", table);
    json.put("threads", threads);
    json.put("sparkVersion", sparkVersion);
    json.put("icebergVersion", org.apache.iceberg.IcebergBuild.version());
    json.put("warmupSeconds", warmupSeconds);
    json.put("rewriteOptions", rewriteOptions);
    json.put("rewriteDataFilesSeconds", rewriteDataFilesSeconds);
    json.put("rewritePositionDeletesSeconds", rewritePositionDeletesSeconds);
    json.put("totalSeconds", totalSeconds);
    json.put("rewriteDataFiles", rewriteDataFiles);
    json.put("rewritePositionDeletes", rewritePositionDeletes);
    json.put("rowsPreserved", rowsPreserved());
    json.put("before", before.toJson());
    json.put("after", after.toJson());
    return json;
  }
}
