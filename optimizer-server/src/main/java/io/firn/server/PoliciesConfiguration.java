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
import org.jspecify.annotations.Nullable;

/**
 * {@code policies:} where the optimization policy lives (a YAML file or a directory of them, ADR
 * 0005 and 0007) and how often the server checks it for changes. Without a path the built-in
 * defaults apply (every kind of work at any time, Amoro's thresholds, one group "default").
 */
public class PoliciesConfiguration {
  private @Nullable String path;

  @NotNull
  @MinDuration(value = 100, unit = TimeUnit.MILLISECONDS)
  private Duration reloadInterval = Duration.seconds(10);

  @JsonProperty
  public @Nullable String getPath() {
    return path;
  }

  @JsonProperty
  public void setPath(@Nullable String path) {
    this.path = path;
  }

  @JsonProperty
  public Duration getReloadInterval() {
    return reloadInterval;
  }

  @JsonProperty
  public void setReloadInterval(Duration reloadInterval) {
    this.reloadInterval = reloadInterval;
  }
}
