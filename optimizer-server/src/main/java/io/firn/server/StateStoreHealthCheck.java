package io.firn.server;

import com.codahale.metrics.health.HealthCheck;
import io.firn.server.store.StateStore;
import java.time.Duration;
import java.time.Instant;

/**
 * Healthy while the state store has every row and answers. Unhealthy while writes fail (rows are
 * kept in memory until the database answers again, ADR 0016) or when the database does not answer a
 * round trip.
 */
public class StateStoreHealthCheck extends HealthCheck {
  private final StateStore store;

  public StateStoreHealthCheck(StateStore store) {
    this.store = store;
  }

  @Override
  protected Result check() {
    StateStore.Status status = store.status();
    if (!status.inSync()) {
      return Result.builder()
          .unhealthy()
          .withMessage(
              "state store writes fail since %s (%d s); %d row(s) kept in memory, written when"
                  + " the database answers again; last error: %s",
              status.failingSince(),
              Duration.between(status.failingSince(), Instant.now()).toSeconds(),
              status.pendingRows(),
              status.lastError())
          .withDetail("failingSince", status.failingSince().toString())
          .withDetail("pendingRows", status.pendingRows())
          .build();
    }
    return store.isReachable()
        ? Result.healthy()
        : Result.unhealthy("the state store does not answer");
  }
}
