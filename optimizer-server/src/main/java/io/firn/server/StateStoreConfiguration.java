/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.db.DataSourceFactory;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * {@code stateStore:} where the server keeps its state. The default is an embedded H2 database file
 * next to the working directory; production uses PostgreSQL ({@code jdbc:postgresql://host/db}).
 * Driver settings such as PostgreSQL's {@code connectTimeout} or {@code socketTimeout} go in the
 * URL.
 *
 * <p>{@code maxConnections} bounds the connection pool (writes use one connection at a time, reads
 * of the REST API one each); {@code retryInterval} is how often rows kept in memory during a
 * database outage are written again (ADR 0016).
 */
public class StateStoreConfiguration {
  public static final String DEFAULT_URL = "jdbc:h2:file:./firn-state/firn";

  @NotEmpty private String url = DEFAULT_URL;
  private @Nullable String user;
  private @Nullable String password;

  @Min(1)
  @Max(100)
  private int maxConnections = 8;

  @NotNull
  @MinDuration(value = 10, unit = TimeUnit.MILLISECONDS)
  private Duration retryInterval = Duration.seconds(1);

  /** How long stopping the server waits for the pending rows to reach the database. */
  @NotNull
  @MinDuration(value = 0, unit = TimeUnit.MILLISECONDS)
  private Duration flushTimeout = Duration.seconds(15);

  @JsonProperty
  public String getUrl() {
    return url;
  }

  @JsonProperty
  public void setUrl(String url) {
    this.url = url;
  }

  @JsonProperty
  public @Nullable String getUser() {
    return user;
  }

  @JsonProperty
  public void setUser(@Nullable String user) {
    this.user = user;
  }

  @JsonProperty
  public @Nullable String getPassword() {
    return password;
  }

  @JsonProperty
  public void setPassword(@Nullable String password) {
    this.password = password;
  }

  @JsonProperty
  public int getMaxConnections() {
    return maxConnections;
  }

  @JsonProperty
  public void setMaxConnections(int maxConnections) {
    this.maxConnections = maxConnections;
  }

  @JsonProperty
  public Duration getRetryInterval() {
    return retryInterval;
  }

  @JsonProperty
  public void setRetryInterval(Duration retryInterval) {
    this.retryInterval = retryInterval;
  }

  @JsonProperty
  public Duration getFlushTimeout() {
    return flushTimeout;
  }

  @JsonProperty
  public void setFlushTimeout(Duration flushTimeout) {
    this.flushTimeout = flushTimeout;
  }

  /**
   * The pool: at least one idle connection (an H2 in-memory database lives as long as one is open),
   * every connection checked with a query each time it is borrowed and while idle, so that a
   * connection the database closed (restart, {@code pg_terminate_backend}) is replaced instead of
   * failing a write.
   */
  public DataSourceFactory dataSourceFactory() {
    DataSourceFactory factory = new DataSourceFactory();
    factory.setUrl(url);
    factory.setDriverClass(driverClass(url));
    factory.setUser(user);
    factory.setPassword(password);
    factory.setInitialSize(1);
    factory.setMinSize(1);
    factory.setMaxSize(maxConnections);
    factory.setMaxWaitForConnection(Duration.seconds(5));
    factory.setValidationQuery("SELECT 1");
    factory.setValidationQueryTimeout(Duration.seconds(2));
    factory.setCheckConnectionOnBorrow(true);
    // 0: validate at every borrow (tomcat-jdbc skips validations within the interval otherwise).
    factory.setValidationInterval(Duration.milliseconds(0));
    factory.setCheckConnectionWhileIdle(true);
    factory.setEvictionInterval(Duration.seconds(5));
    return factory;
  }

  /** The driver for the URL's scheme; null lets the pool ask {@code DriverManager}. */
  static @Nullable String driverClass(String url) {
    if (url.startsWith("jdbc:postgresql:")) {
      return "org.postgresql.Driver";
    }
    if (url.startsWith("jdbc:h2:")) {
      return "org.h2.Driver";
    }
    return null;
  }
}
