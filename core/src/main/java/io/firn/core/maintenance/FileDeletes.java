/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.maintenance;

import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.SupportsBulkOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes files of a table through its FileIO: in bulk where it can (S3FileIO sends one request per
 * {@code s3.delete.batch-size} keys, default 250), else one by one. A failed bulk call is retried
 * file by file, which names the files that cannot be deleted (deleting a deleted file is no error).
 */
final class FileDeletes {
  private static final Logger LOG = LoggerFactory.getLogger(FileDeletes.class);

  private FileDeletes() {}

  /**
   * @param what the kind of file, for the log ("orphan", "expired file")
   * @return the files not deleted, each as {@code location: error}
   */
  static List<String> delete(FileIO io, List<String> locations, String table, String what) {
    if (io instanceof SupportsBulkOperations bulk && locations.size() > 1) {
      try {
        bulk.deleteFiles(locations);
        return List.of();
      } catch (RuntimeException e) {
        LOG.warn(
            "{}: bulk delete of {} {} files failed, deleting one by one: {}",
            table,
            locations.size(),
            what,
            e.toString());
      }
    }
    List<String> failed = new ArrayList<>();
    for (String location : locations) {
      try {
        io.deleteFile(location);
      } catch (RuntimeException e) {
        failed.add(location + ": " + e);
        LOG.warn("{}: cannot delete {} {}: {}", table, what, location, e.toString());
      }
    }
    return failed;
  }
}
