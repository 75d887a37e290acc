/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.firn.core.catalog.CatalogSettings;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import java.util.LinkedHashMap;
import java.util.Map;

/** One entry of {@code catalogs:}; see {@link CatalogSettings} for the meaning of each key. */
public class CatalogConfiguration {
  @NotEmpty private String name;
  private String type;
  private String uri;
  private String warehouse;
  @NotNull private Map<String, String> properties = new LinkedHashMap<>();

  /** Validates the combination of keys (e.g. a jdbc catalog needs a uri and a warehouse). */
  public CatalogSettings settings() {
    return new CatalogSettings(name, type, uri, warehouse, properties);
  }

  @JsonProperty
  public String getName() {
    return name;
  }

  @JsonProperty
  public void setName(String name) {
    this.name = name;
  }

  @JsonProperty
  public String getType() {
    return type;
  }

  @JsonProperty
  public void setType(String type) {
    this.type = type;
  }

  @JsonProperty
  public String getUri() {
    return uri;
  }

  @JsonProperty
  public void setUri(String uri) {
    this.uri = uri;
  }

  @JsonProperty
  public String getWarehouse() {
    return warehouse;
  }

  @JsonProperty
  public void setWarehouse(String warehouse) {
    this.warehouse = warehouse;
  }

  @JsonProperty
  public Map<String, String> getProperties() {
    return properties;
  }

  @JsonProperty
  public void setProperties(Map<String, String> properties) {
    this.properties = properties;
  }
}
