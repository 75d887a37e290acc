/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dropwizard.testing.DropwizardTestSupport;
import io.firn.core.catalog.CatalogSettings;
import io.firn.core.catalog.Catalogs;
import io.firn.core.io.DataFileIO;
import io.firn.server.FirnServerApplication;
import io.firn.server.FirnServerConfiguration;
import io.firn.testkit.CdcTableGenerator;
import io.firn.testkit.CdcTableSpec;
import io.firn.testkit.GeneratedTable;
import io.firn.testkit.Http;
import io.firn.testkit.RowSets;
import io.firn.testkit.S3ProxyProcess;
import io.firn.testkit.S3Requests;
import io.firn.testkit.ServerProcess;
import io.firn.worker.remote.HttpWorkerProtocol;
import io.firn.worker.remote.Worker;
import io.firn.worker.remote.WorkerSettings;
import java.io.Closeable;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16: a table on an S3-compatible store (S3Proxy on 127.0.0.1, its own JVM) with a JDBC
 * catalog on SQLite and warehouse {@code s3://firn/wh}, written with equality and position deletes
 * by several commits, is optimized by the server and an external worker (the worker protocol over
 * HTTP, its own catalog connection with the settings the server hands out), then snapshot expiry
 * and orphan cleanup run. The rows read back through the catalog by Iceberg's generic reader are
 * the generator's; orphan cleanup deletes exactly the planted old orphans and keeps a young one and
 * the files of a table whose location shares the key prefix ({@code events_old}). Prints the S3
 * requests of each part (ADR 0024). A second test counts the GETs of small files (§12).
 */
class ObjectStorageIT {
  private static final String BUCKET = "firn";
  private static final String WAREHOUSE = "s3://" + BUCKET + "/wh";
  private static final String EVENTS = "wh/db/events/";

  @Test
  void aTableOnS3IsOptimizedAndMaintainedWithRowsUnchangedAndOnlyPlantedOrphansRemoved(
      @TempDir Path dir) throws Exception {
    try (S3ProxyProcess s3 = new S3ProxyProcess(dir)) {
      s3.createBucket(BUCKET);
      Path catalogFile = Files.createFile(dir.resolve("catalog.db"));
      CatalogSettings settings =
          new CatalogSettings(
              "lake", "jdbc", "jdbc:sqlite:" + catalogFile, WAREHOUSE, s3.catalogProperties());
      Catalog writerCatalog = Catalogs.connect(settings);
      GeneratedTable events =
          CdcTableGenerator.generate(
              writerCatalog,
              TableIdentifier.of("db", "events"),
              new CdcTableSpec(3_000, 8, 0.1, 0.05, 0.05, 2, 16L, false, false));
      GeneratedTable sibling =
          CdcTableGenerator.generate(
              writerCatalog,
              TableIdentifier.of("db", "events_old"),
              new CdcTableSpec(400, 3, 0.1, 0.05, 0.05, 0, 17L, false, false));
      Map<String, Map<String, Long>> writing = S3Requests.snapshot();
      S3Requests.reset();

      // Three old orphans and a young one are planted in events; every file of events_old, whose
      // location shares the key prefix wh/db/events, is two days old: were it listed with events,
      // its files would be orphans of events.
      s3.age(BUCKET, "wh/db/events_old", Instant.now().minus(Duration.ofDays(2)));
      S3ProxyProcess.Orphans planted = s3.plantOrphans(BUCKET, EVENTS, "data/id_bucket=0/");

      Path policy = dir.resolve("policy.yaml");
      Files.writeString(policy, ServerProcess.MAINTAINING_POLICY);
      Path config = dir.resolve("server.yaml");
      Files.writeString(config, serverConfig(catalogFile, s3, dir, policy));

      DropwizardTestSupport<FirnServerConfiguration> server =
          new DropwizardTestSupport<>(FirnServerApplication.class, config.toString());
      server.before();
      Worker worker = null;
      try {
        String url = "http://localhost:" + server.getLocalPort();
        String api = url + "/api/v1";
        worker =
            new Worker(
                new HttpWorkerProtocol(URI.create(url), ServerFixture.WORKER_TOKEN),
                WorkerSettings.local("s3-worker", 2));
        worker.start();

        await()
            .atMost(2, TimeUnit.MINUTES)
            .pollInterval(Duration.ofMillis(500))
            .untilAsserted(
                () -> {
                  for (Map<String, Object> table : Http.get(api + "/tables").list()) {
                    assertThat(table)
                        .as("%s", table)
                        .containsEntry("status", "idle")
                        .containsEntry("needsPlan", false);
                  }
                  assertThat(processes(api, "events", "minor", "major"))
                      .isNotEmpty()
                      .allSatisfy(p -> assertThat(p).containsEntry("status", "succeeded"));
                  assertThat(processes(api, "events", "orphan-files")).isNotEmpty();
                  // Expiry ran after the last optimizing commit: one snapshot is left.
                  Table table = writerCatalog.loadTable(TableIdentifier.of("db", "events"));
                  assertThat(table.snapshots()).hasSize(1);
                  assertThat(table.currentSnapshot().summary()).containsKey("firn.process-id");
                });

        Map<String, Object> orphans = processes(api, "events", "orphan-files").get(0);
        assertThat(orphans).containsEntry("status", "succeeded");
        assertThat((String) orphans.get("message"))
            .contains(
                "3 orphan(s) (" + planted.oldBytes() + " bytes), 3 deleted, ",
                " kept as too young, 0 Flink file(s) kept");
        assertThat(s3.keys(BUCKET, EVENTS))
            .doesNotContainAnyElementsOf(planted.old())
            .contains(planted.young());

        List<Map<String, Object>> optimizing = new ArrayList<>();
        optimizing.addAll(processes(api, "events", "minor", "major"));
        optimizing.addAll(processes(api, "events_old", "minor", "major"));
        int tasks = optimizing.stream().mapToInt(p -> ((Number) p.get("tasks")).intValue()).sum();
        report(writing, S3Requests.snapshot(), optimizing.size(), tasks);
      } finally {
        if (worker != null) {
          worker.close();
        }
        server.after();
      }

      // An independent reader: its own catalog and S3FileIO, Iceberg's generic reader.
      Catalog reader = readerCatalog(catalogFile, s3);
      for (Map.Entry<String, GeneratedTable> generated :
          Map.of("db.events", events, "db.events_old", sibling).entrySet()) {
        Table table = reader.loadTable(TableIdentifier.parse(generated.getKey()));
        assertThat(RowSets.read(table))
            .as("rows of %s", table.name())
            .isEqualTo(
                RowSets.of(generated.getValue().writer().expected().values(), table.schema()));
      }
      ((Closeable) reader).close();
      ((Closeable) writerCatalog).close();
    }
  }

  /**
   * ADR 0024 §12: read through {@link DataFileIO}, as the executor and the result check read, each
   * small data file costs one {@code GetObject}; with {@code firn.io.whole-object-read-max: 0} the
   * ranged reads of {@code S3FileIO} (two or more per Parquet file) come back.
   */
  @Test
  void aSmallFileIsReadWithOneGetUnlessTurnedOff(@TempDir Path dir) throws Exception {
    try (S3ProxyProcess s3 = new S3ProxyProcess(dir)) {
      s3.createBucket(BUCKET);
      Path catalogFile = Files.createFile(dir.resolve("catalog.db"));
      Catalog catalog =
          Catalogs.connect(
              new CatalogSettings(
                  "lake", "jdbc", "jdbc:sqlite:" + catalogFile, WAREHOUSE, s3.catalogProperties()));
      TableIdentifier id = TableIdentifier.of("db", "small");
      CdcTableGenerator.generate(
          catalog, id, new CdcTableSpec(2_000, 4, 0.1, 0.05, 0.05, 2, 18L, false, false));
      Table table = catalog.loadTable(id);
      List<DataFile> files = new ArrayList<>();
      try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
        tasks.forEach(t -> files.add(t.file()));
      }
      assertThat(files).hasSizeGreaterThan(4);
      assertThat(getsToRead(table, files)).isEqualTo(files.size());

      Map<String, String> off = new HashMap<>(s3.catalogProperties());
      off.put(DataFileIO.WHOLE_OBJECT_READ_MAX, "0");
      Catalog ranged =
          Catalogs.connect(
              new CatalogSettings("lake", "jdbc", "jdbc:sqlite:" + catalogFile, WAREHOUSE, off));
      assertThat(getsToRead(ranged.loadTable(id), files)).isGreaterThanOrEqualTo(2L * files.size());
      ((Closeable) ranged).close();
      ((Closeable) catalog).close();
    }
  }

  /** The {@code GetObject} requests of reading every row of the files through DataFileIO. */
  private static long getsToRead(Table table, List<DataFile> files) throws Exception {
    FileIO io = DataFileIO.of(table.io());
    S3Requests.reset();
    for (DataFile file : files) {
      long rows = 0;
      try (CloseableIterable<Record> records =
          FormatModelRegistry.<Record, Object>readBuilder(
                  file.format(),
                  Record.class,
                  io.newInputFile(file.location(), file.fileSizeInBytes()))
              .project(table.schema())
              .build()) {
        for (Record ignored : records) {
          rows++;
        }
      }
      assertThat(rows).as("rows of %s", file.location()).isEqualTo(file.recordCount());
    }
    return S3Requests.snapshot()
        .getOrDefault(S3Requests.part(Thread.currentThread().getName()), Map.of())
        .getOrDefault("GetObject", 0L);
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> processes(String api, String table, String... types) {
    List<Map<String, Object>> matching = new ArrayList<>();
    for (Map<String, Object> process : Http.get(api + "/processes?table=lake.db." + table).list()) {
      if (List.of(types).contains(process.get("type"))) {
        matching.add(process);
      }
    }
    return matching;
  }

  private static Catalog readerCatalog(Path catalogFile, S3ProxyProcess s3) {
    Map<String, String> properties = new HashMap<>(s3.catalogProperties());
    properties.put("type", "jdbc");
    properties.put("uri", "jdbc:sqlite:" + catalogFile);
    properties.put("warehouse", WAREHOUSE);
    properties.put("io-impl", "org.apache.iceberg.aws.s3.S3FileIO");
    properties.put("http-client.type", "urlconnection");
    return CatalogUtil.buildIcebergCatalog("lake", properties, new Configuration());
  }

  private static String serverConfig(Path catalogFile, S3ProxyProcess s3, Path dir, Path policy) {
    return ServerFixture.yaml(
        catalogFile,
        WAREHOUSE,
        s3.catalogProperties(),
        "jdbc:h2:file:" + dir.resolve("state"),
        null,
        """
          localWorkerThreads: 0
          lease: 30s
          heartbeatInterval: 1s
          retryBackoff: 1s
        """,
        """
        policies:
          path: "%s"
        """
                .formatted(policy)
            + ServerProcess.QUICK_MAINTENANCE);
  }

  /** Prints the S3 requests of each part of Firn, and per optimizing task. */
  private static void report(
      Map<String, Map<String, Long>> writing,
      Map<String, Map<String, Long>> serving,
      int processes,
      int tasks) {
    StringBuilder out = new StringBuilder("S3 requests (S3Proxy on 127.0.0.1):\n");
    writing.forEach(
        (part, ops) ->
            out.append("  writing, ").append(part).append(": ").append(ops).append('\n'));
    serving.forEach(
        (part, ops) -> out.append("  ").append(part).append(": ").append(ops).append('\n'));
    long worker = S3Requests.total("firn-worker-slot");
    out.append(
        String.format(
            "  %d optimizing processes, %d tasks: %d worker requests (%.1f per task)%n",
            processes, tasks, worker, tasks == 0 ? 0.0 : (double) worker / tasks));
    System.out.print(out);
  }
}
