package io.firn.server;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.constraints.NotNull;
import java.util.concurrent.TimeUnit;

/** {@code watch:} how often the snapshot watcher lists the catalogs. */
public class WatchConfiguration {
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
