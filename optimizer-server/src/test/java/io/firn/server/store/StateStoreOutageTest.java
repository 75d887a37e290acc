/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheck;
import io.firn.server.StateStoreConfiguration;
import io.firn.server.StateStoreHealthCheck;
import io.firn.server.TableRuntime;
import io.firn.server.TableSummary;
import io.firn.server.optimizing.ProcessRecord;
import io.firn.server.optimizing.ProcessStatus;
import io.firn.server.optimizing.TableStateRecord;
import io.firn.server.optimizing.TableStatus;
import io.firn.server.optimizing.TaskRecord;
import io.firn.server.optimizing.TaskStatus;
import io.firn.server.optimizing.WorkerRecord;
import io.firn.testkit.PostgresInstance;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The state store against a PostgreSQL server this test starts, stops ({@code pg_ctl stop -m
 * immediate}) and whose sessions it terminates: writes made while the database is down are kept and
 * written when it is back, the health check is red meanwhile, and a terminated session costs no
 * write (ADR 0016). Every check of what the database holds reads it over a connection of the test's
 * own.
 */
class StateStoreOutageTest {
  private static final Instant T0 = Instant.ofEpochMilli(1_700_000_000_000L);

  private static PostgresInstance pg;

  @BeforeAll
  static void startPostgres() {
    pg = PostgresInstance.start();
  }

  @AfterAll
  static void stopPostgres() {
    if (pg != null) {
      pg.close();
    }
  }

  @AfterEach
  void postgresIsUpAgain() {
    pg.resume();
    if (!pg.isRunning()) {
      pg.startServer();
    }
  }

