/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dropwizard.testing.DropwizardTestSupport;
import io.firn.core.plan.BinPackPlanner;
import io.firn.core.policy.OptimizingPolicy;
import io.firn.server.FirnServerApplication;
import io.firn.server.FirnServerConfiguration;
import io.firn.testkit.CdcTableSpec;
import io.firn.testkit.GeneratedTable;
import io.firn.testkit.Http;
import io.firn.testkit.RowSets;
import io.firn.worker.local.LocalOptimizer;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;

/**
 * The server with its PostgreSQL state store and in-process worker optimizes 20 generated streaming
 * tables and one that a writer keeps upserting into, until a plan finds nothing due; every table's
 * rows are unchanged, read by Iceberg's generic reader. Checks the REST API (including its 4xx
 * errors) and that {@code /metrics} passes {@code promtool check metrics}.
 */
class OptimizingServerIT {
  private static final int TABLES = 20;

  @Test
  void optimizesTwentyTablesAndALiveOneBelowTheirTriggersWithRowsUnchanged() throws Exception {
    try (ServerFixture fixture = new ServerFixture();
        PostgresDatabase database = new PostgresDatabase("firn_server_it")) {
      List<GeneratedTable> generated = new ArrayList<>();
      for (int i = 0; i < TABLES; i++) {
        CdcTableSpec spec =
            new CdcTableSpec(1_500, 8, 0.05, 0.02, 0.02, i % 3 * 2, 100L + i, i % 4 == 0, false);
        generated.add(fixture.generate("db", "t" + i, spec));
      }
      GeneratedTable live =
          fixture.generate(
              "live", "orders", new CdcTableSpec(2_000, 10, 0.1, 0.02, 0.02, 2, 7L, false, false));

      DropwizardTestSupport<FirnServerConfiguration> server =
          new DropwizardTestSupport<>(
              FirnServerApplication.class,
              fixture
                  .config(
                      database.url(),
                      PostgresDatabase.USER,
                      """
                          localWorkerThreads: 2
                          maxConcurrentProcesses: 4
                          lease: 20s
                          heartbeatInterval: 1s
                          retryBackoff: 1s
                      """)
                  .toString());
      server.before();
      LiveWriter writer = new LiveWriter(live, 40, 4, Duration.ofMillis(150), 0);
      try {
        String api = "http://localhost:" + server.getLocalPort() + "/api/v1";

        await()
            .atMost(4, TimeUnit.MINUTES)
            .pollInterval(Duration.ofMillis(500))
            .untilAsserted(
                () -> {
                  List<Map<String, Object>> tables = Http.get(api + "/tables").list();
                  assertThat(tables).hasSize(TABLES + 1);
                  for (Map<String, Object> table : tables) {
                    if (table.get("namespace").equals("db")) {
                      assertThat(table)
                          .as("%s", table)
                          .containsEntry("needsPlan", false)
                          .containsEntry("status", "idle");
                      assertThat(table.get("lastProcessId")).as("%s", table).isNotNull();
                    }
                  }
                  assertThat(succeeded(api, "lake.live.orders")).isPositive();
                });
        assertThat(writer.stop()).isNull();
        // Let the live table's last process end (it may have been planned on a writer snapshot).
        await()
            .atMost(2, TimeUnit.MINUTES)
            .until(
                () -> {
                  Map<String, Object> t = Http.get(api + "/tables/lake/live/orders").map();
                  @SuppressWarnings("unchecked")
                  Map<String, Object> state = (Map<String, Object>) t.get("table");
                  return state.get("status").equals("idle") || state.get("status").equals("parked");
                });

        for (int i = 0; i < TABLES; i++) {
          Table table = fixture.catalog.loadTable(TableIdentifier.of("db", "t" + i));
          assertThat(RowSets.read(table))
              .as("rows of db.t%d", i)
              .isEqualTo(RowSets.of(generated.get(i).writer().expected().values(), table.schema()));
          assertThat(
                  new LocalOptimizer(OptimizingPolicy.DEFAULTS, new BinPackPlanner(), 1, line -> {})
                      .plan(table, null, Instant.now())
                      .hasWork())
              .as("db.t%d is below its triggers", i)
              .isFalse();
          List<Map<String, Object>> processes =
              Http.get(api + "/processes?table=lake.db.t" + i).list();
          assertThat(processes)
              .as("db.t%d converges in a few processes", i)
              .hasSizeBetween(1, 3)
              .allSatisfy(p -> assertThat(p).containsEntry("status", "succeeded"));
        }
        Table orders = fixture.catalog.loadTable(TableIdentifier.of("live", "orders"));
        assertThat(RowSets.read(orders))
            .as("rows of the table written during optimizing")
            .isEqualTo(RowSets.of(live.writer().expected().values(), orders.schema()));

        // History and workers through the API.
        // The newest optimizing process: maintenance (manifest rewrite, dangling deletes) is in the
        // same history and may have run after it.
        Map<String, Object> process =
            Http.get(api + "/processes?table=lake.db.t1").list().stream()
                .filter(p -> List.of("minor", "major", "full").contains(p.get("type")))
                .findFirst()
                .orElseThrow();
        Map<String, Object> detail = Http.get(api + "/processes/" + process.get("processId")).map();
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> tasks = (List<Map<String, Object>>) detail.get("tasks");
        assertThat(tasks)
            .isNotEmpty()
            .allSatisfy(t -> assertThat(t).containsEntry("status", "committed"));
        assertThat(Http.get(api + "/workers").list())
            .singleElement()
            .satisfies(
                w -> assertThat(w).containsEntry("engine", "local").containsEntry("slots", 2));

        checkErrors(api);
        checkMetrics("http://localhost:" + server.getAdminPort() + "/metrics");
      } finally {
        writer.stop();
        server.after();
      }
    }
  }

