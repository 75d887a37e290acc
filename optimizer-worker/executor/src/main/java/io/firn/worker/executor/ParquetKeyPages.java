/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.executor;

import com.github.luben.zstd.Zstd;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.zip.CRC32;
import java.util.zip.GZIPInputStream;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.io.IOUtil;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.parquet.bytes.ByteBufferInputStream;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.format.DataPageHeader;
import org.apache.parquet.format.DataPageHeaderV2;
import org.apache.parquet.format.DictionaryPageHeader;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.Util;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Types;
import org.jspecify.annotations.Nullable;
import org.xerial.snappy.Snappy;

/**
 * {@link ParquetLongColumn}'s reading of a required integral column without Parquet's file reader:
 * the footer parsed for that column only ({@link ParquetFooter}), a small file fetched with one
 * read, each chunk's pages decompressed into one array each. Parquet's reader converts the whole
 * footer and opens a decompressor stream with a 64 KiB buffer per page; on the equality-delete
 * files of a streaming table (a few rows each) those fixed costs were most of the key read
 * (BENCHMARKS.md).
 *
 * <p>Checked as Parquet's reader checks with page checksums on: a page's CRC where the writer wrote
 * one, sizes against the chunk and the decompressed length. What this path does not read exactly
 * ({@link ParquetFooter#keyColumn}) answers {@link #NOT_HANDLED} before anything is passed to the
 * visitor, and Parquet's reader reads the file instead.
 */
final class ParquetKeyPages {
  private ParquetKeyPages() {}

  /** The file is not read here (nothing was passed to the visitor). */
  static final long NOT_HANDLED = -2;

  /** Files up to this size are fetched with one read: footer and key chunk together. */
  private static final int WHOLE_FILE = 1 << 20;

  /** The end of a larger file read first: the footer, usually all of it. */
  private static final int TAIL = 64 << 10;

  /** A footer larger than this is left to Parquet's reader rather than fetched here. */
  private static final long MAX_FOOTER = 64 << 20;

  /** No page of a key column is this large; a header saying so is damage. */
  private static final int MAX_PAGE = 256 << 20;

  private static final int MAGIC = 0x31524150; // "PAR1", little-endian

  static long read(
      InputFile input, ContentFile<?> file, int fieldId, ParquetLongColumn.Visitor visitor)
      throws IOException {
    long length = file.fileSizeInBytes();
    if (length < 12) {
      return NOT_HANDLED; // Parquet's reader says what is wrong with it
    }
    try (SeekableInputStream stream = input.newStream()) {
      int size = (int) Math.min(length, length <= WHOLE_FILE ? WHOLE_FILE : TAIL);
      long bufferStart = length - size;
      byte[] buffer = readAt(stream, bufferStart, size);
      ByteBuffer tail = ByteBuffer.wrap(buffer).order(java.nio.ByteOrder.LITTLE_ENDIAN);
      if (tail.getInt(size - 4) != MAGIC) {
        return NOT_HANDLED; // an encrypted footer, or not Parquet
      }
      long footerLength = tail.getInt(size - 8) & 0xffffffffL;
      long footerStart = length - 8 - footerLength;
      if (footerStart < 4 || footerLength > MAX_FOOTER) {
        return NOT_HANDLED; // Parquet's reader says what is wrong with it
      }
      byte[] footer = buffer;
      int footerOffset = (int) (footerStart - bufferStart);
      if (footerStart < bufferStart) {
        footer = readAt(stream, footerStart, (int) footerLength);
        footerOffset = 0;
      }
      ParquetFooter.KeyColumn column;
      try {
        column =
            ParquetFooter.keyColumn(
                footer, footerOffset, footerOffset + (int) footerLength, fieldId);
      } catch (IllegalArgumentException e) {
        return NOT_HANDLED; // a footer this parser does not take: Parquet's reader decides
      }
      if (column == null) {
        return NOT_HANDLED;
      }
      String name = "key-" + fieldId;
      PrimitiveType type =
          Types.required(
                  column.int32()
                      ? PrimitiveType.PrimitiveTypeName.INT32
                      : PrimitiveType.PrimitiveTypeName.INT64)
              .named(name);
      ColumnDescriptor descriptor = new ColumnDescriptor(new String[] {name}, type, 0, 0);
      long position = 0;
      for (ParquetFooter.Chunk chunk : column.chunks()) {
        if (chunk.start() < 4
            || chunk.length() < 0
            || chunk.length() > Integer.MAX_VALUE - 64
            || chunk.start() + chunk.length() > footerStart) {
          throw new TaskFailedException(
              "Parquet file "
                  + file.location()
                  + " has a chunk of field "
                  + fieldId
                  + " at byte "
                  + chunk.start()
                  + " of "
                  + chunk.length()
                  + " bytes, outside its "
                  + footerStart
                  + " bytes of data");
        }
        byte[] bytes = buffer;
        int offset = (int) (chunk.start() - bufferStart);
        if (chunk.start() < bufferStart) {
          bytes = readAt(stream, chunk.start(), (int) chunk.length());
          offset = 0;
        }
        long read =
            readChunk(
                file,
                descriptor,
                chunk.codec(),
                bytes,
                offset,
                (int) chunk.length(),
                position,
                visitor);
        ParquetLongColumn.checkRowGroup(file, read, chunk.rows(), "field " + fieldId);
        position += read;
      }
      return position;
    }
  }

  private static byte[] readAt(SeekableInputStream stream, long at, int length) throws IOException {
    byte[] bytes = new byte[length];
    stream.seek(at);
    IOUtil.readFully(stream, bytes, 0, length);
    return bytes;
  }

