/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SeekableInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalFileIOTest {
  @TempDir Path dir;

  @Test
  void writesReadsSeeksAndDeletesFileUrisAndPlainPaths() throws Exception {
    LocalFileIO io = new LocalFileIO();
    for (String location :
        new String[] {
          dir.resolve("a/b/one.bin").toUri().toString(), dir.resolve("two.bin").toString()
        }) {
      OutputFile out = io.newOutputFile(location);
      try (PositionOutputStream stream = out.create()) {
        stream.write("hello, ".getBytes(StandardCharsets.UTF_8));
        stream.write('w');
        assertThat(stream.getPos()).isEqualTo(8);
        stream.write("orld".getBytes(StandardCharsets.UTF_8));
      }
      InputFile in = io.newInputFile(location);
      assertThat(in.exists()).isTrue();
      assertThat(in.getLength()).isEqualTo(12);
      try (SeekableInputStream stream = in.newStream()) {
        stream.seek(7);
        assertThat(stream.getPos()).isEqualTo(7);
        byte[] rest = new byte[5];
        assertThat(stream.read(rest, 0, 5)).isEqualTo(5);
        assertThat(new String(rest, StandardCharsets.UTF_8)).isEqualTo("world");
        assertThat(stream.read()).isEqualTo(-1);
      }
      assertThatThrownBy(out::create).isInstanceOf(AlreadyExistsException.class);
      io.deleteFile(location);
      assertThat(io.newInputFile(location).exists()).isFalse();
    }
  }

  @Test
  void aMissingFileIsNotFoundNamingIt() {
    String location = dir.resolve("missing.parquet").toString();
    assertThatThrownBy(() -> new LocalFileIO().newInputFile(location).newStream())
        .isInstanceOf(NotFoundException.class)
        .hasMessageContaining(location);
  }

  @Test
  void dataFileIoRoutesLocalFilesToNioAndOverwrites() throws Exception {
    FileIO routed = DataFileIO.of(new LocalFileIO());
    assertThat(routed).isInstanceOf(LocalFileIO.class);
    Path file = dir.resolve("x.bin");
    Files.writeString(file, "old");
    FileIO io = DataFileIO.of(new org.apache.iceberg.inmemory.InMemoryFileIO());
    try (PositionOutputStream stream = io.newOutputFile(file.toString()).createOrOverwrite()) {
      stream.write("new".getBytes(StandardCharsets.UTF_8));
    }
    assertThat(Files.readString(file)).isEqualTo("new");
  }

  @Test
  void listsFilesUnderAPrefixRecursivelyWithSizeAndModificationTimeAndDeletesAPrefix()
      throws Exception {
    Path table = dir.resolve("t");
    Files.createDirectories(table.resolve("data/p=1"));
    Files.createDirectories(table.resolve("metadata"));
    Files.writeString(table.resolve("data/p=1/a.parquet"), "abc");
    Files.writeString(table.resolve("metadata/v1.metadata.json"), "{}");
    Files.setLastModifiedTime(table.resolve("data/p=1/a.parquet"), FileTime.fromMillis(1_000_000));
    Files.writeString(dir.resolve("t2"), "outside");
    LocalFileIO io = new LocalFileIO();

    List<FileInfo> uris = new ArrayList<>();
    io.listPrefix(table.toUri().toString()).forEach(uris::add);
    assertThat(uris)
        .extracting(FileInfo::location)
        .containsExactly(
            "file:" + table.resolve("data/p=1/a.parquet"),
            "file:" + table.resolve("metadata/v1.metadata.json"));
    assertThat(uris.get(0).size()).isEqualTo(3);
    assertThat(uris.get(0).createdAtMillis()).isEqualTo(1_000_000);

    List<FileInfo> plain = new ArrayList<>();
    io.listPrefix(table.toString()).forEach(plain::add);
    assertThat(plain)
        .extracting(FileInfo::location)
        .containsExactly(
            table.resolve("data/p=1/a.parquet").toString(),
            table.resolve("metadata/v1.metadata.json").toString());
    assertThat(io.listPrefix(dir.resolve("missing").toString())).isEmpty();

    io.deletePrefix(table.toString());
    assertThat(table).doesNotExist();
    assertThat(dir.resolve("t2")).exists();
  }
}
