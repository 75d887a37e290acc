/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dropwizard.testing.DropwizardTestSupport;
import io.firn.cli.testing.CliRun;
import io.firn.server.FirnServerApplication;
import io.firn.server.FirnServerConfiguration;
import io.firn.testkit.CdcTableGenerator;
import io.firn.testkit.CdcTableSpec;
import io.firn.testkit.GeneratedTable;
import io.firn.testkit.Http;
import io.firn.testkit.RowSets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * One scenario for every catalog type a test can start (ADR 0025): two tables written with equality
 * and position deletes through the catalog; {@code db.cli} optimized by {@code firn optimize} with
 * the catalog options, {@code db.events} by the server with the catalog in its YAML and its
 * in-process worker; an independent client of the same catalog reads the same rows with Iceberg's
 * generic reader before and after, from fewer files, and the health check names the catalog type.
 */
final class CatalogRoundTrip {
  static final TableIdentifier SERVED = TableIdentifier.of("db", "events");
  static final TableIdentifier CLI = TableIdentifier.of("db", "cli");
  private static final CdcTableSpec SPEC =
      new CdcTableSpec(3_000, 8, 0.1, 0.05, 0.05, 2, 16L, false, false);

  private CatalogRoundTrip() {}

  /**
   * @param writer the catalog the tables are written through (Firn's connection)
   * @param reader an independent client of the same catalog
   * @param type the catalog type, as the health check names it
   * @param cliCatalogOptions the CLI's catalog options ({@code --catalog-type}, {@code
   *     --catalog-uri}, ...)
   * @param yamlCatalog the server's {@code catalogs:} entry for a catalog named {@code lake}
   */
  static void run(
      Path dir,
      Catalog writer,
      Catalog reader,
      String type,
      List<String> cliCatalogOptions,
      String yamlCatalog)
      throws Exception {
    GeneratedTable served = CdcTableGenerator.generate(writer, SERVED, SPEC);
    GeneratedTable cli = CdcTableGenerator.generate(writer, CLI, SPEC.withSeed(17L));
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
    List<String> args = new ArrayList<>(List.of("optimize"));
    args.addAll(cliCatalogOptions);
    args.addAll(List.of("--table", "db.cli", "--type", "full", "--threads", "2"));
    CliRun run = CliRun.of(args);
    assertThat(run.err()).isEmpty();
    assertThat(run.exit()).as("%s", run.out()).isZero();

    // The server, with the catalog in its YAML and its in-process worker.
    Path config = dir.resolve("server.yaml");
    Files.writeString(
        config,
        ServerFixture.yaml(
            yamlCatalog,
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
                assertThat(Http.get(api + "/processes?table=lake.db.events").list())
                    .isNotEmpty()
                    .allSatisfy(p -> assertThat(p).containsEntry("status", "succeeded"));
              });
      String health = Http.get("http://localhost:" + server.getAdminPort() + "/healthcheck").body();
      assertThat(health).contains("\"catalog:lake\"", "catalog 'lake' (" + type + ") reachable");
    } finally {
      server.after();
    }

    for (TableIdentifier id : List.of(SERVED, CLI)) {
      Table table = reader.loadTable(id);
      assertThat(RowSets.read(table)).as("rows of %s after", id).isEqualTo(before.get(id));
      assertThat(files(table)).as("files of %s after", id).isLessThan(filesBefore.get(id));
    }
    assertThat(reader.loadTable(SERVED).currentSnapshot().summary()).containsKey("firn.process-id");
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
}
