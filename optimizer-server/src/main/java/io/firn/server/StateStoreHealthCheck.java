/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server;

import com.codahale.metrics.health.HealthCheck;
import io.firn.server.store.StateStore;
import java.time.Duration;
import java.time.Instant;

/**
 * Healthy while the state store takes the writes and answers. Unhealthy while writes fail (rows are
 * kept in memory until the database answers again, ADR 0016), while one write transaction has
 * waited longer than {@link #STUCK_AFTER} (a database that hangs), while a row the database refused
 * has not been written since (ADR 0023), or when the database does not answer a round trip.
 */
public class StateStoreHealthCheck extends HealthCheck {
  /** How long one write transaction may wait for the database before the check is red. */
  static final Duration STUCK_AFTER = Duration.ofSeconds(10);

  private final StateStore store;

  public StateStoreHealthCheck(StateStore store) {
    this.store = store;
  }

  @Override
  protected Result check() {
    StateStore.Status status = store.status();
    Instant failingSince = status.failingSince(); // null while in sync
    if (failingSince != null) {
      return Result.builder()
          .unhealthy()
          .withMessage(
              "state store writes fail since %s (%d s); %d row(s) kept in memory, written when"
                  + " the database answers again; last error: %s",
              failingSince,
              Duration.between(failingSince, Instant.now()).toSeconds(),
              status.pendingRows(),
              status.lastError())
          .withDetail("failingSince", failingSince.toString())
          .withDetail("pendingRows", status.pendingRows())
          .build();
    }
    Instant writing = status.writingSince();
    if (writing != null && Duration.between(writing, Instant.now()).compareTo(STUCK_AFTER) > 0) {
      return Result.builder()
          .unhealthy()
          .withMessage(
              "a state store write has waited %d s for the database; %d row(s) pending",
              Duration.between(writing, Instant.now()).toSeconds(), status.pendingRows())
          .withDetail("writingSince", writing.toString())
          .withDetail("pendingRows", status.pendingRows())
          .build();
    }
    if (status.refusedRows() > 0) {
      return Result.builder()
          .unhealthy()
          .withMessage(
              "the state store refused %d row(s) not written since (see the error log and"
                  + " firn_state_store_rows_dropped_total); the latest: %s",
              status.refusedRows(), status.lastRefused())
          .withDetail("refusedRows", status.refusedRows())
          .build();
    }
    return store.isReachable()
        ? Result.healthy()
        : Result.unhealthy("the state store does not answer");
  }
}
