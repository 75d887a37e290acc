/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.firn.core.catalog.CatalogSettings;
import io.firn.core.catalog.Catalogs;
import io.firn.testkit.RowSets;
import io.firn.testkit.S3ProxyProcess;
import io.firn.testkit.ServerProcess;
import io.firn.worker.remote.HttpWorkerProtocol;
import io.firn.worker.remote.Worker;
import io.firn.worker.remote.WorkerSettings;
import java.io.Closeable;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16: the ingest job writes Debezium change events (updates, deletes, re-creates, a column
 * that appears mid-stream, malformed events) through Iceberg's dynamic sink into a JDBC catalog
 * (SQLite) whose warehouse is {@code s3://firn/wh} on S3Proxy (127.0.0.1, its own JVM), committing
 * every 200 ms. An independent catalog connection reads the rows back with Iceberg's generic
 * reader: the last image per key, deleted keys absent; every data and delete file and the table
 * metadata are on S3, nothing of the warehouse on local disk (ADR 0024 §7). Then the optimizer
 * server and an external worker optimize the tables on the same bucket, snapshot expiry and orphan
 * cleanup run: rows unchanged, exactly the planted orphans deleted (ADR 0024 §11).
 */
class ObjectStorageIngestIT {
  private static final String BUCKET = "firn";
  private static final String WAREHOUSE = "s3://" + BUCKET + "/wh";
  private static final TableIdentifier CUSTOMERS = TableIdentifier.of("events", "customers");
  private static final String CUSTOMERS_KEY = "wh/events/customers/";
  private static final String OPTIMIZING =
      """
        localWorkerThreads: 0
        lease: 30s
        heartbeatInterval: 1s
        retryBackoff: 1s
      """;

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
              "lake",
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
        Table table = reader.loadTable(CUSTOMERS);
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

        assertThat(RowSets.liveFiles(table))
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

      optimizeAndMaintain(local, s3, settings);
    }
  }

  /**
   * Issue 16's chain on the tables the job wrote: the optimizer server (child JVM, from {@code
   * optimizer-server/target}) and an external worker over HTTP optimize them on the same bucket,
   * snapshot expiry and orphan cleanup run. The rows read back through the catalog are those read
   * before; fewer live files; expired down to the optimizing commit and the job's last; orphan
   * cleanup deletes exactly the three old orphans planted under the table and keeps a young one
   * (ADR 0024 §11).
   */
  private static void optimizeAndMaintain(Path local, S3ProxyProcess s3, CatalogSettings settings)
      throws Exception {
    S3ProxyProcess.Orphans orphans = s3.plantOrphans(BUCKET, CUSTOMERS_KEY, "data/");

    Catalog reader = Catalogs.connect(settings);
    try (ServerProcess server = ServerProcess.onS3(local, s3, WAREHOUSE)) {
      Table table = reader.loadTable(CUSTOMERS);
      List<List<Object>> rows = IngestJobIT.readRows(table);
      int files = RowSets.liveFiles(table).size();
      long lastIngest = table.currentSnapshot().snapshotId();
      assertThat(table.snapshots()).as("the job's commits, one to expire").hasSizeGreaterThan(1);

      server
          .policy(ServerProcess.MAINTAINING_POLICY)
          .sections(ServerProcess.QUICK_MAINTENANCE)
          .start(OPTIMIZING);
      Worker worker =
          new Worker(
              new HttpWorkerProtocol(URI.create(server.url()), ServerProcess.WORKER_TOKEN),
              WorkerSettings.local("s3-worker", 2));
      worker.start();
      try {
        await()
            .atMost(2, TimeUnit.MINUTES)
            .pollInterval(Duration.ofMillis(500))
            .untilAsserted(
                () -> {
                  assertThat(server.pending(List.of("events.customers"))).isNull();
                  assertThat(processes(server, "minor", "major")).isNotEmpty();
                  assertThat(processes(server, "orphan-files")).isNotEmpty();
                  // Expiry ran after the optimizing commit: left are that commit and the job's
                  // last, which Flink's restore walks back to (ADR 0010).
                  Table optimized = reader.loadTable(CUSTOMERS);
                  assertThat(optimized.snapshots())
                      .as("snapshots left by expiry")
                      .extracting(Snapshot::snapshotId)
                      .containsExactly(lastIngest, optimized.currentSnapshot().snapshotId());
                  assertThat(optimized.currentSnapshot().summary()).containsKey("firn.process-id");
                });
      } finally {
        worker.close();
      }
      assertThat((String) processes(server, "orphan-files").get(0).get("message"))
          .contains(
              "3 orphan(s) (" + orphans.oldBytes() + " bytes), 3 deleted, ",
              " kept as too young, ");
      assertThat(s3.keys(BUCKET, CUSTOMERS_KEY))
          .doesNotContainAnyElementsOf(orphans.old())
          .contains(orphans.young());

      Table optimized = reader.loadTable(CUSTOMERS);
      assertThat(IngestJobIT.readRows(optimized))
          .as("rows read back from S3 after optimizing and maintenance")
          .containsExactlyInAnyOrderElementsOf(rows);
      assertThat(RowSets.liveFiles(optimized)).hasSizeLessThan(files);
    } finally {
      ((Closeable) reader).close();
    }
  }

  private static List<Map<String, Object>> processes(ServerProcess server, String... types) {
    return server.list("/processes?table=lake.events.customers").stream()
        .filter(p -> List.of(types).contains(p.get("type")))
        .toList();
  }
}
