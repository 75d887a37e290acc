/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.table;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.MetadataColumns;
import org.jspecify.annotations.Nullable;

/** Small facts about delete files. */
public final class DeleteFiles {
  private DeleteFiles() {}

  /**
   * Whether a position-delete file refers to a single data file (Flink and Firn write such files);
   * reads its {@code referenced_data_file} or equal {@code file_path} bounds.
   */
  public static boolean isFileScoped(DeleteFile delete) {
    return referencedDataFile(delete) != null;
  }

  /** The one data file a position-delete file refers to, or null when it may refer to several. */
  public static @Nullable String referencedDataFile(DeleteFile delete) {
    if (delete.content() != FileContent.POSITION_DELETES) {
      return null;
    }
    if (delete.referencedDataFile() != null) {
      return delete.referencedDataFile();
    }
    int pathId = MetadataColumns.DELETE_FILE_PATH.fieldId();
    if (delete.lowerBounds() == null || delete.upperBounds() == null) {
      return null;
    }
    ByteBuffer lower = delete.lowerBounds().get(pathId);
    ByteBuffer upper = delete.upperBounds().get(pathId);
    if (lower == null || !Objects.equals(lower, upper)) {
      return null;
    }
    return StandardCharsets.UTF_8.decode(lower.duplicate()).toString();
  }

  public static long dataSequenceNumber(DeleteFile delete) {
    Long seq = delete.dataSequenceNumber();
    return seq == null ? 0 : seq;
  }
}
