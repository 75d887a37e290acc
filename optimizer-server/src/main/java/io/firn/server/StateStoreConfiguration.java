package io.firn.server;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.constraints.NotEmpty;

/**
 * {@code stateStore:} where the server keeps its state. The default is an embedded H2 database file
 * next to the working directory; production uses PostgreSQL ({@code jdbc:postgresql://host/db}).
 */
public class StateStoreConfiguration {
  public static final String DEFAULT_URL = "jdbc:h2:file:./firn-state/firn";

  @NotEmpty private String url = DEFAULT_URL;
  private String user;
  private String password;

  @JsonProperty
  public String getUrl() {
    return url;
  }

  @JsonProperty
  public void setUrl(String url) {
    this.url = url;
  }

  @JsonProperty
  public String getUser() {
    return user;
  }

  @JsonProperty
  public void setUser(String user) {
    this.user = user;
  }

  @JsonProperty
  public String getPassword() {
    return password;
  }

  @JsonProperty
  public void setPassword(String password) {
    this.password = password;
  }
}
