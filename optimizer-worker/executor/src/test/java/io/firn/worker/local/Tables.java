/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.local;

import io.firn.core.table.PartitionFiles;
import io.firn.core.table.TableFiles;
import io.firn.core.table.TableScanner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.Table;

/** Test helpers over real tables. */
final class Tables {
  private Tables() {}

  /** Live delete files of the current snapshot: attached and dangling. */
  static Set<String> liveDeleteFiles(Table table, FileContent content) {
    table.refresh();
    TableFiles files = TableScanner.scan(table);
    Set<String> paths = new HashSet<>();
    for (PartitionFiles partition : files.partitionFiles()) {
      for (DeleteFile delete : partition.attachedDeletes()) {
        if (delete.content() == content) {
          paths.add(delete.location());
        }
      }
      for (DeleteFile delete : partition.danglingDeletes()) {
        if (delete.content() == content) {
          paths.add(delete.location());
        }
      }
    }
    for (DeleteFile delete : files.globalDanglingDeletes()) {
      if (delete.content() == content) {
        paths.add(delete.location());
      }
    }
    return paths;
  }

  /** Every regular file under a directory. */
  static Set<Path> filesUnder(Path directory) throws IOException {
    try (Stream<Path> files = Files.walk(directory)) {
      return files.filter(Files::isRegularFile).collect(Collectors.toSet());
    }
  }

  static long totalDeleteFiles(Table table) {
    table.refresh();
    return Long.parseLong(
        table.currentSnapshot().summary().getOrDefault("total-delete-files", "0"));
  }
}
