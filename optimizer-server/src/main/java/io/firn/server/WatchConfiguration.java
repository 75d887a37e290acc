/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.constraints.NotNull;
import java.util.concurrent.TimeUnit;

/**
 * {@code watch:} how often the snapshot watcher lists the catalogs, and how many tables it loads
 * and evaluates at once ({@code threads}; a round over many tables is bound by catalog round
 * trips).
 */
public class WatchConfiguration {
  @jakarta.validation.constraints.Min(1)
  @jakarta.validation.constraints.Max(256)
  private int threads = 4;

  @jakarta.validation.constraints.Min(1)
  private int maxEvaluationsPerRound = 1000;

  @JsonProperty
  public int getMaxEvaluationsPerRound() {
    return maxEvaluationsPerRound;
  }

  @JsonProperty
  public void setMaxEvaluationsPerRound(int maxEvaluationsPerRound) {
    this.maxEvaluationsPerRound = maxEvaluationsPerRound;
  }

  @JsonProperty
  public int getThreads() {
    return threads;
  }

  @JsonProperty
  public void setThreads(int threads) {
    this.threads = threads;
  }

  @NotNull
  @MinDuration(value = 10, unit = TimeUnit.MILLISECONDS)
  private Duration interval = Duration.seconds(30);

  @JsonProperty
  public Duration getInterval() {
    return interval;
  }

  @JsonProperty
  public void setInterval(Duration interval) {
    this.interval = interval;
  }
}
