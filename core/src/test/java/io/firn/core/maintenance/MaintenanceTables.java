/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.maintenance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/** Test helpers for maintenance over real tables on disk. */
final class MaintenanceTables {
  private MaintenanceTables() {}

  static Set<Long> snapshotIds(Table table) {
    table.refresh();
    Set<Long> ids = new HashSet<>();
    table.snapshots().forEach(s -> ids.add(s.snapshotId()));
    return ids;
  }

  /**
   * The checkpoint Flink's committer restores for a job and operator: the walk of {@code
   * SinkUtil.getMaxCommittedCheckpointId} in iceberg-flink 1.11.0 (parent ids from the head, first
   * snapshot of the job whose operator is absent or the same), or -1.
   */
  static long flinkRestoredCheckpoint(Table table, String jobId, String operatorId) {
    table.refresh();
    Snapshot snapshot = table.currentSnapshot();
    while (snapshot != null) {
      Map<String, String> summary = snapshot.summary();
      String operator = summary.get("flink.operator-id");
      if (jobId.equals(summary.get("flink.job-id"))
          && (operator == null || operator.equals(operatorId))) {
        String value = summary.get("flink.max-committed-checkpoint-id");
        if (value != null) {
          return Long.parseLong(value);
        }
      }
      snapshot = snapshot.parentId() == null ? null : table.snapshot(snapshot.parentId());
    }
    return -1;
  }

  /** Sets the last-modified time of every file under a directory. */
  static void age(Path dir, Instant modified) {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        Files.setLastModifiedTime(file, FileTime.from(modified));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Regular files under a directory, as paths relative to it. */
  static List<String> files(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      return files
          .filter(Files::isRegularFile)
          .map(f -> dir.relativize(f).toString())
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code file:/a}, {@code file:///a} or {@code /a} as a path. */
  static Path localPath(String location) {
    return Path.of(location.replaceFirst("^file:/*", "/"));
  }
}