  @Test
  void keepsTheLatestStateOfEveryRowWhileTheDatabaseIsDownAndWritesItWhenItIsBack() {
    String url = pg.createDatabase("outage");
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    StateStore store = open(url, Duration.ofMillis(100), meters);
    StateStoreHealthCheck health = new StateStoreHealthCheck(store);
    try {
      store.save(runtime("a", 1));
      store.save(runtime("gone", 1));
      store.save(runtime("c", 1));
      store.saveTableState(state("a", TableStatus.OPTIMIZING, "p1", false));
      store.saveTableState(state("c", TableStatus.PARKED, null, true));
      store.saveProcess(process("p1", ProcessStatus.RUNNING, T0));
      store.saveTasks(List.of(task("p1", 0, TaskStatus.LEASED), task("p1", 1, TaskStatus.PENDING)));
      store.saveWorker(worker("w-1"));
      assertThat(store.flush(Duration.ofSeconds(10))).isTrue();
      assertThat(health.execute().isHealthy()).isTrue();
      assertThat(rows(url, "SELECT process_id, status FROM optimizing_process"))
          .containsExactly("p1 running");

      pg.kill();
      // What the server does meanwhile: p1 ends, p2 starts, a table appears, one is dropped, one
      // is dropped and comes back, a worker goes and another comes.
      store.saveTasks(
          List.of(task("p1", 0, TaskStatus.COMMITTED), task("p1", 1, TaskStatus.COMMITTED)));
      store.saveProcess(process("p1", ProcessStatus.SUCCEEDED, T0));
      store.saveTableState(state("a", TableStatus.IDLE, "p1", false));
      store.saveProcess(process("p2", ProcessStatus.RUNNING, T0.plusSeconds(10)));
      store.saveTasks(List.of(task("p2", 0, TaskStatus.PENDING)));
      store.saveTableState(state("a", TableStatus.OPTIMIZING, "p2", false));
      store.save(runtime("b", 7));
      store.saveTableState(state("b", TableStatus.PENDING, null, false));
      store.delete("lake", "db", "gone");
      store.delete("lake", "db", "c");
      store.save(runtime("c", 2));
      store.saveTableState(state("c", TableStatus.IDLE, null, false));
      store.deleteWorker("w-1");
      store.saveWorker(worker("w-2"));

      await().atMost(10, TimeUnit.SECONDS).until(() -> !store.status().inSync());
      StateStore.Status down = store.status();
      assertThat(down.inSync()).isFalse();
      // tasks p1/0, p1/1, p2/0; processes p1, p2; tables a, b, c, gone; workers w-1, w-2.
      assertThat(down.pendingRows()).isEqualTo(11);
      assertThat(meters.get("firn.state.store.pending.rows").gauge().value()).isEqualTo(11);
      assertThat(meters.get("firn.state.store.outages").counter().count()).isEqualTo(1);
      HealthCheck.Result red = health.execute();
      assertThat(red.isHealthy()).isFalse();
      assertThat(red.getMessage()).contains("11 row(s) kept in memory");
      assertThatThrownBy(() -> store.processes(null, null, null, 10))
          .isInstanceOf(StateStoreException.class);
      // The planner's throughput estimate does with the kept rows instead of failing the plan.
      assertThat(store.pastProcesses("lake", "db", "a", 10))
          .extracting(ProcessRecord::processId, ProcessRecord::status)
          .containsExactly(
              Tuple.tuple("p2", ProcessStatus.RUNNING), Tuple.tuple("p1", ProcessStatus.SUCCEEDED));
      // The retry thread keeps trying (every 100 ms) and keeps failing.
      await().pollDelay(Duration.ofMillis(500)).until(() -> true);
      assertThat(store.status().inSync()).isFalse();
      assertThat(store.status().pendingRows()).isEqualTo(11);

      pg.startServer();
      await()
          .atMost(15, TimeUnit.SECONDS)
          .until(() -> store.status().inSync() && store.status().pendingRows() == 0);
      assertThat(meters.get("firn.state.store.pending.rows").gauge().value()).isZero();
      assertThat(health.execute().isHealthy()).isTrue();
      assertThat(rows(url, "SELECT process_id, status FROM optimizing_process"))
          .containsExactly("p1 succeeded", "p2 running");
      assertThat(rows(url, "SELECT process_id, task_number, status FROM optimizing_task"))
          .containsExactly("p1 0 committed", "p1 1 committed", "p2 0 pending");
      assertThat(
              rows(
                  url,
                  "SELECT table_name, snapshot_id, state, paused, last_process_id"
                      + " FROM table_runtime"))
          .containsExactly(
              "a 1 optimizing false p2", "b 7 pending false null", "c 2 idle false null");
      assertThat(rows(url, "SELECT worker_id FROM optimizer_worker")).containsExactly("w-2");

      // Back in sync, a write reaches the database again.
      store.saveProcess(process("p2", ProcessStatus.SUCCEEDED, T0.plusSeconds(10)));
      assertThat(store.flush(Duration.ofSeconds(10))).isTrue();
      assertThat(rows(url, "SELECT process_id, status FROM optimizing_process"))
          .containsExactly("p1 succeeded", "p2 succeeded");
      assertThat(store.status().inSync()).isTrue();
    } finally {
      store.close();
    }
    // A store opened later on the same database (the next server) finds all of it.
    try (StateStore again = open(url, Duration.ofMillis(100), new SimpleMeterRegistry())) {
      assertThat(again.processes(null, null, null, 10))
          .extracting(ProcessRecord::processId, ProcessRecord::status)
          .containsExactly(
              Tuple.tuple("p2", ProcessStatus.SUCCEEDED),
              Tuple.tuple("p1", ProcessStatus.SUCCEEDED));
      assertThat(again.tasks("p1"))
          .extracting(TaskRecord::status)
          .containsOnly(TaskStatus.COMMITTED);
      assertThat(again.loadTableStates())
          .extracting(TableStateRecord::table, TableStateRecord::status)
          .containsExactly(
              Tuple.tuple("a", TableStatus.OPTIMIZING),
              Tuple.tuple("b", TableStatus.PENDING),
              Tuple.tuple("c", TableStatus.IDLE));
    }
  }

  @Test
  void aTerminatedSessionCostsNoWrite() {
    String url = pg.createDatabase("terminated");
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    try (StateStore store = open(url, Duration.ofMillis(100), meters)) {
      store.saveProcess(process("p1", ProcessStatus.RUNNING, T0));
      assertThat(store.flush(Duration.ofSeconds(10))).isTrue();
      assertThat(pg.terminateSessions("terminated")).as("the pool's idle session").isPositive();
      // The pool checks the connection it lends, finds it closed and opens a new one.
      store.saveProcess(process("p1", ProcessStatus.SUCCEEDED, T0));
      store.saveTasks(List.of(task("p1", 0, TaskStatus.COMMITTED)));
      assertThat(store.flush(Duration.ofSeconds(10))).isTrue();
      assertThat(store.status().inSync()).isTrue();
      assertThat(meters.get("firn.state.store.outages").counter().count()).isZero();
      assertThat(rows(url, "SELECT process_id, status FROM optimizing_process"))
          .containsExactly("p1 succeeded");
      assertThat(store.process("p1").status()).isEqualTo(ProcessStatus.SUCCEEDED);
      assertThat(new StateStoreHealthCheck(store).execute().isHealthy()).isTrue();
    }
  }

