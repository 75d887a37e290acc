/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.executor;

import java.nio.charset.StandardCharsets;

/**
 * A cursor over Thrift's compact protocol in a byte array: what {@link ParquetFooter} needs to take
 * a few fields out of a Parquet footer and step over the rest (statistics, size histograms,
 * encodings, key-value metadata) without building an object for each.
 *
 * <p>The bytes come from a file and are not trusted: every read is bounds-checked, nesting is
 * limited, and a malformed or truncated structure throws {@link IllegalArgumentException} saying
 * where it broke.
 */
final class CompactThrift {
  static final int STOP = 0;
  static final int TRUE = 1;
  static final int FALSE = 2;
  static final int BYTE = 3;
  static final int I16 = 4;
  static final int I32 = 5;
  static final int I64 = 6;
  static final int DOUBLE = 7;
  static final int BINARY = 8;
  static final int LIST = 9;
  static final int SET = 10;
  static final int MAP = 11;
  static final int STRUCT = 12;

  private static final int MAX_DEPTH = 64;

  private final byte[] bytes;
  private int position;
  private final int end;

  // The last field id of each open struct: compact field headers give ids as deltas.
  private final int[] lastIds = new int[MAX_DEPTH + 1];
  private int depth;
  private int fieldId;
  private int elementType;

  CompactThrift(byte[] bytes, int offset, int end) {
    if (offset < 0 || end > bytes.length || offset > end) {
      throw new IllegalArgumentException("bad range " + offset + ".." + end);
    }
    this.bytes = bytes;
    this.position = offset;
    this.end = end;
  }

  int position() {
    return position;
  }

  /** Enters a struct: the next {@link #readFieldHeader} reads its first field. */
  void beginStruct() {
    if (depth == MAX_DEPTH) {
      throw malformed("structures nested deeper than " + MAX_DEPTH);
    }
    lastIds[++depth] = 0;
  }

  /** Leaves the struct whose {@link #STOP} was just read. */
  void endStruct() {
    depth--;
  }

  /**
   * Reads the next field's header: its type ({@link #STOP} at the end of the struct), with {@link
   * #fieldId()} set; for a boolean, the type is {@link #TRUE} or {@link #FALSE}.
   */
  int readFieldHeader() {
    int header = readByte() & 0xff;
    int type = header & 0x0f;
    if (type == STOP) {
      return STOP;
    }
    int delta = header >>> 4;
    fieldId = delta == 0 ? (short) zigzag((int) readVarint()) : lastIds[depth] + delta;
    lastIds[depth] = fieldId;
    return type;
  }

  int fieldId() {
    return fieldId;
  }

  /** Reads a list's or set's header: its size, with {@link #elementType()} set. */
  int readListHeader() {
    int header = readByte() & 0xff;
    elementType = header & 0x0f;
    int size = header >>> 4;
    if (size == 15) {
      long large = readVarint();
      if (large < 0 || large > end - position) {
        throw malformed("a list of " + large + " elements in " + (end - position) + " bytes");
      }
      size = (int) large;
    }
    return size;
  }

  int elementType() {
    return elementType;
  }

  int readI32() {
    return zigzag((int) readVarint());
  }

  long readI64() {
    long raw = readVarint();
    return (raw >>> 1) ^ -(raw & 1);
  }

  String readString() {
    int length = binaryLength();
    String value = new String(bytes, position, length, StandardCharsets.UTF_8);
    position += length;
    return value;
  }

  /** Steps over one value of the given type (a field's, or a list element's). */
  void skip(int type) {
    skip(type, 0);
  }

  private void skip(int type, int nesting) {
    if (nesting > MAX_DEPTH) {
      throw malformed("values nested deeper than " + MAX_DEPTH);
    }
    switch (type) {
      case TRUE, FALSE -> {
        // A boolean field carries its value in its header; none here.
      }
      case BYTE -> readByte();
      case I16, I32, I64 -> readVarint();
      case DOUBLE -> advance(8);
      case BINARY -> advance(binaryLength());
      case LIST, SET -> {
        int size = readListHeader();
        int element = elementType;
        for (int i = 0; i < size; i++) {
          if (element == TRUE || element == FALSE) {
            readByte(); // booleans in a list are a byte each
          } else {
            skip(element, nesting + 1);
          }
        }
      }
      case MAP -> {
        long size = readVarint();
        if (size < 0 || size > end - position) {
          throw malformed("a map of " + size + " entries in " + (end - position) + " bytes");
        }
        if (size > 0) {
          int types = readByte() & 0xff;
          for (long i = 0; i < size; i++) {
            skipMapValue(types >>> 4, nesting);
            skipMapValue(types & 0x0f, nesting);
          }
        }
      }
      case STRUCT -> {
        beginStruct();
        int field;
        while ((field = readFieldHeader()) != STOP) {
          skip(field, nesting + 1);
        }
        endStruct();
      }
      default -> throw malformed("unknown type " + type);
    }
  }

  private void skipMapValue(int type, int nesting) {
    if (type == TRUE || type == FALSE) {
      readByte();
    } else {
      skip(type, nesting + 1);
    }
  }

  private int binaryLength() {
    long length = readVarint();
    if (length < 0 || length > end - position) {
      throw malformed("a binary of " + length + " bytes with " + (end - position) + " left");
    }
    return (int) length;
  }

  private byte readByte() {
    if (position >= end) {
      throw malformed("truncated");
    }
    return bytes[position++];
  }

  private void advance(int count) {
    if (count > end - position) {
      throw malformed("truncated");
    }
    position += count;
  }

  private long readVarint() {
    long value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      byte b = readByte();
      value |= (long) (b & 0x7f) << shift;
      if (b >= 0) {
        return value;
      }
    }
    throw malformed("a varint longer than ten bytes");
  }

  private static int zigzag(int raw) {
    return (raw >>> 1) ^ -(raw & 1);
  }

  private IllegalArgumentException malformed(String what) {
    return new IllegalArgumentException("malformed Thrift at byte " + position + ": " + what);
  }
}
