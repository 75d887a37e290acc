package io.firn.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.firn.core.catalog.CatalogSettings;
import io.firn.core.catalog.Catalogs;
import io.firn.testkit.S3ProxyProcess;
import java.io.Closeable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16: the ingest job writes Debezium change events (updates, deletes, re-creates, a column
 * that appears mid-stream, malformed events) through Iceberg's dynamic sink into a JDBC catalog
 * (SQLite) whose warehouse is {@code s3://firn/wh} on S3Proxy (127.0.0.1, its own JVM), committing
 * every 200 ms. An independent catalog connection reads the rows back with Iceberg's generic
 * reader: the last image per key, deleted keys absent; every data and delete file and the table
 * metadata are on S3, nothing of the warehouse on local disk (ADR 0024 §7).
 */
class ObjectStorageIngestIT {
  private static final String BUCKET = "firn";
  private static final String WAREHOUSE = "s3://" + BUCKET + "/wh";

  @RegisterExtension
  static final MiniClusterExtension CLUSTER =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(4)
              .build());

  @Test
  void changeEventsUpsertIntoTablesOnS3AndReadBackAsTheLastImagePerKey(@TempDir Path dir)
      throws Exception {
    try (S3ProxyProcess s3 = new S3ProxyProcess(dir.resolve("s3"))) {
      s3.createBucket(BUCKET);
      Path local = Files.createDirectories(dir.resolve("catalog"));
      CatalogSettings settings =
          new CatalogSettings(
              "firn",
              "jdbc",
              "jdbc:sqlite:" + local.resolve("catalog.db"),
              WAREHOUSE,
              s3.catalogProperties());
      List<String> events = ChangeEvents.events(300);

      // 300 events at 150/s, a commit every 200 ms: updates and deletes reach rows of earlier
      // commits (equality deletes read back from S3).
      ListedEvents.runJob(
          events,
          IngestSettings.defaults("events").withFormat(EventFormat.DEBEZIUM),
          IngestJob.catalogLoader(settings),
          150,
          "ingest-s3-it");

      Catalog reader = Catalogs.connect(settings);
      try {
        Table table = reader.loadTable(TableIdentifier.of("events", "customers"));
        assertThat(table.location()).isEqualTo(WAREHOUSE + "/events/customers");
        assertThat(table.currentSnapshot().summary())
            .as("deletes of committed rows are equality deletes")
            .hasEntrySatisfying(
                "total-equality-deletes", v -> assertThat(Long.parseLong(v)).isPositive());
        List<List<Object>> wanted = new ArrayList<>();
        for (JsonNode row : ChangeEvents.expected(events).values()) {
          wanted.add(IngestJobIT.toRow(table, row));
        }
        assertThat(IngestJobIT.readRows(table))
            .as("last image per key, deleted keys absent, read from S3")
            .containsExactlyInAnyOrderElementsOf(wanted);

        assertThat(fileLocations(table))
            .as("data and delete files of %s", table.name())
            .isNotEmpty()
            .allSatisfy(location -> assertThat(location).startsWith(table.location() + "/data/"));
        assertThat(s3.keys(BUCKET, "wh/events/customers/metadata/"))
            .as("table metadata on S3")
            .anySatisfy(key -> assertThat(key).endsWith(".metadata.json"));
        assertThat(
                reader
                    .loadTable(TableIdentifier.of("events", "dead_letters"))
                    .currentSnapshot()
                    .summary())
            .as("the malformed events are dead letters on S3")
            .containsEntry("total-records", String.valueOf(ChangeEvents.MALFORMED.size()));
      } finally {
        ((Closeable) reader).close();
      }
      try (Stream<Path> files = Files.list(local)) {
        assertThat(files.map(p -> p.getFileName().toString()))
            .as("on local disk: the SQLite catalog only, no warehouse directory")
            .allSatisfy(name -> assertThat(name).startsWith("catalog.db"));
      }
      assertThat(dir.resolve("wh")).doesNotExist();
      assertThat(Path.of("s3:")).as("no local directory named after the URI scheme").doesNotExist();
    }
  }

  /** Locations of the live data and delete files of {@code table}. */
  private static List<String> fileLocations(Table table) throws java.io.IOException {
    List<String> locations = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        locations.add(task.file().location());
        task.deletes().stream().map(ContentFile::location).forEach(locations::add);
      }
    }
    return locations;
  }
}