  @Test
  void readsSeeKeptRowsAndClosingWritesThemWhenTheDatabaseAnswers() {
    String url = pg.createDatabase("kept");
    // The writer tries again only after an hour: only reads and close() see the kept rows.
    StateStore store = open(url, Duration.ofHours(1), new SimpleMeterRegistry());
    try {
      store.saveProcess(process("p1", ProcessStatus.RUNNING, T0));
      assertThat(store.flush(Duration.ofSeconds(10))).isTrue();
      pg.kill();
      store.saveProcess(process("p1", ProcessStatus.SUCCEEDED, T0));
      store.saveTasks(List.of(task("p1", 0, TaskStatus.COMMITTED)));
      await().atMost(10, TimeUnit.SECONDS).until(() -> !store.status().inSync());
      pg.startServer();
      // The database answers, but still has the older row; reads show the kept ones over it.
      assertThat(rows(url, "SELECT process_id, status FROM optimizing_process"))
          .containsExactly("p1 running");
      assertThat(store.process("p1").status()).isEqualTo(ProcessStatus.SUCCEEDED);
      assertThat(store.processes("lake", "db", "a", 10))
          .extracting(ProcessRecord::status)
          .containsExactly(ProcessStatus.SUCCEEDED);
      assertThat(store.processes("lake", "db", "other", 10)).isEmpty();
      assertThat(store.tasks("p1"))
          .extracting(TaskRecord::status)
          .containsExactly(TaskStatus.COMMITTED);
      // Until the kept rows are written, new writes wait behind them (a row's order holds).
      store.saveProcess(process("p2", ProcessStatus.RUNNING, T0.plusSeconds(1)));
      assertThat(store.status().pendingRows()).isEqualTo(3);
      assertThat(rows(url, "SELECT process_id FROM optimizing_process")).containsExactly("p1");
      assertThat(store.processes(null, null, null, 1))
          .extracting(ProcessRecord::processId)
          .containsExactly("p2");
    } finally {
      store.close();
    }
    assertThat(rows(url, "SELECT process_id, status FROM optimizing_process"))
        .containsExactly("p1 succeeded", "p2 running");
    assertThat(rows(url, "SELECT process_id, task_number, status FROM optimizing_task"))
        .containsExactly("p1 0 committed");
  }

  @Test
  void aRowTheDatabaseRefusesIsDroppedLoggedCountedAndTheHealthCheckSaysSoUntilItIsWritten() {
    String url = pg.createDatabase("refused");
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    try (StateStore store = open(url, Duration.ofMillis(100), meters)) {
      StateStoreHealthCheck health = new StateStoreHealthCheck(store);
      ProcessRecord noType =
          new ProcessRecord(
              "p1",
              "lake",
              "db",
              "a",
              null,
              "auto",
              ProcessStatus.RUNNING,
              1L,
              1,
              1,
              10,
              T0,
              null,
              "",
              0,
              0,
              0,
              0,
              0);
      // Written behind the caller (ADR 0023): the write returns; its row goes in a batch with a
      // good one, which still reaches the database.
      store.saveProcess(noType);
      store.saveWorker(worker("w-1"));
      assertThat(store.flush(Duration.ofSeconds(10))).isTrue();
      StateStore.Status status = store.status();
      assertThat(status.inSync()).isTrue();
      assertThat(status.pendingRows()).isZero();
      assertThat(status.refusedRows()).isEqualTo(1);
      assertThat(status.lastRefused()).startsWith("process:p1: ");
      assertThat(meters.get("firn.state.store.rows.dropped").counter().count()).isEqualTo(1);
      assertThat(meters.get("firn.state.store.outages").counter().count()).isZero();
      HealthCheck.Result red = health.execute();
      assertThat(red.isHealthy()).isFalse();
      assertThat(red.getMessage()).contains("refused 1 row(s)").contains("process:p1");
      assertThat(rows(url, "SELECT process_id FROM optimizing_process")).isEmpty();
      assertThat(rows(url, "SELECT worker_id FROM optimizer_worker")).containsExactly("w-1");

      // The row's next state is written: the database has the row, the check is green again.
      store.saveProcess(process("p1", ProcessStatus.RUNNING, T0));
      assertThat(store.flush(Duration.ofSeconds(10))).isTrue();
      assertThat(rows(url, "SELECT process_id, status FROM optimizing_process"))
          .containsExactly("p1 running");
      assertThat(store.status().refusedRows()).isZero();
      assertThat(health.execute().isHealthy()).isTrue();
    }
  }

