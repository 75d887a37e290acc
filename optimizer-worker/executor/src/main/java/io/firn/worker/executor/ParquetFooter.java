/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.executor;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The little of a Parquet footer that reading one required integral top-level column needs: where
 * its chunk lies in each row group, its codec, and the row group's row count. Parsed with {@link
 * CompactThrift}, stepping over everything else; Parquet's own footer conversion decodes and copies
 * every statistic of every column and hashes each row group, which for the small equality-delete
 * files of a streaming table cost more than reading their keys (BENCHMARKS.md, "Minor optimizing's
 * conversion").
 *
 * <p>{@link #keyColumn} answers null for anything it does not read exactly as Parquet's reader
 * would (the column optional, nested or of another type or annotation; an encrypted column; a chunk
 * in another file; a codec other than none, Snappy, gzip and zstd): the caller then reads the file
 * with Parquet's reader, so this path can only be skipped.
 */
final class ParquetFooter {
  private ParquetFooter() {}

  // Parquet's Thrift enums, as written in files.
  private static final int INT32 = 1;
  private static final int INT64 = 2;
  private static final int REQUIRED = 0;
  private static final int CONVERTED_INT_8 = 15;
  private static final int CONVERTED_INT_64 = 18;
  private static final int LOGICAL_INTEGER = 10;

  static final int UNCOMPRESSED = 0;
  static final int SNAPPY = 1;
  static final int GZIP = 2;
  static final int ZSTD = 6;

  /** One row group's chunk of the column. */
  record Chunk(long rows, int codec, long start, long length) {}

  /** The column: INT32 or INT64, and its chunk in every row group, in file order. */
  record KeyColumn(boolean int32, List<Chunk> chunks) {}

  /** What the footer says of the top-level field {@code fieldId}; null when not read here. */
  static @Nullable KeyColumn keyColumn(byte[] footer, int offset, int end, int fieldId) {
    CompactThrift in = new CompactThrift(footer, offset, end);
    in.beginStruct();
    Column column = null;
    List<Chunk> chunks = new ArrayList<>();
    boolean schemaRead = false;
    int type;
    while ((type = in.readFieldHeader()) != CompactThrift.STOP) {
      switch (in.fieldId()) {
        case 2 -> {
          if (type != CompactThrift.LIST) {
            return null;
          }
          column = schema(in, fieldId);
          schemaRead = true;
          if (column == null) {
            return null;
          }
        }
        case 4 -> {
          if (type != CompactThrift.LIST || !schemaRead || column == null) {
            return null; // row groups before the schema: not how Thrift writes, not read here
          }
          int groups = in.readListHeader();
          for (int i = 0; i < groups; i++) {
            Chunk chunk = rowGroup(in, column);
            if (chunk == null) {
              return null;
            }
            chunks.add(chunk);
          }
        }
        case 8 -> {
          return null; // encryption_algorithm: columns of this file may be encrypted
        }
        default -> in.skip(type);
      }
    }
    in.endStruct();
    return column == null ? null : new KeyColumn(column.int32, List.copyOf(chunks));
  }

  /** The field, found among the top-level fields, with its leaf ordinal and type. */
  private record Column(int ordinal, boolean int32, String name) {}

  /** A schema element: the fields this path reads. */
  private static final class Element {
    int physical = -1;
    int repetition = -1;
    String name = "";
    int children;
    int converted = -1;
    int fieldId = Integer.MIN_VALUE;
    boolean hasLogical;
    boolean logicalSignedInteger;
  }

  private static @Nullable Column schema(CompactThrift in, int fieldId) {
    int size = in.readListHeader();
    if (in.elementType() != CompactThrift.STRUCT) {
      return null;
    }
    List<Element> elements = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      elements.add(element(in));
    }
    if (elements.isEmpty()) {
      return null;
    }
    // Depth-first: the root, then each top-level field and its subtree.
    int topLevel = elements.get(0).children;
    int index = 1;
    int leaves = 0;
    Column found = null;
    for (int field = 0; field < topLevel; field++) {
      if (index >= elements.size()) {
        return null;
      }
      Element element = elements.get(index);
      if (element.children == 0 && element.fieldId == fieldId) {
        if (found != null || !plainRequiredInteger(element)) {
          return null;
        }
        found = new Column(leaves, element.physical == INT32, element.name);
      }
      int[] subtreeLeaves = new int[1];
      index = subtree(elements, index, subtreeLeaves, 0);
      if (index < 0) {
        return null;
      }
      if (element.children > 0 && element.fieldId == fieldId) {
        return null; // the id names a group
      }
      leaves += subtreeLeaves[0];
    }
    return found;
  }

  /** The index after the subtree at {@code index}, counting its leaves; -1 when malformed. */
  private static int subtree(List<Element> elements, int index, int[] leaves, int depth) {
    if (index >= elements.size() || depth > 64) {
      return -1;
    }
    Element element = elements.get(index);
    if (element.children <= 0) {
      leaves[0]++;
      return index + 1;
    }
    int next = index + 1;
    for (int i = 0; i < element.children; i++) {
      next = subtree(elements, next, leaves, depth + 1);
      if (next < 0) {
        return -1;
      }
    }
    return next;
  }

  private static boolean plainRequiredInteger(Element element) {
    if (element.repetition != REQUIRED
        || (element.physical != INT32 && element.physical != INT64)) {
      return false;
    }
    boolean convertedOk =
        element.converted == -1
            || (element.converted >= CONVERTED_INT_8 && element.converted <= CONVERTED_INT_64);
    boolean logicalOk = !element.hasLogical || element.logicalSignedInteger;
    return convertedOk && logicalOk;
  }

  private static Element element(CompactThrift in) {
    Element element = new Element();
    in.beginStruct();
    int type;
    while ((type = in.readFieldHeader()) != CompactThrift.STOP) {
      switch (in.fieldId()) {
        case 1 -> element.physical = type == CompactThrift.I32 ? in.readI32() : skipped(in, type);
        case 3 -> element.repetition = type == CompactThrift.I32 ? in.readI32() : skipped(in, type);
        case 4 -> {
          if (type == CompactThrift.BINARY) {
            element.name = in.readString();
          } else {
            in.skip(type);
          }
        }
        case 5 -> element.children = type == CompactThrift.I32 ? in.readI32() : skipped(in, type);
        case 6 -> element.converted = type == CompactThrift.I32 ? in.readI32() : skipped(in, type);
        case 9 -> element.fieldId = type == CompactThrift.I32 ? in.readI32() : skipped(in, type);
        case 10 -> {
          element.hasLogical = true;
          element.logicalSignedInteger = type == CompactThrift.STRUCT && signedInteger(in);
          if (type != CompactThrift.STRUCT) {
            in.skip(type);
          }
        }
        default -> in.skip(type);
      }
    }
    in.endStruct();
    return element;
  }

  private static int skipped(CompactThrift in, int type) {
    in.skip(type);
    return Integer.MIN_VALUE; // a field of an unexpected type: matches nothing this path reads
  }

  /** Reads a LogicalType union; whether it is INTEGER with isSigned true. */
  private static boolean signedInteger(CompactThrift in) {
    boolean integer = false;
    boolean signed = false;
    boolean other = false;
    in.beginStruct();
    int type;
    while ((type = in.readFieldHeader()) != CompactThrift.STOP) {
      if (in.fieldId() == LOGICAL_INTEGER && type == CompactThrift.STRUCT) {
        integer = true;
        in.beginStruct();
        int field;
        while ((field = in.readFieldHeader()) != CompactThrift.STOP) {
          if (in.fieldId() == 2 && (field == CompactThrift.TRUE || field == CompactThrift.FALSE)) {
            signed = field == CompactThrift.TRUE;
          } else {
            in.skip(field);
          }
        }
        in.endStruct();
      } else {
        other = true;
        in.skip(type);
      }
    }
    in.endStruct();
    return integer && signed && !other;
  }

  /** A RowGroup: the column's chunk, or null when this path does not read it. */
  private static @Nullable Chunk rowGroup(CompactThrift in, Column column) {
    in.beginStruct();
    long rows = -1;
    Chunk chunk = null;
    boolean columnsRead = false;
    int type;
    while ((type = in.readFieldHeader()) != CompactThrift.STOP) {
      switch (in.fieldId()) {
        case 1 -> {
          if (type != CompactThrift.LIST) {
            return null;
          }
          int count = in.readListHeader();
          if (in.elementType() != CompactThrift.STRUCT || column.ordinal >= count) {
            return null;
          }
          for (int i = 0; i < count; i++) {
            if (i == column.ordinal) {
              chunk = columnChunk(in, column);
              if (chunk == null) {
                return null;
              }
            } else {
              in.skip(CompactThrift.STRUCT);
            }
          }
          columnsRead = true;
        }
        case 3 -> rows = type == CompactThrift.I64 ? in.readI64() : skippedLong(in, type);
        default -> in.skip(type);
      }
    }
    in.endStruct();
    if (!columnsRead || chunk == null || rows < 0) {
      return null;
    }
    return new Chunk(rows, chunk.codec(), chunk.start(), chunk.length());
  }

  private static long skippedLong(CompactThrift in, int type) {
    in.skip(type);
    return -1;
  }

  /** A ColumnChunk: null when it lies in another file, is encrypted, or is not read here. */
  private static @Nullable Chunk columnChunk(CompactThrift in, Column column) {
    in.beginStruct();
    Chunk chunk = null;
    boolean plain = true;
    int type;
    while ((type = in.readFieldHeader()) != CompactThrift.STOP) {
      switch (in.fieldId()) {
        case 1, 8, 9 -> {
          plain = false; // file_path, crypto_metadata, encrypted_column_metadata
          in.skip(type);
        }
        case 3 -> {
          if (type != CompactThrift.STRUCT) {
            return null;
          }
          chunk = columnMetaData(in, column);
          if (chunk == null) {
            return null;
          }
        }
        default -> in.skip(type);
      }
    }
    in.endStruct();
    return plain ? chunk : null;
  }

  private static @Nullable Chunk columnMetaData(CompactThrift in, Column column) {
    in.beginStruct();
    int physical = -1;
    int codec = -1;
    long dataPage = -1;
    long dictionaryPage = -1;
    long compressedSize = -1;
    boolean pathMatches = false;
    int type;
    while ((type = in.readFieldHeader()) != CompactThrift.STOP) {
      switch (in.fieldId()) {
        case 1 -> physical = type == CompactThrift.I32 ? in.readI32() : skipped(in, type);
        case 3 -> {
          if (type != CompactThrift.LIST) {
            return null;
          }
          int parts = in.readListHeader();
          if (in.elementType() != CompactThrift.BINARY) {
            return null;
          }
          for (int i = 0; i < parts; i++) {
            String part = in.readString();
            pathMatches = parts == 1 && part.equals(column.name);
          }
        }
        case 4 -> codec = type == CompactThrift.I32 ? in.readI32() : skipped(in, type);
        case 7 -> compressedSize = type == CompactThrift.I64 ? in.readI64() : skippedLong(in, type);
        case 9 -> dataPage = type == CompactThrift.I64 ? in.readI64() : skippedLong(in, type);
        case 11 ->
            dictionaryPage = type == CompactThrift.I64 ? in.readI64() : skippedLong(in, type);
        default -> in.skip(type);
      }
    }
    in.endStruct();
    boolean supportedCodec =
        codec == UNCOMPRESSED || codec == SNAPPY || codec == GZIP || codec == ZSTD;
    if (!pathMatches
        || physical != (column.int32 ? INT32 : INT64)
        || !supportedCodec
        || dataPage < 0
        || compressedSize < 0) {
      return null;
    }
    // Parquet's ColumnChunkMetaData.getStartingPos.
    long start = dictionaryPage > 0 && dictionaryPage < dataPage ? dictionaryPage : dataPage;
    return new Chunk(-1, codec, start, compressedSize);
  }
}
