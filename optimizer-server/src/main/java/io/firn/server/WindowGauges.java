/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server;

import io.firn.server.policy.PolicyRegistry;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * {@code firn_window_open{window}}: 1 while a policy window is open, else 0. Windows a reload adds
 * get a series on {@link #sync()}; windows it removes report 0.
 */
final class WindowGauges {
  private final MeterRegistry registry;
  private final Supplier<PolicyRegistry.LoadedPolicy> policies;
  private final Clock clock;
  private final Set<String> registered = ConcurrentHashMap.newKeySet();

  private WindowGauges(
      MeterRegistry registry, Supplier<PolicyRegistry.LoadedPolicy> policies, Clock clock) {
    this.registry = registry;
    this.policies = policies;
    this.clock = clock;
  }

  static WindowGauges register(
      MeterRegistry registry, Supplier<PolicyRegistry.LoadedPolicy> policies, Clock clock) {
    WindowGauges gauges = new WindowGauges(registry, policies, clock);
    gauges.sync();
    return gauges;
  }

  /** Registers a series for every window of the policy in force that has none. */
  void sync() {
    for (String name : policies.get().calendar().windows().keySet()) {
      if (registered.add(name)) {
        Gauge.builder("firn.window.open", this, g -> g.open(name))
            .description("1 while the policy window is open, else 0")
            .tag("window", name)
            .register(registry);
      }
    }
  }

  private double open(String name) {
    PolicyRegistry.LoadedPolicy loaded = policies.get();
    return loaded.calendar().windows().containsKey(name)
            && loaded.calendar().isOpen(name, clock.instant())
        ? 1
        : 0;
  }
}
