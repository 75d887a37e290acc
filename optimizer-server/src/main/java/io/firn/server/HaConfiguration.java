/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.constraints.NotNull;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * {@code ha:} several replicas on one state store, one of them the leader (ADR 0021). Off by
 * default: a single server needs no lease.
 */
public class HaConfiguration {
  private boolean enabled;

  @NotNull
  @MinDuration(value = 2, unit = TimeUnit.SECONDS)
  private Duration leaseTtl = Duration.seconds(15);

  @NotNull
  @MinDuration(value = 100, unit = TimeUnit.MILLISECONDS)
  private Duration renewInterval = Duration.seconds(5);

  private @Nullable String advertisedUrl;

  /** What the field constraints cannot see, each naming its key; empty when consistent. */
  List<String> problems(@Nullable String stateStoreUrl) {
    List<String> problems = new ArrayList<>();
    if (!enabled) {
      return problems;
    }
    if (advertisedUrl == null || advertisedUrl.isBlank()) {
      problems.add(
          "ha.advertisedUrl: required when ha.enabled is true: the URL at which the other replicas"
              + " send workers and operators to this one, e.g. http://firn-0.firn:8080");
    } else {
      try {
        URI uri = URI.create(advertisedUrl);
        if (uri.getScheme() == null
            || !(uri.getScheme().equals("http") || uri.getScheme().equals("https"))
            || uri.getHost() == null) {
          problems.add(
              "ha.advertisedUrl: '" + advertisedUrl + "' is not an http(s) URL with a host");
        }
      } catch (IllegalArgumentException e) {
        problems.add("ha.advertisedUrl: '" + advertisedUrl + "' is not a URL: " + e.getMessage());
      }
    }
    if (renewInterval != null
        && leaseTtl != null
        && renewInterval.toMilliseconds() * 2 > leaseTtl.toMilliseconds()) {
      problems.add(
          "ha.renewInterval ("
              + renewInterval
              + ") must be at most half of ha.leaseTtl ("
              + leaseTtl
              + "): a leader renews at least twice per lease");
    }
    if (stateStoreUrl != null && stateStoreUrl.startsWith("jdbc:h2:mem:")) {
      problems.add(
          "ha.enabled: the replicas must share their state store (PostgreSQL); stateStore.url "
              + "jdbc:h2:mem: is private to one process");
    }
    return problems;
  }

  /**
   * The advertised URL of a replica with {@code ha.enabled}, which {@link #problems} requires.
   *
   * @throws IllegalStateException when it is not set
   */
  String requireAdvertisedUrl() {
    if (advertisedUrl == null || advertisedUrl.isBlank()) {
      throw new IllegalStateException("ha.advertisedUrl: required when ha.enabled is true");
    }
    return advertisedUrl;
  }

  @JsonProperty
  public boolean isEnabled() {
    return enabled;
  }

  @JsonProperty
  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  @JsonProperty
  public Duration getLeaseTtl() {
    return leaseTtl;
  }

  @JsonProperty
  public void setLeaseTtl(Duration leaseTtl) {
    this.leaseTtl = leaseTtl;
  }

  @JsonProperty
  public Duration getRenewInterval() {
    return renewInterval;
  }

  @JsonProperty
  public void setRenewInterval(Duration renewInterval) {
    this.renewInterval = renewInterval;
  }

  @JsonProperty
  public @Nullable String getAdvertisedUrl() {
    return advertisedUrl;
  }

  @JsonProperty
  public void setAdvertisedUrl(@Nullable String advertisedUrl) {
    this.advertisedUrl = advertisedUrl;
  }
}
