/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.distribution;

import java.nio.file.Path;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.hadoop.HadoopFileIO;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;

/**
 * A read-only FileIO that resolves relative paths against the catalog property {@value #BASE}. The
 * embedded default catalog's warehouse is relative ({@code firn-data/warehouse}), so its tables'
 * metadata and data files are named relative to the directory the server and the ingest job run in;
 * an independent reader in another working directory needs them resolved there.
 */
public final class RelativePathsFileIO implements FileIO {
  static final String BASE = "firn.test.base-directory";

  private final HadoopFileIO files = new HadoopFileIO(new Configuration());
  private Path base;

  @Override
  public void initialize(Map<String, String> properties) {
    base = Path.of(properties.get(BASE));
    files.initialize(properties);
  }

  private String resolve(String path) {
    return path.startsWith("/") || path.contains(":") ? path : base.resolve(path).toString();
  }

  @Override
  public InputFile newInputFile(String path) {
    return files.newInputFile(resolve(path));
  }

  @Override
  public OutputFile newOutputFile(String path) {
    throw new UnsupportedOperationException("the independent reader writes nothing: " + path);
  }

  @Override
  public void deleteFile(String path) {
    throw new UnsupportedOperationException("the independent reader deletes nothing: " + path);
  }

  @Override
  public Map<String, String> properties() {
    return files.properties();
  }

  @Override
  public void close() {
    files.close();
  }
}