  /** The values of one chunk, page by page; the number read. */
  private static long readChunk(
      ContentFile<?> file,
      ColumnDescriptor column,
      int codec,
      byte[] bytes,
      int offset,
      int length,
      long first,
      ParquetLongColumn.Visitor visitor)
      throws IOException {
    ByteArrayInputStream in = new ByteArrayInputStream(bytes, offset, length);
    int end = offset + length;
    Dictionary dictionary = null;
    long position = first;
    while (in.available() > 0) {
      PageHeader header = Util.readPageHeader(in);
      int start = end - in.available();
      int stored = header.getCompressed_page_size();
      if (stored < 0 || stored > end - start) {
        throw damaged(file, "a page of " + stored + " bytes with " + (end - start) + " left");
      }
      if (header.isSetCrc()) {
        CRC32 crc = new CRC32();
        crc.update(bytes, start, stored);
        if ((int) crc.getValue() != header.getCrc()) {
          throw damaged(file, "a page that fails its CRC checksum");
        }
      }
      in.skip(stored);
      int size = header.getUncompressed_page_size();
      int count;
      org.apache.parquet.format.Encoding encoding;
      byte[] plain;
      switch (header.getType()) {
        case DICTIONARY_PAGE -> {
          DictionaryPageHeader page = header.getDictionary_page_header();
          if (page == null) {
            throw damaged(file, "a dictionary page without its header");
          }
          Encoding dictionaryEncoding = encoding(file, page.getEncoding());
          dictionary =
              dictionaryEncoding.initDictionary(
                  column,
                  new DictionaryPage(
                      BytesInput.from(decompress(file, codec, bytes, start, stored, size)),
                      page.getNum_values(),
                      dictionaryEncoding));
          continue;
        }
        case DATA_PAGE -> {
          DataPageHeader page = header.getData_page_header();
          if (page == null) {
            throw damaged(file, "a data page without its header");
          }
          count = page.getNum_values();
          encoding = page.getEncoding();
          plain = decompress(file, codec, bytes, start, stored, size);
        }
        case DATA_PAGE_V2 -> {
          DataPageHeaderV2 page = header.getData_page_header_v2();
          if (page == null) {
            throw damaged(file, "a data page without its header");
          }
          // A required top-level column has no levels; any written are stepped over.
          int levels =
              page.getRepetition_levels_byte_length() + page.getDefinition_levels_byte_length();
          if (levels < 0 || levels > stored || levels > size) {
            throw damaged(file, "a page with " + levels + " bytes of levels in " + stored);
          }
          boolean compressed = !page.isSetIs_compressed() || page.isIs_compressed();
          count = page.getNum_values();
          encoding = page.getEncoding();
          plain =
              decompress(
                  file,
                  compressed ? codec : ParquetFooter.UNCOMPRESSED,
                  bytes,
                  start + levels,
                  stored - levels,
                  size - levels);
        }
        default -> {
          continue; // an index page: nothing to read
        }
      }
      position =
          ParquetLongColumn.decode(
              file,
              column,
              count,
              encoding(file, encoding),
              ByteBufferInputStream.wrap(ByteBuffer.wrap(plain)),
              dictionary,
              position,
              visitor);
    }
    return position - first;
  }

  private static Encoding encoding(
      ContentFile<?> file, org.apache.parquet.format.@Nullable Encoding encoding) {
    if (encoding == null) {
      throw damaged(file, "a page of an unknown encoding");
    }
    return Encoding.valueOf(encoding.name());
  }

  private static byte[] decompress(
      ContentFile<?> file, int codec, byte[] bytes, int offset, int length, int size)
      throws IOException {
    if (size < 0 || size > MAX_PAGE) {
      throw damaged(file, "a page of " + size + " bytes decompressed");
    }
    byte[] plain;
    switch (codec) {
      case ParquetFooter.UNCOMPRESSED -> {
        if (length != size) {
          throw damaged(file, "an uncompressed page of " + length + " bytes that says " + size);
        }
        plain = java.util.Arrays.copyOfRange(bytes, offset, offset + length);
      }
      case ParquetFooter.SNAPPY -> {
        if (Snappy.uncompressedLength(bytes, offset, length) != size) {
          throw damaged(file, "a Snappy page that does not decompress to " + size + " bytes");
        }
        plain = new byte[size];
        Snappy.uncompress(bytes, offset, length, plain, 0);
      }
      case ParquetFooter.ZSTD -> {
        plain = new byte[size];
        long written = Zstd.decompressByteArray(plain, 0, size, bytes, offset, length);
        if (Zstd.isError(written) || written != size) {
          throw damaged(
              file,
              "a zstd page that does not decompress to "
                  + size
                  + " bytes"
                  + (Zstd.isError(written) ? " (" + Zstd.getErrorName(written) + ")" : ""));
        }
      }
      case ParquetFooter.GZIP -> {
        try (InputStream gzip =
            new GZIPInputStream(new ByteArrayInputStream(bytes, offset, length))) {
          plain = gzip.readNBytes(size);
        }
        if (plain.length != size) {
          throw damaged(file, "a gzip page that does not decompress to " + size + " bytes");
        }
      }
      default -> throw damaged(file, "a page of codec " + codec);
    }
    return plain;
  }

  private static TaskFailedException damaged(ContentFile<?> file, String what) {
    return new TaskFailedException("Parquet file " + file.location() + " has " + what);
  }
}
