/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dropwizard.testing.DropwizardTestSupport;
import io.firn.server.FirnServerApplication;
import io.firn.server.FirnServerConfiguration;
import io.firn.testkit.CdcTableSpec;
import io.firn.testkit.Http;
import io.firn.testkit.PostgresInstance;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;

/**
 * The server's state store on a PostgreSQL server of this test's own, which is killed ({@code
 * pg_ctl stop -m immediate}) while the server optimizes, started again, and whose sessions are then
 * terminated ({@code pg_terminate_backend}). The server keeps serving and optimizing through the
 * outage with its health check red, writes what happened meanwhile once the database is back, and a
 * second server on the same database finds the tables, processes and tasks from before, during and
 * after the outage exactly as the first one showed them (ADR 0016).
 */
class StateStoreOutageIT {
  private static final String DATABASE = "firn_outage_it";
  private static final String OPTIMIZING =
      """
          localWorkerThreads: 2
          lease: 20s
          heartbeatInterval: 1s
          retryBackoff: 1s
      """;

  /**
   * The test compares the store's table list across servers: a manifest rewrite committing after
   * the first server's list was read would move a table's snapshot.
   */
  private static final String NO_MANIFEST_REWRITE =
      """
      maintenance:
        rewrite-manifests.enabled: false
      """;

  @Test
  void theServerKeepsServingThroughAPostgresRestartAndASecondServerLosesNothing() throws Exception {
    try (ServerFixture fixture = new ServerFixture();
        PostgresInstance pg = PostgresInstance.start()) {
      String url = pg.createDatabase(DATABASE);
      fixture.generate("db", "before", spec(1));
      Path config = fixture.config(url, pg.user(), OPTIMIZING, NO_MANIFEST_REWRITE);

      Map<String, List<Object>> tables;
      Map<String, Object> histories = new LinkedHashMap<>();
      DropwizardTestSupport<FirnServerConfiguration> first = server(config);
      first.before();
      try {
        String api = api(first);
        String admin = admin(first);
        String before = optimized(api, fixture, "before");
        assertThat(stateStoreHealth(admin)).containsEntry("healthy", true);
        awaitSucceededInTheDatabase(url, before);

        // The database goes away while a new table arrives and is optimized.
        pg.kill();
        fixture.generate("db", "during", spec(2));
        String during = optimized(api, fixture, "during");
        assertThat(Http.get(api + "/tables").status()).isEqualTo(200);
        assertThat(Http.get(api + "/workers").status()).isEqualTo(200);
        Map<String, Object> red = stateStoreHealth(admin);
        assertThat(red).containsEntry("healthy", false);
        assertThat((String) red.get("message")).contains("row(s) kept in memory");
        assertThat(metric(admin, "firn_state_store_pending_rows")).isPositive();
        Http.Answer history = Http.get(api + "/processes/" + during);
        assertThat(history.status()).isEqualTo(503);
        assertThat(history.body()).contains("the state store does not answer");

        // Back: the kept rows are written, the health check turns green.
        pg.startServer();
        await()
            .atMost(30, TimeUnit.SECONDS)
            .pollInterval(Duration.ofMillis(200))
            .until(
                () ->
                    Boolean.TRUE.equals(stateStoreHealth(admin).get("healthy"))
                        && metric(admin, "firn_state_store_pending_rows") == 0);
        assertThat(
                stored(url, "SELECT status FROM optimizing_process WHERE process_id = ?", during))
            .containsExactly("succeeded");
        assertThat(
                stored(
                    url,
                    "SELECT status FROM optimizing_task WHERE process_id = ? ORDER BY task_number",
                    during))
            .isNotEmpty()
            .containsOnly("committed");
        assertThat(
                stored(
                    url,
                    "SELECT state || ' ' || last_process_id FROM table_runtime"
                        + " WHERE table_name = ?",
                    "during"))
            .containsExactly("idle " + during);

        // Sessions terminated by an operator cost no write: the pool replaces them.
        assertThat(pg.terminateSessions(DATABASE)).isPositive();
        fixture.generate("db", "after", spec(3));
        String after = optimized(api, fixture, "after");
        awaitSucceededInTheDatabase(url, after);
        assertThat(metric(admin, "firn_state_store_outages_total")).isEqualTo(1.0);
        assertThat(stateStoreHealth(admin)).containsEntry("healthy", true);

        tables = tables(api);
        assertThat(tables).containsOnlyKeys("before", "during", "after");
        for (String process : List.of(before, during, after)) {
          histories.put(process, Http.get(api + "/processes/" + process).map());
        }
        histories.put("list", Http.get(api + "/processes").list());
      } finally {
        first.after();
      }

      // What the second server finds in the store, before it schedules anything of its own: with
      // optimizing on, its first round may plan a table again at once (its maintenance and the
      // watcher's first look are new), and the status read would race that round.
      DropwizardTestSupport<FirnServerConfiguration> second =
          server(
              fixture.config(
                  url, pg.user(), OPTIMIZING + "    enabled: false\n", NO_MANIFEST_REWRITE));
      second.before();
      try {
        String api = api(second);
        assertThat(tables(api)).isEqualTo(tables);
        for (Map.Entry<String, Object> history : histories.entrySet()) {
          Object now =
              history.getKey().equals("list")
                  ? Http.get(api + "/processes").list()
                  : Http.get(api + "/processes/" + history.getKey()).map();
          assertThat(now).as(history.getKey()).isEqualTo(history.getValue());
        }
      } finally {
        second.after();
      }
    }
  }

