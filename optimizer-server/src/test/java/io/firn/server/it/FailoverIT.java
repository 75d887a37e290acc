/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.firn.core.commit.Committer;
import io.firn.testkit.CdcTableGenerator;
import io.firn.testkit.CdcTableSpec;
import io.firn.testkit.ChildProcesses;
import io.firn.testkit.GeneratedTable;
import io.firn.testkit.Http;
import io.firn.testkit.RowSets;
import io.firn.testkit.ServerConfig;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two server replicas on one PostgreSQL state store (ADR 0021), each its own JVM, a worker JVM
 * given both URLs, tables in a JDBC catalog on PostgreSQL. The leader is killed with SIGKILL while
 * it optimizes; the follower takes over within 30 s, fails the dead leader's running processes and
 * plans their tables again; the writer keeps writing; at the end every table's rows equal the
 * writer's model, no process committed more groups than it planned, no table is left busy; the old
 * leader, restarted, follows.
 */
class FailoverIT {
  private static final int TABLES = 3;
  private static final Set<Object> BUSY = Set.of("optimizing", "committing");
  private static final HttpClient CLIENT =
      HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();

  /** Kept when the test fails: the servers' and the worker's logs are in it. */
  @TempDir(cleanup = CleanupMode.NEVER)
  Path dir;

