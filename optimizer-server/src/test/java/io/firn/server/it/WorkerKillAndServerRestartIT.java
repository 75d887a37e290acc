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
import io.firn.testkit.GeneratedTable;
import io.firn.testkit.Http;
import io.firn.testkit.RowSets;
import io.firn.worker.remote.HttpWorkerProtocol;
import io.firn.worker.remote.Worker;
import io.firn.worker.remote.WorkerSettings;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;

/**
 * What happens when things die. (1) The server stops while a process waits for workers: after the
 * restart the process is recorded as failed and the table is planned again; nothing stays busy. (2)
 * A separate worker JVM is killed (SIGKILL) in the middle of a task: its lease expires, another
 * worker redoes the task, the rows are correct, and no file of the dead attempt is in the table.
 */
class WorkerKillAndServerRestartIT {
  private static final String OPTIMIZING =
      """
          localWorkerThreads: 0
          lease: 4s
          heartbeatInterval: 500ms
          retryBackoff: 500ms
      """;

  @Test
  void restartReplansAndAKilledWorkersTaskIsRedoneElsewhereWithRowsUnchanged() throws Exception {
    try (ServerFixture fixture = new ServerFixture();
        PostgresDatabase database = new PostgresDatabase("firn_restart_it")) {
      GeneratedTable big =
          fixture.generate(
              "db", "big", new CdcTableSpec(120_000, 12, 0.1, 0.02, 0.02, 0, 5L, false, false));
      Path config = fixture.config(database.url(), PostgresDatabase.USER, OPTIMIZING);

      // (1) No worker: the process waits with pending tasks; stop the server in the middle.
      DropwizardTestSupport<FirnServerConfiguration> first = server(config);
      first.before();
      String firstProcess;
      try {
        String api = api(first);
        await().atMost(60, TimeUnit.SECONDS).until(() -> status(api).equals("optimizing"));
        firstProcess = (String) table(api).get("lastProcessId");
        assertThat(tasks(api, firstProcess))
            .isNotEmpty()
            .allSatisfy(t -> assertThat(t).containsEntry("status", "pending"));
      } finally {
        first.after();
      }

      DropwizardTestSupport<FirnServerConfiguration> second = server(config);
      second.before();
      Process killed = null;
      Worker survivor = null;
      try {
        String api = api(second);
        Map<String, Object> failed = process(api, firstProcess);
        assertThat(failed).containsEntry("status", "failed");
        assertThat((String) failed.get("message"))
            .isEqualTo(
                "the server stopped during this process; uncommitted work was discarded and the"
                    + " table is planned again");
        await().atMost(60, TimeUnit.SECONDS).until(() -> status(api).equals("optimizing"));
        String process = (String) table(api).get("lastProcessId");
        assertThat(process).isNotEqualTo(firstProcess);

        // (2) A worker JVM leases a task and is killed while running it.
        killed = startWorkerJvm(api.replace("/api/v1", ""), fixture.dir.resolve("worker-a.log"));
        Set<String> deadAttempts = new HashSet<>();
        await()
            .atMost(90, TimeUnit.SECONDS)
            .pollInterval(Duration.ofMillis(20))
            .until(
                () -> {
                  for (Map<String, Object> task : tasks(api, process)) {
                    if ("leased".equals(task.get("status"))) {
                      deadAttempts.add((String) task.get("attemptId"));
                    }
                  }
                  return !deadAttempts.isEmpty();
                });
        killed.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        List<Map<String, Object>> afterKill = tasks(api, process);
        assertThat(afterKill)
            .as("the task was still running when the worker died")
            .anySatisfy(t -> assertThat(deadAttempts).contains((String) t.get("attemptId")));

        survivor =
            new Worker(
                new HttpWorkerProtocol(URI.create(api.replace("/api/v1", "")), "worker-secret"),
                WorkerSettings.local("survivor", 2));
        survivor.start();
        await()
            .atMost(3, TimeUnit.MINUTES)
            .until(
                () ->
                    process(api, process).get("status").equals("succeeded")
                        && !status(api).equals("optimizing"));
        assertThat(tasks(api, process))
            .as("the dead attempt's task was redone")
            .anySatisfy(t -> assertThat((Integer) t.get("attempts")).isGreaterThanOrEqualTo(2))
            .allSatisfy(t -> assertThat(deadAttempts).doesNotContain((String) t.get("attemptId")));

        Table table = fixture.catalog.loadTable(TableIdentifier.of("db", "big"));
        assertThat(RowSets.read(table))
            .isEqualTo(RowSets.of(big.writer().expected().values(), table.schema()));
        for (String file : dataFiles(table)) {
          for (String attempt : deadAttempts) {
            assertThat(file)
                .as("no output of the dead attempt is committed")
                .doesNotContain(attempt);
          }
        }
        await()
            .atMost(60, TimeUnit.SECONDS)
            .until(() -> status(api).equals("idle") && !table(api).get("needsPlan").equals(true));
      } finally {
        if (killed != null) {
          killed.destroyForcibly();
        }
        if (survivor != null) {
          survivor.close();
        }
        second.after();
      }
    }
  }

  private static DropwizardTestSupport<FirnServerConfiguration> server(Path config) {
    return new DropwizardTestSupport<>(FirnServerApplication.class, config.toString());
  }

  private static String api(DropwizardTestSupport<FirnServerConfiguration> server) {
    return "http://localhost:" + server.getLocalPort() + "/api/v1";
  }

  private static Map<String, Object> table(String api) {
    return Http.get(api + "/tables").list().get(0);
  }

  private static String status(String api) {
    return (String) table(api).get("status");
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> process(String api, String id) {
    return (Map<String, Object>) Http.get(api + "/processes/" + id).map().get("process");
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> tasks(String api, String id) {
    return (List<Map<String, Object>>) Http.get(api + "/processes/" + id).map().get("tasks");
  }

  private static Process startWorkerJvm(String server, Path log) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx1g");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add("io.firn.cli.FirnCli");
    command.addAll(List.of("worker", "local", "--server", server, "--slots", "1", "--name", "a"));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.redirectOutput(log.toFile());
    builder.environment().put("FIRN_WORKER_TOKEN", "worker-secret");
    return builder.start();
  }

  private static Set<String> dataFiles(Table table) throws Exception {
    table.refresh();
    Set<String> files = new HashSet<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        DataFile file = task.file();
        files.add(file.location());
      }
    }
    return files;
  }
}