  @Test
  @Timeout(60)
  void aHangingDatabaseHoldsUpNoWriteAndGetsEveryRowWhenItAnswersAgain() {
    String url = pg.createDatabase("hanging");
    StateStore store = open(url, Duration.ofMillis(100), new SimpleMeterRegistry());
    try {
      store.saveProcess(process("p1", ProcessStatus.RUNNING, T0));
      assertThat(store.flush(Duration.ofSeconds(10))).isTrue();
      pg.pause();
      try {
        // Before ADR 0023 the first of these waited for the database, with the caller's locks
        // held, for as long as it hung (PostgreSQL's socketTimeout is unlimited by default).
        long start = System.nanoTime();
        store.saveProcess(process("p1", ProcessStatus.SUCCEEDED, T0));
        store.saveTasks(
            List.of(task("p1", 0, TaskStatus.COMMITTED), task("p1", 1, TaskStatus.COMMITTED)));
        store.saveProcess(process("p2", ProcessStatus.RUNNING, T0.plusSeconds(10)));
        for (int i = 0; i < 50; i++) {
          store.saveTasks(List.of(task("p2", i, TaskStatus.PENDING)));
        }
        store.saveWorker(worker("w-1"));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
        // The writer is stuck in a transaction the database does not answer.
        await().atMost(10, TimeUnit.SECONDS).until(() -> store.status().writingSince() != null);
        assertThat(store.status().pendingRows()).isEqualTo(55);
        // Reads served from the pending rows do not need the database either.
        long read = System.nanoTime();
        assertThat(store.process("p2").status()).isEqualTo(ProcessStatus.RUNNING);
        assertThat(store.process("p1").status()).isEqualTo(ProcessStatus.SUCCEEDED);
        assertThat(Duration.ofNanos(System.nanoTime() - read)).isLessThan(Duration.ofSeconds(1));
      } finally {
        pg.resume();
      }
      assertThat(store.flush(Duration.ofSeconds(30))).isTrue();
      assertThat(rows(url, "SELECT process_id, status FROM optimizing_process"))
          .containsExactly("p1 succeeded", "p2 running");
      assertThat(rows(url, "SELECT count(*) FROM optimizing_task WHERE process_id = 'p2'"))
          .containsExactly("50");
    } finally {
      store.close();
    }
    // A second store on the same database (the next server) reads every row.
    try (StateStore again = open(url, Duration.ofMillis(100), new SimpleMeterRegistry())) {
      assertThat(again.processes(null, null, null, 10))
          .extracting(ProcessRecord::processId, ProcessRecord::status)
          .containsExactly(
              Tuple.tuple("p2", ProcessStatus.RUNNING), Tuple.tuple("p1", ProcessStatus.SUCCEEDED));
      assertThat(again.tasks("p1"))
          .extracting(TaskRecord::status)
          .containsExactly(TaskStatus.COMMITTED, TaskStatus.COMMITTED);
      assertThat(again.tasks("p2")).hasSize(50);
    }
  }

