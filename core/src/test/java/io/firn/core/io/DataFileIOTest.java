/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.EOFException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.SeekableInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The executor's local fast path is taken for local files only; small objects are read whole (ADR
 * 0024 §4, §12).
 */
class DataFileIOTest {
  @Test
  void objectStoreLocationsGoThroughTheTablesFileIOAndLocalOnesThroughJavaNio() {
    try (S3FileIO s3 = s3(Map.of())) {
      FileIO io = DataFileIO.of(s3);
      for (String remote :
          new String[] {"s3://b/wh/t/data/a.parquet", "s3a://b/a.parquet", "s3n://b/a.parquet"}) {
        assertThat(io.newInputFile(remote).getClass().getName())
            .isEqualTo("org.apache.iceberg.aws.s3.S3InputFile");
        assertThat(io.newOutputFile(remote).getClass().getName())
            .isEqualTo("org.apache.iceberg.aws.s3.S3OutputFile");
      }
      for (String local : new String[] {"/tmp/wh/t/data/a.parquet", "file:/tmp/a.parquet"}) {
        assertThat(io.newInputFile(local).getClass().getEnclosingClass())
            .isEqualTo(LocalFileIO.class);
      }
    }
  }

  @Test
  void smallObjectsOfKnownLengthAreReadWholeAndLargerOnesOrLocalOnesAsBefore() {
    try (S3FileIO s3 = s3(Map.of());
        S3FileIO off = s3(Map.of(DataFileIO.WHOLE_OBJECT_READ_MAX, "0"));
        S3FileIO oneMiB = s3(Map.of(DataFileIO.WHOLE_OBJECT_READ_MAX, "1MiB"))) {
      String remote = "s3://b/wh/t/data/a.parquet";
      FileIO io = DataFileIO.of(s3);
      assertThat(io.newInputFile(remote, 26_000)).isInstanceOf(WholeObjectInputFile.class);
      assertThat(io.newInputFile(remote, 4 << 20)).isInstanceOf(WholeObjectInputFile.class);
      assertThat(io.newInputFile(remote, (4 << 20) + 1).getClass().getSimpleName())
          .isEqualTo("S3InputFile");
      assertThat(io.newInputFile(remote).getClass().getSimpleName())
          .as("length unknown")
          .isEqualTo("S3InputFile");
      assertThat(io.newInputFile("/tmp/a.parquet", 26_000).getClass().getEnclosingClass())
          .isEqualTo(LocalFileIO.class);
      assertThat(DataFileIO.of(off).newInputFile(remote, 26_000).getClass().getSimpleName())
          .isEqualTo("S3InputFile");
      assertThat(DataFileIO.of(oneMiB).newInputFile(remote, 1 << 20))
          .isInstanceOf(WholeObjectInputFile.class);
      assertThat(
              DataFileIO.of(oneMiB).newInputFile(remote, (1 << 20) + 1).getClass().getSimpleName())
          .isEqualTo("S3InputFile");
    }
    try (S3FileIO wrong = s3(Map.of(DataFileIO.WHOLE_OBJECT_READ_MAX, "four"))) {
      assertThatThrownBy(() -> DataFileIO.of(wrong))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("firn.io.whole-object-read-max = 'four'");
    }
  }

  /** Read once, then served from memory: seeks backwards and forwards read the object's bytes. */
  @Test
  void aWholeObjectReadServesSeeksFromTheBytesOfOneRead(@TempDir Path dir) throws IOException {
    byte[] bytes = new byte[10_000];
    new Random(7).nextBytes(bytes);
    Path file = Files.write(dir.resolve("a.parquet"), bytes);
    InputFile whole =
        new WholeObjectInputFile(new LocalFileIO().newInputFile(file.toString()), bytes.length);
    assertThat(whole.getLength()).isEqualTo(10_000);
    try (SeekableInputStream in = whole.newStream()) {
      in.seek(9_992);
      assertThat(in.readNBytes(8)).isEqualTo(Arrays.copyOfRange(bytes, 9_992, 10_000));
      assertThat(in.read()).isEqualTo(-1);
      assertThat(in.read(new byte[4], 0, 4)).isEqualTo(-1);
      in.seek(100);
      assertThat(in.getPos()).isEqualTo(100);
      assertThat(in.readNBytes(50)).isEqualTo(Arrays.copyOfRange(bytes, 100, 150));
      assertThat(in.skip(50)).isEqualTo(50);
      assertThat(in.read()).isEqualTo(bytes[200] & 0xFF);
      in.seek(0);
      assertThat(in.readAllBytes()).isEqualTo(bytes);
      assertThatThrownBy(() -> in.seek(10_001)).isInstanceOf(EOFException.class);
    }
    InputFile longer =
        new WholeObjectInputFile(new LocalFileIO().newInputFile(file.toString()), 10_001);
    assertThatThrownBy(longer::newStream)
        .hasMessageContaining("ends after 10000 bytes, its metadata says 10001");
  }

  private static S3FileIO s3(Map<String, String> extra) {
    Map<String, String> properties =
        new HashMap<>(
            Map.of(
                "s3.endpoint", "http://127.0.0.1:9",
                "client.region", "us-east-1",
                "http-client.type", "urlconnection",
                "s3.access-key-id", "k",
                "s3.secret-access-key", "s"));
    properties.putAll(extra);
    S3FileIO io = new S3FileIO();
    io.initialize(properties);
    return io;
  }
}
