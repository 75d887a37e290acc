/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.io;

import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * A small file of an object store read with one request for the whole object (ADR 0024 §12): each
 * {@link #newStream()} reads the object from its first byte to its known length through the
 * underlying file's stream (one sequential {@code GET}) into memory, and serves every seek and read
 * of the reader from there. Parquet's reader otherwise seeks backwards twice (footer length,
 * footer, then the row groups), and {@code S3InputStream} opens a new ranged {@code GET} for each.
 */
final class WholeObjectInputFile implements InputFile {
  private final InputFile object;
  private final int length;

  /**
   * @param length the object's length as the table's metadata records it, at most {@link
   *     Integer#MAX_VALUE}
   */
  WholeObjectInputFile(InputFile object, long length) {
    this.object = object;
    this.length = Math.toIntExact(length);
  }

  @Override
  public long getLength() {
    return length;
  }

  @Override
  public SeekableInputStream newStream() {
    byte[] bytes = new byte[length];
    try (SeekableInputStream in = object.newStream()) {
      int read = in.readNBytes(bytes, 0, length);
      if (read < length) {
        throw new EOFException(
            location() + " ends after " + read + " bytes, its metadata says " + length);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + location() + ": " + e.getMessage(), e);
    }
    return new InMemoryStream(bytes);
  }

  @Override
  public String location() {
    return object.location();
  }

  @Override
  public boolean exists() {
    return object.exists();
  }

  /**
   * A stream over bytes in memory, with {@code InputStream}'s contract at the end (-1; Iceberg's
   * {@code SingleBufferInputStream.read()} throws {@code EOFException} there instead).
   */
  private static final class InMemoryStream extends SeekableInputStream {
    private final byte[] bytes;
    private int pos;

    InMemoryStream(byte[] bytes) {
      this.bytes = bytes;
    }

    @Override
    public long getPos() {
      return pos;
    }

    @Override
    public void seek(long newPos) throws IOException {
      if (newPos < 0 || newPos > bytes.length) {
        throw new EOFException("cannot seek to " + newPos + " of " + bytes.length + " bytes");
      }
      pos = (int) newPos;
    }

    @Override
    public int read() {
      return pos < bytes.length ? bytes[pos++] & 0xFF : -1;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) {
      if (length == 0) {
        return 0;
      }
      if (pos >= bytes.length) {
        return -1;
      }
      int n = Math.min(length, bytes.length - pos);
      System.arraycopy(bytes, pos, buffer, offset, n);
      pos += n;
      return n;
    }

    @Override
    public long skip(long n) {
      int skipped = (int) Math.max(0, Math.min(n, bytes.length - pos));
      pos += skipped;
      return skipped;
    }

    @Override
    public int available() {
      return bytes.length - pos;
    }
  }
}
