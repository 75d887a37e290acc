package io.firn.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.firn.testkit.CdcTableGenerator;
import io.firn.testkit.CdcTableSpec;
import io.firn.testkit.GeneratedTable;
import jakarta.ws.rs.core.GenericType;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Boots the server on ports 0 against a JDBC (SQLite) catalog with an embedded H2 state store,
 * generates tables while it runs, and reads what it reports.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class FirnServerApplicationTest {
  private static final Path DIR = createDirectory();
  private static final Path CATALOG_FILE = DIR.resolve("catalog.db");
  private static final Path WAREHOUSE = DIR.resolve("warehouse");
  private static final JdbcCatalog CATALOG = createCatalog();

  private static final DropwizardAppExtension<FirnServerConfiguration> APP =
      new DropwizardAppExtension<>(FirnServerApplication.class, writeConfig().toString());

  private static final CdcTableSpec TINY =
      new CdcTableSpec(300, 3, 0.0, 0.0, 0.0, 0, 7L, false, false);

  @AfterAll
  static void closeCatalog() throws IOException {
    CATALOG.close();
  }

  @Test
  void discoversNewTablesAndReportsWhichNeedAPlanAndServesPromtoolCleanMetrics() throws Exception {
    // Created after the server started: discovery needs no restart.
    GeneratedTable cdc =
        CdcTableGenerator.generate(CATALOG, TableIdentifier.of("db", "cdc"), CdcTableSpec.small(2));
    CdcTableGenerator.generate(
        CATALOG, TableIdentifier.of(Namespace.of("db", "nested"), "tiny"), TINY);
    CdcTableGenerator.generate(CATALOG, TableIdentifier.of("scratch", "ignored"), TINY);

    await()
        .atMost(60, TimeUnit.SECONDS)
        .untilAsserted(
            () ->
                assertThat(tables())
                    .extracting(t -> t.get("namespace") + "." + t.get("table"))
                    .containsExactly("db.cdc", "db.nested.tiny"));
    Map<String, Object> table = table("db", "cdc").orElseThrow();
    assertThat(table)
        .containsEntry("catalog", "lake")
        .containsEntry("needsPlan", true)
        .containsKeys("reason", "evaluatedAt");
    assertThat(snapshotId(table)).isEqualTo(cdc.table().currentSnapshot().snapshotId());
    assertThat((String) table.get("reason")).contains("have delete files or small data files");

    // Unchanged snapshots are not evaluated again.
    double evaluations = evaluations();
    String evaluatedAt = (String) table.get("evaluatedAt");
    app().watcher().round();
    app().watcher().round();
    assertThat(evaluations()).isEqualTo(evaluations);
    assertThat(table("db", "cdc").orElseThrow()).containsEntry("evaluatedAt", evaluatedAt);

    // A new snapshot is.
    cdc.writer().commit(20, 2);
    cdc.table().refresh();
    long newSnapshot = cdc.table().currentSnapshot().snapshotId();
    await()
        .atMost(30, TimeUnit.SECONDS)
        .untilAsserted(
            () -> assertThat(snapshotId(table("db", "cdc").orElseThrow())).isEqualTo(newSnapshot));
    assertThat(evaluations()).isEqualTo(evaluations + 1);

    // A dropped table is forgotten.
    CATALOG.dropTable(TableIdentifier.of(Namespace.of("db", "nested"), "tiny"), false);
    await()
        .atMost(30, TimeUnit.SECONDS)
        .untilAsserted(() -> assertThat(table("db.nested", "tiny")).isEmpty());

    Response response =
        APP.client().target("http://localhost:" + APP.getAdminPort() + "/metrics").request().get();
    assertThat(response.getStatus()).isEqualTo(200);
    assertThat(response.getHeaderString("Content-Type"))
        .isEqualTo("text/plain; version=0.0.4; charset=utf-8");
    String scrape = response.readEntity(String.class);
    assertThat(scrape)
        .contains("# HELP firn_tables_watched ")
        .contains("firn_tables_watched{catalog=\"lake\"} 1.0")
        .contains("# HELP firn_table_evaluations_total ")
        .contains("firn_table_evaluations_total{result=\"needs_plan\"}")
        .contains("firn_table_evaluations_total{result=\"error\"} 0.0")
        .contains("# HELP firn_watch_duration_seconds ")
        .contains("firn_watch_duration_seconds_count")
        .contains("jvm_memory_used_bytes");

    Path promtool = promtool();
    Assumptions.assumeTrue(
        promtool != null,
        "promtool is not on PATH (Debian package 'prometheus'): the scrape was not checked");
    Process check =
        new ProcessBuilder(promtool.toString(), "check", "metrics")
            .redirectErrorStream(true)
            .start();
    try (OutputStream in = check.getOutputStream()) {
      in.write(scrape.getBytes(StandardCharsets.UTF_8));
    }
    String output;
    try (InputStream out = check.getInputStream()) {
      output = new String(out.readAllBytes(), StandardCharsets.UTF_8);
    }
    assertThat(check.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(check.exitValue()).as("promtool check metrics: %s", output).isZero();
  }

  private static FirnServerApplication app() {
    return APP.getApplication();
  }

  private static double evaluations() {
    return app().registry().find("firn.table.evaluations").counters().stream()
        .mapToDouble(c -> c.count())
        .sum();
  }

  private static long snapshotId(Map<String, Object> table) {
    return ((Number) table.get("snapshotId")).longValue();
  }

  private static List<Map<String, Object>> tables() {
    return APP.client()
        .target("http://localhost:" + APP.getLocalPort() + "/api/v1/tables")
        .request()
        .get(new GenericType<List<Map<String, Object>>>() {});
  }

  private static Optional<Map<String, Object>> table(String namespace, String name) {
    return tables().stream()
        .filter(t -> namespace.equals(t.get("namespace")) && name.equals(t.get("table")))
        .findFirst();
  }

  private static Path promtool() {
    String path = System.getenv("PATH");
    if (path == null) {
      return null;
    }
    for (String dir : path.split(java.io.File.pathSeparator, -1)) {
      Path candidate = Path.of(dir, "promtool");
      if (Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    return null;
  }

  private static Path createDirectory() {
    try {
      return Files.createTempDirectory("firn-server-test");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The catalog exists before the server starts (Firn never creates catalogs); it is empty. */
  private static JdbcCatalog createCatalog() {
    Catalog catalog =
        CatalogUtil.buildIcebergCatalog(
            "lake",
            Map.of(
                "type",
                "jdbc",
                "uri",
                "jdbc:sqlite:" + CATALOG_FILE,
                "warehouse",
                WAREHOUSE.toString()),
            new Configuration());
    return (JdbcCatalog) catalog;
  }

  private static Path writeConfig() {
    String yaml =
        """
        catalogs:
          - name: lake
            type: jdbc
            uri: "jdbc:sqlite:%s"
            warehouse: "%s"
        tables:
          include: ["lake.*"]
          exclude: ["lake.scratch.*"]
        stateStore:
          url: "jdbc:h2:file:%s"
        watch:
          interval: 200ms
        optimizing:
          enabled: false
        server:
          applicationConnectors:
            - type: http
              port: 0
          adminConnectors:
            - type: http
              port: 0
          requestLog:
            appenders: []
        logging:
          level: WARN
          loggers:
            io.firn: INFO
        """
            .formatted(CATALOG_FILE, WAREHOUSE, DIR.resolve("state/firn"));
    Path file = DIR.resolve("firn-server.yaml");
    try {
      Files.writeString(file, yaml);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return file;
  }
}