  private static long succeeded(String api, String table) {
    return Http.get(api + "/processes?table=" + table).list().stream()
        .filter(p -> p.get("status").equals("succeeded"))
        .count();
  }

  /** Malformed and unauthorized requests get 4xx JSON errors that say what is wrong. */
  private static void checkErrors(String api) {
    String worker = ServerFixture.WORKER_TOKEN;
    String admin = ServerFixture.ADMIN_TOKEN;
    String table = api + "/tables/lake/db/t1";
    assertError(
        Http.get(api + "/tables/lake/db/nope"), 404, "no watched table named 'lake.db.nope'");
    assertError(Http.get(table + "/plan?type=huge"), 400, "huge");
    assertError(Http.get(api + "/processes?limit=0"), 400, "limit = 0: must be between 1 and 1000");
    assertError(Http.get(api + "/processes?table=nodots"), 400, "expected catalog.namespace.table");
    assertError(Http.get(api + "/processes/nope"), 404, "no process with id 'nope'");
    assertError(
        Http.post(table + "/optimize?type=full", null, null),
        401,
        "admin endpoints need the header 'Authorization: Bearer <auth.adminToken>'");
    assertError(
        Http.post(table + "/optimize?type=full", "wrong", null),
        401,
        "the admin token is not valid");
    assertError(
        Http.post(table + "/optimize?type=full", worker, null),
        401,
        "the admin token is not valid");
    assertError(Http.post(table + "/optimize", admin, null), 400, "type is missing");
    assertError(Http.post(table + "/cancel", admin, null), 409, "has no running process");
    assertError(Http.post(table + "/pause", null, null), 401, "admin endpoints need");
    assertError(Http.post(table + "/resume", "x", null), 401, "the admin token is not valid");
    assertError(Http.post(api + "/worker/register", null, "{}"), 401, "worker endpoints need");
    assertError(
        Http.post(api + "/worker/register", admin, "{}"), 401, "the worker token is not valid");
    assertError(Http.post(api + "/worker/register", worker, "{not json"), 400, "");
    assertError(
        Http.post(api + "/worker/register", worker, "{\"protocolVersion\":99}"),
        400,
        "register: protocol version 99 is not supported; this build speaks version 3");
    assertError(
        Http.post(api + "/worker/poll", worker, "{\"protocolVersion\":3,\"workerId\":\"w-gone\"}"),
        410,
        "unknown worker 'w-gone'");
    assertError(
        Http.post(
            api + "/worker/heartbeat",
            worker,
            "{\"protocolVersion\":3,\"workerId\":\"w-gone\",\"attemptIds\":[]}"),
        410,
        "unknown worker 'w-gone'");
    // A completion from a worker the server does not know (or without its secret) is not heard.
    assertError(
        Http.post(
            api + "/worker/complete",
            worker,
            "{\"protocolVersion\":3,\"workerId\":\"w\",\"attemptId\":\"p-t1-a1\",\"dataFiles\":[],"
                + "\"deleteFiles\":[],\"counts\":null}"),
        410,
        "unknown worker 'w'");
    assertError(Http.post(api + "/worker/fail", worker, ""), 400, "");

    // Pause and resume work with the admin token; the server still serves afterwards.
    assertThat(Http.post(table + "/pause", admin, null).status()).isEqualTo(200);
    assertThat(Http.get(table).map().get("table").toString()).contains("paused=true");
    assertThat(Http.post(table + "/resume", admin, null).status()).isEqualTo(200);
    assertThat(Http.get(api + "/tables").status()).isEqualTo(200);
  }

  private static void assertError(Http.Answer answer, int status, String message) {
    assertThat(answer.status()).as("%s", answer.body()).isEqualTo(status);
    assertThat(answer.contentType()).startsWith("application/json");
    assertThat(answer.map()).containsEntry("code", status);
    assertThat((String) answer.map().get("message")).contains(message);
  }

  private static void checkMetrics(String url) throws Exception {
    Http.Answer scrape = Http.get(url);
    assertThat(scrape.status()).isEqualTo(200);
    assertThat(scrape.body())
        .contains("firn_optimizing_processes_total{result=\"succeeded\",type=\"minor\"}")
        .contains("firn_optimizing_tasks_total{result=\"succeeded\"}")
        .contains("firn_queue_tasks{state=\"pending\"} 0.0")
        .contains("firn_workers{group=\"*\"} 1.0")
        .contains("firn_tables{state=\"idle\"}")
        .contains("firn_optimizing_read_bytes_total")
        .contains("firn_commit_conflicts_total");
    Path promtool = Path.of("/usr/bin/promtool");
    if (!Files.isExecutable(promtool)) {
      promtool = Path.of("promtool");
    }
    Process check =
        new ProcessBuilder(promtool.toString(), "check", "metrics")
            .redirectErrorStream(true)
            .start();
    try (OutputStream in = check.getOutputStream()) {
      in.write(scrape.body().getBytes(StandardCharsets.UTF_8));
    }
    String output;
    try (InputStream out = check.getInputStream()) {
      output = new String(out.readAllBytes(), StandardCharsets.UTF_8);
    }
    assertThat(check.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(check.exitValue()).as("promtool check metrics: %s", output).isZero();
  }
}
