package io.firn.server;

import com.codahale.metrics.health.HealthCheck;

/** Healthy while the state store answers. */
public class StateStoreHealthCheck extends HealthCheck {
  private final StateStore store;

  public StateStoreHealthCheck(StateStore store) {
    this.store = store;
  }

  @Override
  protected Result check() {
    return store.isReachable()
        ? Result.healthy()
        : Result.unhealthy("the state store does not answer");
  }
}
