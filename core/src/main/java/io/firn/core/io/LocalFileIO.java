/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.io;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * A {@link FileIO} for local files ({@code file:} URIs and absolute paths) through {@code
 * java.nio}. Iceberg ships none: its {@code HadoopFileIO} forks a {@code chmod} process per created
 * file when Hadoop's native library is absent and copies the Hadoop configuration on every open
 * (ARCHITECTURE.md, "Performance facts"). Usable as a catalog's {@code io-impl}. Supports prefix
 * listing (orphan file cleanup needs it). Thread-safe.
 */
public class LocalFileIO implements SupportsPrefixOperations {
  private static final long serialVersionUID = 1L;

  private Map<String, String> properties = Map.of();

  public LocalFileIO() {}

  /** Whether a location is a local file this class can serve. */
  public static boolean isLocal(String location) {
    return location.startsWith("file:") || location.startsWith("/");
  }

  static Path path(String location) {
    if (location.startsWith("file:")) {
      // file:/a/b, file:///a/b
      return Path.of(URI.create(location.replace(" ", "%20")));
    }
    return Path.of(location);
  }

  @Override
  public InputFile newInputFile(String location) {
    return new LocalInputFile(location, -1);
  }

  @Override
  public InputFile newInputFile(String location, long length) {
    return new LocalInputFile(location, length);
  }

  @Override
  public OutputFile newOutputFile(String location) {
    return new LocalOutputFile(location);
  }

  @Override
  public void deleteFile(String location) {
    try {
      Files.deleteIfExists(path(location));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + location, e);
    }
  }

  /**
   * Lists the regular files under a directory, recursively, in path order. Locations keep the
   * prefix's form: {@code file:/a/b} for a {@code file:} prefix, {@code /a/b} for a plain path.
   * {@link FileInfo#createdAtMillis()} is the file's last-modified time. A missing directory lists
   * nothing.
   *
   * @throws UncheckedIOException when the directory cannot be walked
   */
  @Override
  public Iterable<FileInfo> listPrefix(String prefix) {
    Path root = path(prefix);
    if (!Files.isDirectory(root)) {
      return List.of();
    }
    boolean uri = prefix.startsWith("file:");
    List<FileInfo> files = new ArrayList<>();
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path file : (Iterable<Path>) walk.sorted()::iterator) {
        if (Files.isRegularFile(file)) {
          String location = uri ? "file:" + file.toAbsolutePath() : file.toString();
          files.add(
              new FileInfo(location, Files.size(file), Files.getLastModifiedTime(file).toMillis()));
        }
      }
    } catch (NoSuchFileException e) {
      // Removed while walking: what is gone needs no listing.
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + prefix, e);
    }
    return files;
  }

  /** Deletes a directory and everything under it; a missing directory is no error. */
  @Override
  public void deletePrefix(String prefix) {
    Path root = path(prefix);
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path file : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(file);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + prefix, e);
    }
  }

  @Override
  public void initialize(Map<String, String> properties) {
    this.properties = Map.copyOf(properties);
  }

  /** The catalog properties this FileIO was initialized with (it uses none of them). */
  @Override
  public Map<String, String> properties() {
    return properties;
  }

  private static final class LocalInputFile implements InputFile {
    private final String location;
    private long length;

    LocalInputFile(String location, long length) {
      this.location = location;
      this.length = length;
    }

    @Override
    public long getLength() {
      if (length < 0) {
        try {
          length = Files.size(path(location));
        } catch (NoSuchFileException e) {
          throw new NotFoundException(e, "file does not exist: %s", location);
        } catch (IOException e) {
          throw new UncheckedIOException("cannot read the size of " + location, e);
        }
      }
      return length;
    }

    @Override
    public SeekableInputStream newStream() {
      try {
        return new ChannelInputStream(FileChannel.open(path(location), StandardOpenOption.READ));
      } catch (NoSuchFileException e) {
        throw new NotFoundException(e, "file does not exist: %s", location);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot open " + location, e);
      }
    }

    @Override
    public String location() {
      return location;
    }

    @Override
    public boolean exists() {
      return Files.exists(path(location));
    }
  }

  private static final class ChannelInputStream extends SeekableInputStream {
    private final FileChannel channel;
    private final ByteBuffer one = ByteBuffer.allocate(1);

    ChannelInputStream(FileChannel channel) {
      this.channel = channel;
    }

    @Override
    public long getPos() throws IOException {
      return channel.position();
    }

    @Override
    public void seek(long newPos) throws IOException {
      channel.position(newPos);
    }

    @Override
    public int read() throws IOException {
      one.clear();
      int n = channel.read(one);
      return n <= 0 ? -1 : one.get(0) & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (len == 0) {
        return 0;
      }
      return channel.read(ByteBuffer.wrap(b, off, len));
    }

    @Override
    public long skip(long n) throws IOException {
      long target = Math.min(channel.size(), channel.position() + Math.max(0, n));
      long skipped = target - channel.position();
      channel.position(target);
      return skipped;
    }

    @Override
    public int available() throws IOException {
      return (int) Math.min(Integer.MAX_VALUE, channel.size() - channel.position());
    }

    @Override
    public void close() throws IOException {
      channel.close();
    }
  }

  private static final class LocalOutputFile implements OutputFile {
    private final String location;

    LocalOutputFile(String location) {
      this.location = location;
    }

    @Override
    public PositionOutputStream create() {
      return open(false);
    }

    @Override
    public PositionOutputStream createOrOverwrite() {
      return open(true);
    }

    private PositionOutputStream open(boolean overwrite) {
      Path path = path(location);
      try {
        Path parent = path.getParent();
        if (parent != null) {
          Files.createDirectories(parent);
        }
        OutputStream out =
            overwrite
                ? Files.newOutputStream(path)
                : Files.newOutputStream(
                    path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        return new CountingOutputStream(new java.io.BufferedOutputStream(out, 1 << 16));
      } catch (FileAlreadyExistsException e) {
        throw new AlreadyExistsException(e, "file already exists: %s", location);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create " + location, e);
      }
    }

    @Override
    public String location() {
      return location;
    }

    @Override
    public InputFile toInputFile() {
      return new LocalInputFile(location, -1);
    }
  }

  private static final class CountingOutputStream extends PositionOutputStream {
    private final OutputStream out;
    private long pos;

    CountingOutputStream(OutputStream out) {
      this.out = out;
    }

    @Override
    public long getPos() {
      return pos;
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
      pos++;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
      pos += len;
    }

    @Override
    public void flush() throws IOException {
      out.flush();
    }

    @Override
    public void close() throws IOException {
      out.close();
    }
  }
}