  @Test
  @Timeout(60)
  void closingWritesWhatIsPendingAndGivesUpAfterTheFlushTimeout() throws Exception {
    String url = pg.createDatabase("closing");
    // More than one transaction's worth of rows, all pending when close() starts.
    StateStore store = open(url, Duration.ofMillis(100), new SimpleMeterRegistry());
    List<TaskRecord> tasks = new ArrayList<>();
    for (int i = 0; i < RowWriter.BATCH * 2 + 1; i++) {
      tasks.add(task("p1", i, TaskStatus.PENDING));
    }
    pg.pause();
    try {
      store.saveProcess(process("p1", ProcessStatus.RUNNING, T0));
      store.saveTasks(tasks);
    } finally {
      pg.resume();
    }
    store.close();
    assertThat(store.status().pendingRows()).isZero();
    assertThat(rows(url, "SELECT count(*) FROM optimizing_task")).containsExactly("401");
    assertThat(rows(url, "SELECT process_id FROM optimizing_process")).containsExactly("p1");
    assertThatThrownBy(() -> store.saveProcess(process("p2", ProcessStatus.RUNNING, T0)))
        .isInstanceOf(StateStoreException.class)
        .hasMessageContaining("is closed");

    // A database that hangs through the whole flush timeout: close() gives up, bounded.
    StateStoreConfiguration configuration = configuration(url, Duration.ofMillis(100));
    configuration.setFlushTimeout(io.dropwizard.util.Duration.seconds(1));
    StateStore stuck =
        StateStore.open(configuration, new MetricRegistry(), new SimpleMeterRegistry());
    pg.pause();
    try {
      stuck.saveProcess(process("p1", ProcessStatus.SUCCEEDED, T0));
      long start = System.nanoTime();
      stuck.close();
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
      assertThat(stuck.status().pendingRows()).as("lost, and logged").isEqualTo(1);
    } finally {
      pg.resume();
    }
  }

  private static StateStore open(String url, Duration retry, SimpleMeterRegistry meters) {
    return StateStore.open(configuration(url, retry), new MetricRegistry(), meters);
  }

  private static StateStoreConfiguration configuration(String url, Duration retry) {
    StateStoreConfiguration configuration = new StateStoreConfiguration();
    configuration.setUrl(url);
    configuration.setUser(pg.user());
    configuration.setRetryInterval(io.dropwizard.util.Duration.milliseconds(retry.toMillis()));
    return configuration;
  }

  /** Each row of the query's result as its columns joined by spaces, in the database's order. */
  private static List<String> rows(String url, String sql) {
    String ordered = sql + " ORDER BY 1" + (sql.contains("task_number") ? ", 2" : "");
    try (Connection c = DriverManager.getConnection(url, pg.user(), "");
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(ordered)) {
      List<String> rows = new ArrayList<>();
      int columns = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        List<String> values = new ArrayList<>();
        for (int i = 1; i <= columns; i++) {
          values.add(String.valueOf(rs.getObject(i)));
        }
        rows.add(String.join(" ", values));
      }
      return rows;
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e, e);
    }
  }

  private static TableRuntime runtime(String table, long snapshot) {
    return new TableRuntime(
        "lake",
        "db",
        table,
        snapshot,
        true,
        "due",
        T0.plusSeconds(snapshot),
        50,
        10,
        2,
        1,
        TableSummary.EMPTY);
  }

  private static TableStateRecord state(
      String table, TableStatus status, String lastProcess, boolean paused) {
    return new TableStateRecord(
        "lake",
        "db",
        table,
        null,
        true,
        status.label(),
        T0,
        status,
        T0,
        paused,
        null,
        null,
        0,
        lastProcess,
        50,
        10,
        2,
        1,
        TableSummary.EMPTY);
  }

  private static ProcessRecord process(String id, ProcessStatus status, Instant created) {
    return new ProcessRecord(
        id,
        "lake",
        "db",
        "a",
        "minor",
        "auto",
        status,
        1L,
        1,
        2,
        1000,
        created,
        status == ProcessStatus.RUNNING ? null : created.plusSeconds(5),
        status.label(),
        0,
        0,
        0,
        0,
        0);
  }

  private static TaskRecord task(String process, int number, TaskStatus status) {
    return new TaskRecord(
        process,
        number,
        "p=" + number,
        status,
        1,
        process + "-t" + number,
        "w-1",
        2,
        0,
        500,
        T0,
        null,
        status.label(),
        0,
        0,
        0);
  }

  private static WorkerRecord worker(String id) {
    return new WorkerRecord(id, id + "@h", "default", 2, "local", "dev", T0, T0, 0);
  }
}
