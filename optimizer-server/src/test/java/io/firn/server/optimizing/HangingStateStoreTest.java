/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.core.protocol.HeartbeatRequest;
import io.firn.core.protocol.RegisterRequest;
import io.firn.core.protocol.RegisterResponse;
import io.firn.core.protocol.WorkerProtocol;
import io.firn.server.store.StateStore;
import io.firn.testkit.PostgresInstance;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The service over a state store whose PostgreSQL server hangs ({@code SIGSTOP}): worker requests
 * and the scheduling round go on, the service's lock stays free, and the rows reach the database
 * when it answers again (ADR 0023).
 */
class HangingStateStoreTest {
  private static final Instant T0 = Instant.parse("2026-06-01T00:00:00Z");

  @TempDir Path dir;

  @Test
  @Timeout(120)
  void aHangingStateStoreHoldsUpNeitherTheWorkersNorTheLock() throws Exception {
    try (PostgresInstance pg = PostgresInstance.start()) {
      String url = pg.createDatabase("service");
      StateStore store = StateStore.open(url, pg.user(), null);
      try (ServiceHarness harness =
          new ServiceHarness(
              dir,
              "version: 1\n",
              T0,
              c -> {},
              Map.of("dangling-deletes.enabled", "false", "rewrite-manifests.enabled", "false"),
              null,
              Map.of(),
              true,
              store)) {
        WorkerProtocol service = harness.service;
        RegisterResponse first = register(service);
        assertThat(store.flush(Duration.ofSeconds(10))).isTrue();

        pg.pause();
        RegisterResponse second;
        try {
          long start = System.nanoTime();
          // Each writes its worker row under the service's lock.
          second = register(service);
          RegisterResponse third = register(service);
          service.heartbeat(
              new HeartbeatRequest(
                  WorkerProtocol.VERSION, first.workerId(), first.workerSecret(), List.of()));
          harness.service.tick();
          assertThat(harness.service.workers()).hasSize(3);
          assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
          assertThat(harness.service.state.lock.tryLock(1, TimeUnit.SECONDS)).isTrue();
          harness.service.state.lock.unlock();
          assertThat(store.status().pendingRows()).isEqualTo(2);
          assertThat(third.workerId()).isNotEqualTo(second.workerId());
        } finally {
          pg.resume();
        }
        assertThat(store.flush(Duration.ofSeconds(30))).isTrue();
        assertThat(workerRows(pg, url)).hasSize(3).contains(first.workerId(), second.workerId());
      }
    }
  }

  private static RegisterResponse register(WorkerProtocol service) {
    return service.register(
        new RegisterRequest(WorkerProtocol.VERSION, "test", "default", 1, "local", "test"));
  }

  private static List<String> workerRows(PostgresInstance pg, String url) throws Exception {
    try (Connection c = DriverManager.getConnection(url, pg.user(), "");
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT worker_id FROM optimizer_worker")) {
      List<String> ids = new ArrayList<>();
      while (rs.next()) {
        ids.add(rs.getString(1));
      }
      return ids;
    }
  }
}
