package io.firn.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dropwizard.testing.DropwizardTestSupport;
import io.firn.core.catalog.CatalogSettings;
import io.firn.core.catalog.Catalogs;
import io.firn.server.FirnServerApplication;
import io.firn.server.FirnServerConfiguration;
import io.firn.testkit.CdcTableGenerator;
import io.firn.testkit.CdcTableSpec;
import io.firn.testkit.GeneratedTable;
import io.firn.testkit.RowSets;
import io.firn.worker.cli.FirnCli;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16: tables of a REST catalog (Iceberg's REST catalog servlet on 127.0.0.1, backed by a JDBC
 * catalog on SQLite) written with equality and position deletes are optimized by {@code firn
 * optimize --catalog-type rest} and by the server with a {@code type: rest} catalog; an independent
 * REST client reads the same rows with Iceberg's generic reader before and after, from fewer files.
 */
class RestCatalogIT {
  private static final TableIdentifier SERVED = TableIdentifier.of("db", "events");
  private static final TableIdentifier CLI = TableIdentifier.of("db", "cli");
  private static final CdcTableSpec SPEC =
      new CdcTableSpec(3_000, 8, 0.1, 0.05, 0.05, 2, 16L, false, false);

  @Test
  void tablesOfARestCatalogAreOptimizedByTheCliAndTheServerWithRowsUnchanged(@TempDir Path dir)
      throws Exception {
    try (RestCatalogServer rest = new RestCatalogServer(dir)) {
      Catalog writer =
          Catalogs.connect(new CatalogSettings("lake", "rest", rest.uri(), null, Map.of()));
      assertThat(writer).isInstanceOf(RESTCatalog.class);
      GeneratedTable served = CdcTableGenerator.generate(writer, SERVED, SPEC);
      GeneratedTable cli = CdcTableGenerator.generate(writer, CLI, SPEC.withSeed(17L));

      Catalog reader = independentReader(rest.uri());
      Map<TableIdentifier, Map<String, Long>> before =
          Map.of(
              SERVED,
              RowSets.read(reader.loadTable(SERVED)),
              CLI,
              RowSets.read(reader.loadTable(CLI)));
      Map<TableIdentifier, Long> filesBefore =
          Map.of(SERVED, files(reader.loadTable(SERVED)), CLI, files(reader.loadTable(CLI)));
      for (TableIdentifier id : List.of(SERVED, CLI)) {
        Table table = reader.loadTable(id);
        assertThat(Long.parseLong(table.currentSnapshot().summary().get("total-equality-deletes")))
            .as("%s has equality deletes", id)
            .isPositive();
        GeneratedTable generated = id.equals(SERVED) ? served : cli;
        assertThat(before.get(id))
            .as("rows of %s before", id)
            .isEqualTo(RowSets.of(generated.writer().expected().values(), table.schema()));
      }

      // The CLI, as bin/firn optimize runs it.
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      int exit =
          new FirnCli(
                  new PrintStream(out, true, StandardCharsets.UTF_8),
                  new PrintStream(err, true, StandardCharsets.UTF_8))
              .run(
                  new String[] {
                    "optimize",
                    "--catalog-type",
                    "rest",
                    "--catalog-uri",
                    rest.uri(),
                    "--table",
                    "db.cli",
                    "--type",
                    "full",
                    "--threads",
                    "2"
                  });
      assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
      assertThat(exit).as("%s", out).isZero();

      // The server, with a type: rest catalog and its in-process worker.
      Path config = dir.resolve("server.yaml");
      Files.writeString(
          config,
          ServerFixture.yaml(
              """
                - name: lake
                  type: rest
                  uri: "%s"
              """
                  .formatted(rest.uri()),
              "jdbc:h2:file:" + dir.resolve("state"),
              null,
              """
                  localWorkerThreads: 2
                  lease: 30s
                  heartbeatInterval: 1s
                  retryBackoff: 1s
              """,
              ""));
      DropwizardTestSupport<FirnServerConfiguration> server =
          new DropwizardTestSupport<>(FirnServerApplication.class, config.toString());
      server.before();
      try {
        String api = "http://localhost:" + server.getLocalPort() + "/api/v1";
        await()
            .atMost(2, TimeUnit.MINUTES)
            .pollInterval(Duration.ofMillis(500))
            .untilAsserted(
                () -> {
                  Map<String, Object> table = table(api, "events");
                  assertThat(table)
                      .as("%s", table)
                      .containsEntry("status", "idle")
                      .containsEntry("needsPlan", false);
                  List<Map<String, Object>> processes =
                      Http.get(api + "/processes?table=lake.db.events").list();
                  assertThat(processes)
                      .isNotEmpty()
                      .allSatisfy(p -> assertThat(p).containsEntry("status", "succeeded"));
                });
        String health =
            Http.get("http://localhost:" + server.getAdminPort() + "/healthcheck").body();
        assertThat(health).contains("lake (rest)");
      } finally {
        server.after();
      }

      for (TableIdentifier id : List.of(SERVED, CLI)) {
        Table table = reader.loadTable(id);
        assertThat(RowSets.read(table)).as("rows of %s after", id).isEqualTo(before.get(id));
        assertThat(files(table)).as("files of %s after", id).isLessThan(filesBefore.get(id));
      }
      assertThat(reader.loadTable(SERVED).currentSnapshot().summary())
          .containsKey("firn.process-id");
      ((Closeable) reader).close();
      ((Closeable) writer).close();
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> table(String api, String name) {
    Map<String, Object> answer = Http.get(api + "/tables/lake/db/" + name).map();
    return (Map<String, Object>) answer.get("table");
  }

  /** Data and delete files of the table's current snapshot. */
  private static long files(Table table) {
    Map<String, String> summary = table.currentSnapshot().summary();
    return Long.parseLong(summary.get("total-data-files"))
        + Long.parseLong(summary.get("total-delete-files"));
  }

  /** A REST client of its own, built by Iceberg directly (not through Firn's settings). */
  private static Catalog independentReader(String uri) {
    return CatalogUtil.buildIcebergCatalog(
        "reader", Map.of("type", "rest", "uri", uri), new Configuration());
  }
}
