package io.firn.core.io;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.io.FileIO;
import org.junit.jupiter.api.Test;

/** The executor's local fast path is taken for local files only (ADR 0024). */
class DataFileIOTest {
  @Test
  void objectStoreLocationsGoThroughTheTablesFileIOAndLocalOnesThroughJavaNio() {
    try (S3FileIO s3 = new S3FileIO()) {
      s3.initialize(
          Map.of(
              "s3.endpoint", "http://127.0.0.1:9",
              "client.region", "us-east-1",
              "http-client.type", "urlconnection",
              "s3.access-key-id", "k",
              "s3.secret-access-key", "s"));
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
}