  private static CdcTableSpec spec(long seed) {
    return new CdcTableSpec(1_500, 8, 0.05, 0.02, 0.02, 2, seed, false, false);
  }

  private static DropwizardTestSupport<FirnServerConfiguration> server(Path config) {
    return new DropwizardTestSupport<>(FirnServerApplication.class, config.toString());
  }

  private static String api(DropwizardTestSupport<FirnServerConfiguration> server) {
    return "http://localhost:" + server.getLocalPort() + "/api/v1";
  }

  private static String admin(DropwizardTestSupport<FirnServerConfiguration> server) {
    return "http://localhost:" + server.getAdminPort();
  }

  /**
   * Waits (on the in-memory table list only) until the table's process is done, a plan finds
   * nothing more due and the watcher has seen the table's current snapshot (the last commit is the
   * optimizer's own), and returns that process's id.
   */
  private static String optimized(String api, ServerFixture fixture, String table) {
    await()
        .atMost(60, TimeUnit.SECONDS)
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              Map<String, Object> t = table(api, table);
              if (t == null
                  || t.get("lastProcessId") == null
                  || !"idle".equals(t.get("status"))
                  || !Boolean.FALSE.equals(t.get("needsPlan"))
                  || !(t.get("snapshotId") instanceof Number seen)) {
                return false;
              }
              long current =
                  fixture
                      .catalog
                      .loadTable(TableIdentifier.of("db", table))
                      .currentSnapshot()
                      .snapshotId();
              return seen.longValue() == current;
            });
    return (String) table(api, table).get("lastProcessId");
  }

  private static Map<String, Object> table(String api, String name) {
    for (Map<String, Object> t : Http.get(api + "/tables").list()) {
      if (t.get("table").equals(name)) {
        return t;
      }
    }
    return null;
  }

  /** What a restart must keep of each table: its state, last process, snapshot and failures. */
  private static Map<String, List<Object>> tables(String api) {
    Map<String, List<Object>> all = new LinkedHashMap<>();
    for (Map<String, Object> t : Http.get(api + "/tables").list()) {
      List<Object> kept = new ArrayList<>();
      for (String field : List.of("status", "lastProcessId", "snapshotId", "failures", "paused")) {
        kept.add(t.get(field));
      }
      all.put((String) t.get("table"), kept);
    }
    return all;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> stateStoreHealth(String admin) {
    Http.Answer answer = Http.get(admin + "/healthcheck");
    Map<String, Object> state = (Map<String, Object>) answer.map().get("state-store");
    assertThat(state).as(answer.body()).isNotNull();
    assertThat(answer.status())
        .as("the health endpoint's status follows the checks: %s", answer.body())
        .isEqualTo(Boolean.TRUE.equals(state.get("healthy")) ? 200 : 500);
    return state;
  }

  /** Waits for a process's row to say succeeded: written behind the service (ADR 0023). */
  private static void awaitSucceededInTheDatabase(String url, String process) {
    await()
        .atMost(10, TimeUnit.SECONDS)
        .untilAsserted(
            () ->
                assertThat(
                        stored(
                            url,
                            "SELECT status FROM optimizing_process WHERE process_id = ?",
                            process))
                    .containsExactly("succeeded"));
  }

  private static double metric(String admin, String name) {
    for (String line : Http.get(admin + "/metrics").body().split("\n")) {
      if (line.startsWith(name + " ") || line.startsWith(name + "{")) {
        return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    throw new AssertionError("no " + name + " in /metrics");
  }

  /** The first column of a query's rows, read over a connection of the test's own. */
  private static List<String> stored(String url, String sql, String parameter) {
    try (Connection c = DriverManager.getConnection(url, "postgres", "");
        PreparedStatement s = c.prepareStatement(sql)) {
      s.setString(1, parameter);
      List<String> values = new ArrayList<>();
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          values.add(rs.getString(1));
        }
      }
      return values;
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e, e);
    }
  }
}
