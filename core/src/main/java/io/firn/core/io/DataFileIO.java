package io.firn.core.io;

import java.util.Map;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;

/**
 * The FileIO Firn reads and writes data and delete files with: local files through {@link
 * LocalFileIO}, everything else through the table's own FileIO. Table metadata is always written by
 * the catalog's FileIO; only file bytes take this path, and locations stay exactly as the table
 * names them.
 */
public final class DataFileIO implements FileIO {
  private static final long serialVersionUID = 1L;

  private final FileIO table;
  private final LocalFileIO local = new LocalFileIO();

  private DataFileIO(FileIO table) {
    this.table = table;
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
    return route(location).newInputFile(location, length);
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