  @Test
  void theFollowerTakesOverFromAKilledLeaderAndNoRowChanges() throws Exception {
    try (PostgresDatabase state = new PostgresDatabase("firn_failover_state");
        PostgresDatabase catalogDb = new PostgresDatabase("firn_failover_catalog")) {
      JdbcCatalog catalog =
          (JdbcCatalog)
              CatalogUtil.buildIcebergCatalog(
                  "lake",
                  Map.of(
                      "type",
                      "jdbc",
                      "uri",
                      catalogDb.url(),
                      "jdbc.user",
                      PostgresDatabase.USER,
                      "warehouse",
                      dir.resolve("warehouse").toString()),
                  new Configuration());
      Map<String, GeneratedTable> tables = new LinkedHashMap<>();
      for (int i = 0; i < TABLES; i++) {
        String name = "t" + i;
        tables.put(
            name,
            CdcTableGenerator.generate(
                catalog,
                TableIdentifier.of("db", name),
                new CdcTableSpec(40_000, 10, 0.1, 0.02, 0.02, 4, 30L + i, false, false)));
      }
      Replica a =
          new Replica(
              "a",
              ChildProcesses.freePort(),
              ChildProcesses.freePort(),
              state.url(),
              catalogDb.url());
      Replica b =
          new Replica(
              "b",
              ChildProcesses.freePort(),
              ChildProcesses.freePort(),
              state.url(),
              catalogDb.url());
      Process worker = null;
      Process aAgain = null;
      try {
        a.start();
        await().atMost(60, TimeUnit.SECONDS).until(() -> "leader".equals(a.role()));
        b.start();
        await()
            .atMost(60, TimeUnit.SECONDS)
            .until(() -> "follower".equals(b.role()) && a.holder().equals(b.leader()));

        // The follower sends API calls to the leader, body and method kept.
        HttpResponse<String> redirected =
            CLIENT.send(
                HttpRequest.newBuilder(URI.create(b.api() + "/tables")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(redirected.statusCode()).isEqualTo(307);
        assertThat(redirected.headers().firstValue("Location"))
            .hasValue(a.url() + "/api/v1/tables");

        // The worker is given the follower first: it follows the redirect to the leader.
        worker = startWorker(b.url() + "," + a.url(), dir.resolve("worker.log"));
        List<String> runningOnA = new ArrayList<>();
        await()
            .atMost(3, TimeUnit.MINUTES)
            .pollInterval(Duration.ofMillis(50))
            .until(
                () -> {
                  // One read: what runs now, once a process has succeeded (commits exist).
                  if (succeeded(a.api()) < 1) {
                    return false;
                  }
                  runningOnA.clear();
                  for (Map<String, Object> t : a.tables()) {
                    if (BUSY.contains(t.get("status"))) {
                      runningOnA.add((String) t.get("lastProcessId"));
                    }
                  }
                  return !runningOnA.isEmpty();
                });
        assertThat(runningOnA).isNotEmpty();

        long killedAt = System.nanoTime();
        a.kill();
        await()
            .atMost(40, TimeUnit.SECONDS)
            .pollInterval(Duration.ofMillis(200))
            .until(() -> "leader".equals(b.role()));
        Duration takeover = Duration.ofNanos(System.nanoTime() - killedAt);
        assertThat(takeover)
            .as("takeover after the leader died")
            .isLessThan(Duration.ofSeconds(30));

        // The dead leader's running processes are failed on the new leader, their tables planned
        // again.
        for (String process : runningOnA) {
          await()
              .atMost(30, TimeUnit.SECONDS)
              .until(() -> !"running".equals(process(b.api(), process).get("status")));
          Map<String, Object> record = process(b.api(), process);
          if ("failed".equals(record.get("status"))) {
            assertThat((String) record.get("message"))
                .startsWith("the server stopped during this process");
          } else {
            // It ended in the instant between the last read and the kill.
            assertThat(record.get("status")).isIn("succeeded", "partial");
          }
        }

        // The writer keeps writing to every table.
        for (GeneratedTable table : tables.values()) {
          table.writer().commit(2_000, 4);
          table.writer().commit(200, 1);
        }

        await()
            .atMost(4, TimeUnit.MINUTES)
            .pollInterval(Duration.ofSeconds(1))
            .until(
                () ->
                    b.tables().stream()
                        .allMatch(
                            t ->
                                "idle".equals(t.get("status"))
                                    && !Boolean.TRUE.equals(t.get("needsPlan"))));

        Map<String, Integer> groupsPlanned = new HashMap<>();
        for (String name : tables.keySet()) {
          for (Map<String, Object> p : processes(b.api(), name)) {
            // A maintenance run that commits (dangling deletes, manifest rewrite) plans no
            // partition and commits once.
            boolean maintenance =
                List.of("dangling-deletes", "rewrite-manifests").contains(p.get("type"));
            groupsPlanned.put(
                (String) p.get("processId"), maintenance ? 1 : (Integer) p.get("partitions"));
          }
        }
        for (Map.Entry<String, GeneratedTable> entry : tables.entrySet()) {
          Table table = catalog.loadTable(TableIdentifier.of("db", entry.getKey()));
          assertThat(RowSets.read(table))
              .as("rows of %s", entry.getKey())
              .isEqualTo(RowSets.of(entry.getValue().writer().expected().values(), table.schema()));
          Map<String, Integer> commits = new HashMap<>();
          for (Snapshot snapshot : table.snapshots()) {
            String process = snapshot.summary().get(Committer.PROCESS_ID);
            if (process != null) {
              commits.merge(process, 1, Integer::sum);
            }
          }
          assertThat(commits).as("processes that committed to %s", entry.getKey()).isNotEmpty();
          commits.forEach(
              (process, count) -> {
                assertThat(groupsPlanned).as("a process the store knows").containsKey(process);
                assertThat(count)
                    .as("commits of process %s (at most one per planned group)", process)
                    .isLessThanOrEqualTo(groupsPlanned.get(process));
              });
        }

        // The old leader comes back as a follower.
        aAgain = a.restart();
        await()
            .atMost(60, TimeUnit.SECONDS)
            .until(() -> "follower".equals(a.role()) && b.holder().equals(a.leader()));
        assertThat(b.role()).isEqualTo("leader");
      } finally {
        if (worker != null) {
          worker.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        a.kill();
        b.kill();
        if (aAgain != null) {
          aAgain.destroyForcibly();
        }
        catalog.close();
      }
    }
  }

  private static int succeeded(String api) {
    int count = 0;
    for (int i = 0; i < TABLES; i++) {
      for (Map<String, Object> p : processes(api, "t" + i)) {
        if ("succeeded".equals(p.get("status"))) {
          count++;
        }
      }
    }
    return count;
  }

  private static List<Map<String, Object>> processes(String api, String table) {
    return Http.get(api + "/processes?table=lake.db." + table + "&limit=1000").list();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> process(String api, String id) {
    return (Map<String, Object>) Http.get(api + "/processes/" + id).map().get("process");
  }

  /** One server JVM and its configuration. */
  private final class Replica {
    final String name;
    final int port;
    final Path config;
    final Path log;
    Process process;

    Replica(String name, int port, int adminPort, String stateUrl, String catalogUrl) {
      this.name = name;
      this.port = port;
      this.log = dir.resolve("server-" + name + ".log");
      this.config = dir.resolve("server-" + name + ".yaml");
      new ServerConfig(
              ServerConfig.jdbcCatalog(
                  "lake",
                  catalogUrl,
                  dir.resolve("warehouse").toString(),
                  Map.of("jdbc.user", PostgresDatabase.USER)),
              stateUrl)
          .stateStoreUser(PostgresDatabase.USER)
          .watch("300ms")
          .optimizing(
              """
                localWorkerThreads: 0
                lease: 6s
                heartbeatInterval: 500ms
                retryBackoff: 500ms
              """)
          .sections(
              """
              ha:
                enabled: true
                leaseTtl: 6s
                renewInterval: 1s
                advertisedUrl: "http://127.0.0.1:%d"
              # A maintenance run records its history row after its commit: a leader killed in
              # between leaves a Firn snapshot the store does not know, which this test forbids.
              maintenance:
                rewrite-manifests.enabled: false
              """
                  .formatted(port))
          .ports("127.0.0.1", port, adminPort)
          .write(config);
    }

    void start() throws IOException {
      List<String> command = new ArrayList<>();
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.add("-Xmx768m");
      command.add("-cp");
      command.add(System.getProperty("java.class.path"));
      command.add("io.firn.server.FirnServerApplication");
      command.add("server");
      command.add(config.toString());
      ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
      builder.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
      process = builder.start();
    }

    Process restart() throws IOException {
      start();
      return process;
    }

    void kill() throws InterruptedException {
      if (process != null && process.isAlive()) {
        process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
    }

    String url() {
      return "http://127.0.0.1:" + port;
    }

    String api() {
      return url() + "/api/v1";
    }

    Map<String, Object> leaderView() {
      try {
        Http.Answer answer = Http.get(api() + "/leader");
        return answer.status() == 200 ? answer.map() : Map.of();
      } catch (RuntimeException e) {
        return Map.of(); // not listening yet, or killed
      }
    }

    String role() {
      return (String) leaderView().get("role");
    }

    String holder() {
      return String.valueOf(leaderView().get("self"));
    }

    String leader() {
      return String.valueOf(leaderView().get("leader"));
    }

    List<Map<String, Object>> tables() {
      return Http.get(api() + "/tables").list();
    }

    @Override
    public String toString() {
      return name + " " + url();
    }
  }

  private static Process startWorker(String servers, Path log) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx768m");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add("io.firn.cli.FirnCli");
    command.addAll(List.of("worker", "local", "--server", servers, "--slots", "1", "--name", "w"));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.redirectOutput(log.toFile());
    builder.environment().put("FIRN_WORKER_TOKEN", ServerFixture.WORKER_TOKEN);
    return builder.start();
  }
}
