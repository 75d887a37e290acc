/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.table;

import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;

/**
 * A live data file with the delete files that apply to it by Iceberg's rule ({@link DeleteIndex}:
 * sequence numbers, partition scope and column statistics already respected).
 */
public record DataFileEntry(DataFile file, List<DeleteFile> deletes) {
  public DataFileEntry {
    // The scanner's lists are immutable runs of its index's arrays: kept as they are, not copied.
    if (!(deletes instanceof DeleteList)) {
      deletes = List.copyOf(deletes);
    }
  }

  public String path() {
    return file.location();
  }

  public long sizeInBytes() {
    return file.fileSizeInBytes();
  }

  public long recordCount() {
    return file.recordCount();
  }

  public long dataSequenceNumber() {
    Long seq = file.dataSequenceNumber();
    return seq == null ? 0 : seq;
  }

  public long equalityDeleteFileCount() {
    return deletes.stream().filter(d -> d.content() == FileContent.EQUALITY_DELETES).count();
  }

  public long positionDeleteFileCount() {
    return deletes.stream().filter(d -> d.content() == FileContent.POSITION_DELETES).count();
  }

  /**
   * An upper bound of this file's rows removed by position deletes: records of file-scoped
   * position-delete files count fully; partition-scoped ones cannot be attributed without reading
   * them and are not counted.
   */
  public long positionDeletedRecordsEstimate() {
    long sum = 0;
    for (DeleteFile delete : deletes) {
      if (delete.content() == FileContent.POSITION_DELETES && DeleteFiles.isFileScoped(delete)) {
        sum += delete.recordCount();
      }
    }
    return Math.min(sum, recordCount());
  }
}
