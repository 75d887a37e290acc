/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.table;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
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
    return delete.content() == FileContent.POSITION_DELETES
        && (delete.referencedDataFile() != null || pathBound(delete) != null);
  }

  /** The one data file a position-delete file refers to, or null when it may refer to several. */
  public static @Nullable String referencedDataFile(DeleteFile delete) {
    if (delete.content() == FileContent.POSITION_DELETES && delete.referencedDataFile() != null) {
      return delete.referencedDataFile();
    }
    ByteBuffer bound = pathBound(delete);
    if (bound == null) {
      return null;
    }
    if (bound.hasArray()) {
      return new String(
          bound.array(),
          bound.arrayOffset() + bound.position(),
          bound.remaining(),
          StandardCharsets.UTF_8);
    }
    return StandardCharsets.UTF_8.decode(bound.duplicate()).toString();
  }

  /**
   * The {@code file_path} bound of a position-delete file whose lower and upper bounds are equal,
   * undecoded (a caller that only asks whether there is one decodes nothing); else null.
   */
  private static @Nullable ByteBuffer pathBound(DeleteFile delete) {
    if (delete.content() != FileContent.POSITION_DELETES) {
      return null;
    }
    int pathId = MetadataColumns.DELETE_FILE_PATH.fieldId();
    // Each call of lowerBounds() or upperBounds() makes a read-only copy of the map: once each.
    Map<Integer, ByteBuffer> lowers = delete.lowerBounds();
    Map<Integer, ByteBuffer> uppers = delete.upperBounds();
    if (lowers == null || uppers == null) {
      return null;
    }
    ByteBuffer lower = lowers.get(pathId);
    ByteBuffer upper = uppers.get(pathId);
    if (lower == null || !Objects.equals(lower, upper)) {
      return null;
    }
    return lower;
  }

  /**
   * The positions of a position-delete file of at most two records that refers to a single data
   * file, exactly as its metadata gives them: one record is its {@code pos} lower bound (which must
   * equal the upper), two are the lower and upper bounds (the same position twice when they are
   * equal). Iceberg's writers keep full {@code file_path} and {@code pos} statistics for position
   * deletes ({@code MetricsConfig.forPositionDelete}); a streaming writer leaves many such files,
   * one per data file and checkpoint, each holding the one or two rows it wrote twice.
   *
   * @return the distinct positions, ascending; null when the file must be read: more records, no
   *     single referenced data file, no {@code pos} bounds, or bounds that contradict the count
   */
  public static long @Nullable [] positionsFromMetadata(DeleteFile delete) {
    if (delete.content() != FileContent.POSITION_DELETES
        || delete.format() == FileFormat.PUFFIN
        || delete.recordCount() < 1
        || delete.recordCount() > 2
        || !isFileScoped(delete)) {
      return null;
    }
    Map<Integer, ByteBuffer> lowers = delete.lowerBounds();
    Map<Integer, ByteBuffer> uppers = delete.upperBounds();
    if (lowers == null || uppers == null) {
      return null;
    }
    int posId = MetadataColumns.DELETE_FILE_POS.fieldId();
    ByteBuffer lowerBytes = lowers.get(posId);
    ByteBuffer upperBytes = uppers.get(posId);
    if (lowerBytes == null
        || upperBytes == null
        || lowerBytes.remaining() != Long.BYTES
        || upperBytes.remaining() != Long.BYTES) {
      return null;
    }
    long lower =
        lowerBytes.duplicate().order(ByteOrder.LITTLE_ENDIAN).getLong(lowerBytes.position());
    long upper =
        upperBytes.duplicate().order(ByteOrder.LITTLE_ENDIAN).getLong(upperBytes.position());
    if (lower < 0 || upper < lower || (delete.recordCount() == 1 && lower != upper)) {
      return null;
    }
    return lower == upper ? new long[] {lower} : new long[] {lower, upper};
  }

  public static long dataSequenceNumber(DeleteFile delete) {
    Long seq = delete.dataSequenceNumber();
    return seq == null ? 0 : seq;
  }
}
