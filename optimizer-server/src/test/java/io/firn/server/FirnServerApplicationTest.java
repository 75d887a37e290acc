/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.firn.testkit.CdcTableGenerator;
import io.firn.testkit.CdcTableSpec;
import io.firn.testkit.GeneratedTable;
import io.firn.testkit.ServerConfig;
import io.firn.testkit.TestCatalogs;
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

  @Test
  void theAdminConnectorServesMetricsAndProbesToAnyoneAndItsTasksOnlyWithTheAdminToken() {
    String admin = "http://localhost:" + APP.getAdminPort();
    for (String open : List.of("/metrics", "/ping", "/healthcheck")) {
      assertThat(call(admin + open, "GET", null, null).status()).as(open).isEqualTo(200);
    }
    assertThat(call(admin + "/healthcheck", "GET", null, null).body())
        .as("one entry per catalog")
        .contains(
            "\"catalog:lake\":{\"healthy\":true,\"message\":\"catalog 'lake' (jdbc) reachable")
        .doesNotContain("\"catalogs\"");
    for (String path : List.of("/tasks/gc", "/tasks/log-level?logger=io.firn&level=INFO")) {
      Call refused = call(admin + path, "POST", null, "");
      assertThat(refused.status()).as(path).isEqualTo(401);
      assertThat(refused.body())
          .as(path)
          .contains("admin endpoints need the header 'Authorization: Bearer <auth.adminToken>'");
      assertThat(call(admin + path, "POST", "wrong", "").status()).as(path).isEqualTo(401);
    }
    assertThat(call(admin + "/threads", "GET", null, null).status()).isEqualTo(401);
    assertThat(call(admin + "/", "GET", null, null).status()).isEqualTo(401);
    assertThat(call(admin + "/metrics", "POST", null, "").status()).isEqualTo(401);
    assertThat(call(admin + "/tasks/gc", "POST", "test-admin-token", "").status()).isEqualTo(200);
    assertThat(call(admin + "/threads", "GET", "test-admin-token", null).status()).isEqualTo(200);
  }

  @Test
  void hostileRequestsGetAClearJsonErrorAndChangeNothing() {
    String api = "http://localhost:" + APP.getLocalPort() + "/api/v1";
    // The token is checked before the body is read: garbage without a token is a 401, not a 400.
    Call noToken = call(api + "/worker/register", "POST", null, "{not json");
    assertThat(noToken.status()).isEqualTo(401);
    assertThat(noToken.body()).contains("worker endpoints need the header");

    Call garbage = call(api + "/worker/register", "POST", "test-worker-token", "{not json");
    assertThat(garbage.status()).isEqualTo(400);
    assertThat(garbage.body()).doesNotContain("io.firn").doesNotContain("jackson");

    String longName = "n".repeat(300);
    Call tooLong =
        call(
            api + "/worker/register",
            "POST",
            "test-worker-token",
            "{\"protocolVersion\":3,\"name\":\""
                + longName
                + "\",\"group\":\"default\",\"slots\":1,\"engine\":\"local\"}");
    assertThat(tooLong.status()).isEqualTo(400);
    assertThat(tooLong.body())
        .contains("register: name is 300 characters long, at most 255 are allowed");
    assertThat(call(api + "/workers", "GET", null, null).body()).doesNotContain(longName);

    Call big =
        call(api + "/tables/lake/db/cdc/pause", "POST", "test-admin-token", "x".repeat(100_000));
    assertThat(big.status()).isEqualTo(413);
    assertThat(big.body()).contains("is larger than the 65536 bytes");

    for (String url : List.of(api + "/tables/lake/db%2Fx/plan", api + "/nothing/here")) {
      Call bad = call(url, "GET", null, null);
      assertThat(bad.status()).as(url).isIn(400, 404);
      assertThat(bad.type()).as(url).startsWith("application/json");
      assertThat(bad.body()).as(url).startsWith("{\"code\":").doesNotContain("<");
    }
    for (String url : List.of(api + "/processes?limit=abc", api + "/tables/lake/db/cdc?limit=1x")) {
      Call bad = call(url, "GET", null, null);
      assertThat(bad.status()).as(url).isEqualTo(400);
      assertThat(bad.type()).as(url).startsWith("application/json");
      assertThat(bad.body()).as(url).contains("query parameter 'limit' is not valid");
    }
  }

  @Test
  void aWorkerWhoseTokenIsRefusedStopsAndNamesTheSettingToFix() throws Exception {
    io.firn.worker.remote.Worker worker =
        new io.firn.worker.remote.Worker(
            new io.firn.worker.remote.HttpWorkerProtocol(
                java.net.URI.create("http://localhost:" + APP.getLocalPort()), "not-the-token"),
            new io.firn.worker.remote.WorkerSettings(
                "wrong-token",
                "default",
                1,
                "local",
                "test",
                java.time.Duration.ofSeconds(1),
                java.time.Duration.ofSeconds(1)));
    worker.start();
    try {
      await().atMost(20, TimeUnit.SECONDS).until(() -> worker.refusal() != null);
      assertThat(worker.refusal())
          .contains("answered 401")
          .contains("the worker token is not valid")
          .endsWith("set FIRN_WORKER_TOKEN (or --token) to the server's auth.workerToken");
    } finally {
      worker.close();
    }
  }

  private record Call(int status, String type, String body) {}

  /** One request; the answer is read and its connection released. */
  private static Call call(String url, String method, String token, String body) {
    var request = APP.client().target(url).request();
    if (token != null) {
      request = request.header("Authorization", "Bearer " + token);
    }
    try (Response response =
        body == null
            ? request.method(method)
            : request.method(method, jakarta.ws.rs.client.Entity.json(body))) {
      return new Call(
          response.getStatus(),
          String.valueOf(response.getHeaderString("Content-Type")),
          response.hasEntity() ? response.readEntity(String.class) : "");
    }
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
    return TestCatalogs.sqlite(DIR);
  }

  private static Path writeConfig() {
    return new ServerConfig(
            ServerConfig.sqliteCatalog(DIR), "jdbc:h2:file:" + DIR.resolve("state/firn"))
        .optimizing("  enabled: false")
        .sections(
            """
            tables:
              include: ["lake.*"]
              exclude: ["lake.scratch.*"]
            """)
        .tokens("test-worker-token", "test-admin-token")
        .write(DIR.resolve("firn-server.yaml"));
  }
}
