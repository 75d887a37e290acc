/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.io;

import io.firn.core.policy.Sizes;
import java.util.Map;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;

/**
 * The FileIO Firn reads and writes data and delete files with: local files through {@link
 * LocalFileIO}, everything else through the table's own FileIO. Table metadata is always written by
 * the catalog's FileIO; only file bytes take this path, and locations stay exactly as the table
 * names them.
 *
 * <p>A file of the table's FileIO whose length is given and at most {@value #WHOLE_OBJECT_READ_MAX}
 * (catalog property, a size; default {@value #DEFAULT_WHOLE_OBJECT_READ_MAX} bytes, {@code 0} turns
 * it off) is read with one request for the whole object ({@link WholeObjectInputFile}, ADR 0024
 * §12); larger ones keep the FileIO's ranged reads.
 */
public final class DataFileIO implements FileIO {
  private static final long serialVersionUID = 1L;

  /** Catalog property: the largest file read with one request for the whole object. */
  public static final String WHOLE_OBJECT_READ_MAX = "firn.io.whole-object-read-max";

  /** 4 MiB: a few times the bytes of the three ranged requests it saves, on S3's latencies. */
  public static final long DEFAULT_WHOLE_OBJECT_READ_MAX = 4L << 20;

  private final FileIO table;
  private final LocalFileIO local = new LocalFileIO();
  private final long wholeObjectReadMax;

  private DataFileIO(FileIO table) {
    this.table = table;
    this.wholeObjectReadMax = wholeObjectReadMax(table);
  }

  /**
   * The catalog's {@value #WHOLE_OBJECT_READ_MAX}, or the default where it is unset or the FileIO
   * shows no properties.
   *
   * @throws IllegalArgumentException when the value is not a size
   */
  static long wholeObjectReadMax(FileIO io) {
    String value;
    try {
      value = io.properties().get(WHOLE_OBJECT_READ_MAX);
    } catch (UnsupportedOperationException e) {
      return DEFAULT_WHOLE_OBJECT_READ_MAX;
    }
    if (value == null) {
      return DEFAULT_WHOLE_OBJECT_READ_MAX;
    }
    try {
      return Math.min(Sizes.parse(value), Integer.MAX_VALUE);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "catalog property " + WHOLE_OBJECT_READ_MAX + " = '" + value + "' " + e.getMessage(), e);
    }
  }

  /** Wraps a table's FileIO; returns it unchanged when it already is local or routing. */
  public static FileIO of(FileIO tableIo) {
    if (tableIo instanceof DataFileIO || tableIo instanceof LocalFileIO) {
      return tableIo;
    }
    return new DataFileIO(tableIo);
  }

  private FileIO route(String location) {
    return LocalFileIO.isLocal(location) ? local : table;
  }

  @Override
  public InputFile newInputFile(String location) {
    return route(location).newInputFile(location);
  }

  @Override
  public InputFile newInputFile(String location, long length) {
    FileIO io = route(location);
    InputFile file = io.newInputFile(location, length);
    return io == table && length > 0 && length <= wholeObjectReadMax
        ? new WholeObjectInputFile(file, length)
        : file;
  }

  @Override
  public OutputFile newOutputFile(String location) {
    return route(location).newOutputFile(location);
  }

  @Override
  public void deleteFile(String location) {
    route(location).deleteFile(location);
  }

  @Override
  public Map<String, String> properties() {
    return table.properties();
  }

  @Override
  public void initialize(Map<String, String> properties) {}

  @Override
  public void close() {
    // The table's FileIO belongs to its catalog.
  }
}
