/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.firn.core.catalog.CatalogSettings;
import io.firn.core.protocol.RegisterRequest;
import io.firn.core.protocol.RegisterResponse;
import io.firn.core.protocol.WorkerProtocol;
import io.firn.testkit.CdcTableSpec;
import io.firn.testkit.RowSets;
import io.firn.testkit.SecretCheckingCatalog;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code auth.shareCatalogCredentials: false}: the register answer carries no credential, a worker
 * without its own cannot reach the catalog (its attempts fail with the catalog's refusal, nothing
 * is committed), and a worker with its own catalog properties optimizes the table with rows
 * unchanged.
 */
class WithheldCredentialsTest {
  private static final Instant T0 = Instant.parse("2026-06-01T00:00:00Z");

  @TempDir Path dir;

  @Test
  void aWorkerWithoutTheCatalogSecretCannotReachTheTableAndOneWithItsOwnOptimizesIt()
      throws Exception {
    try (ServiceHarness harness =
        new ServiceHarness(
            dir,
            "version: 1\n",
            T0,
            c -> c.setMaxAttempts(10),
            Map.of("dangling-deletes.enabled", "false", "rewrite-manifests.enabled", "false"),
            SecretCheckingCatalog.class.getName(),
            Map.of(SecretCheckingCatalog.KEY, SecretCheckingCatalog.SECRET),
            false,
            null)) {
      Map<String, Long> before =
          RowSets.read(
              harness
                  .generate(
                      "orders", new CdcTableSpec(2_000, 10, 0.05, 0.02, 0.02, 0, 3L, false, false))
                  .table());
      RegisterResponse registered =
          harness.service.register(
              new RegisterRequest(WorkerProtocol.VERSION, "probe", "default", 1, "local", "1"));
      CatalogSettings told = registered.catalogs().get(0);
      assertThat(told.properties())
          .doesNotContainKey(SecretCheckingCatalog.KEY)
          .containsEntry(CatalogSettings.CATALOG_IMPL, SecretCheckingCatalog.class.getName());

      harness.evaluate("orders");
      harness.service.tick();
      await()
          .atMost(30, TimeUnit.SECONDS)
          .until(() -> harness.state("orders").lastProcessId() != null);
      String process = harness.state("orders").lastProcessId();
      harness.startWorker(1);
      await()
          .atMost(30, TimeUnit.SECONDS)
          .until(
              () -> {
                List<TaskRecord> tasks = harness.store.tasks(process);
                return !tasks.isEmpty()
                    && tasks.get(0).attempts() >= 1
                    && tasks.get(0).status() == TaskStatus.PENDING;
              });
      assertThat(harness.store.tasks(process).get(0).message())
          .contains("refuses the connection: test.token is missing or wrong");
      harness.stopWorker();
      assertThat(RowSets.read(harness.table("orders"))).isEqualTo(before);
      assertThat(harness.table("orders").currentSnapshot().summary())
          .doesNotContainKey("firn.process-id");

      harness.startWorker(
          1, Map.of("lake." + SecretCheckingCatalog.KEY, SecretCheckingCatalog.SECRET));
      harness.clock.advance(Duration.ofHours(1));
      await()
          .atMost(60, TimeUnit.SECONDS)
          .until(() -> harness.store.process(process).status() == ProcessStatus.SUCCEEDED);
      assertThat(RowSets.read(harness.table("orders"))).isEqualTo(before);
      assertThat(harness.table("orders").currentSnapshot().summary())
          .containsEntry("firn.process-id", process);
    }
  }
}
