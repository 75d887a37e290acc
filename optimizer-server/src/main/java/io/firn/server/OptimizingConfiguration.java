/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MaxDuration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.util.concurrent.TimeUnit;

/**
 * {@code optimizing:} how the server plans, leases and retries optimizing work (ADR 0009).
 *
 * <pre>{@code
 * optimizing:
 *   enabled: true                 # false: watch and report only
 *   localWorkerThreads: 2         # in-process worker slots; 0 = remote workers only
 *   maxConcurrentProcesses: 8     # tables optimized at once
 *   planningThreads: 1
 *   schedulingInterval: 500ms     # how often due tables are looked at; a new snapshot wakes it
 *   lease: 2m                     # a task's lease without heartbeat
 *   heartbeatInterval: 10s        # told to workers at registration
 *   maxAttempts: 3                # attempts per task before its group fails
 *   retryBackoff: 30s             # first retry delay, doubled per attempt
 *   parkAfterFailures: 3          # consecutive failed processes before a table is parked
 *   parkFor: 1h                   # how long a parked table waits before the next try
 * }</pre>
 */
public class OptimizingConfiguration {
  private boolean enabled = true;

  @Min(0)
  @Max(256)
  private int localWorkerThreads = 2;

  @Min(1)
  private int maxConcurrentProcesses = 8;

  @Min(1)
  @Max(64)
  private int planningThreads = 1;

  @NotNull
  @MinDuration(value = 10, unit = TimeUnit.MILLISECONDS)
  @MaxDuration(value = 1, unit = TimeUnit.HOURS)
  private Duration schedulingInterval = Duration.milliseconds(500);

  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.SECONDS)
  private Duration lease = Duration.minutes(2);

  @NotNull
  @MinDuration(value = 100, unit = TimeUnit.MILLISECONDS)
  private Duration heartbeatInterval = Duration.seconds(10);

  @Min(1)
  private int maxAttempts = 3;

  @NotNull private Duration retryBackoff = Duration.seconds(30);

  @Min(1)
  private int parkAfterFailures = 3;

  @NotNull private Duration parkFor = Duration.hours(1);

  @JsonProperty
  public boolean isEnabled() {
    return enabled;
  }

  @JsonProperty
  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  @JsonProperty
  public int getLocalWorkerThreads() {
    return localWorkerThreads;
  }

  @JsonProperty
  public void setLocalWorkerThreads(int localWorkerThreads) {
    this.localWorkerThreads = localWorkerThreads;
  }

  @JsonProperty
  public int getMaxConcurrentProcesses() {
    return maxConcurrentProcesses;
  }

  @JsonProperty
  public void setMaxConcurrentProcesses(int maxConcurrentProcesses) {
    this.maxConcurrentProcesses = maxConcurrentProcesses;
  }

  @JsonProperty
  public int getPlanningThreads() {
    return planningThreads;
  }

  @JsonProperty
  public void setPlanningThreads(int planningThreads) {
    this.planningThreads = planningThreads;
  }

  /**
   * How often the scheduling round runs when nothing wakes it; a table that becomes due (a new
   * snapshot, an operator's trigger) wakes it at once (ADR 0044).
   */
  @JsonProperty
  public Duration getSchedulingInterval() {
    return schedulingInterval;
  }

  @JsonProperty
  public void setSchedulingInterval(Duration schedulingInterval) {
    this.schedulingInterval = schedulingInterval;
  }

  @JsonProperty
  public Duration getLease() {
    return lease;
  }

  @JsonProperty
  public void setLease(Duration lease) {
    this.lease = lease;
  }

  @JsonProperty
  public Duration getHeartbeatInterval() {
    return heartbeatInterval;
  }

  @JsonProperty
  public void setHeartbeatInterval(Duration heartbeatInterval) {
    this.heartbeatInterval = heartbeatInterval;
  }

  @JsonProperty
  public int getMaxAttempts() {
    return maxAttempts;
  }

  @JsonProperty
  public void setMaxAttempts(int maxAttempts) {
    this.maxAttempts = maxAttempts;
  }

  @JsonProperty
  public Duration getRetryBackoff() {
    return retryBackoff;
  }

  @JsonProperty
  public void setRetryBackoff(Duration retryBackoff) {
    this.retryBackoff = retryBackoff;
  }

  @JsonProperty
  public int getParkAfterFailures() {
    return parkAfterFailures;
  }

  @JsonProperty
  public void setParkAfterFailures(int parkAfterFailures) {
    this.parkAfterFailures = parkAfterFailures;
  }

  @JsonProperty
  public Duration getParkFor() {
    return parkFor;
  }

  @JsonProperty
  public void setParkFor(Duration parkFor) {
    this.parkFor = parkFor;
  }
}
