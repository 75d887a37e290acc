/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import io.firn.core.catalog.CatalogConnectionException;
import io.firn.core.catalog.CatalogSettings;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** One entry of {@code catalogs:}; see {@link CatalogSettings} for the meaning of each key. */
public class CatalogConfiguration {
  // Jackson fills these; name's @NotEmpty is checked by Dropwizard's validation, the rest may be
  // absent (CatalogSettings says which a type needs).
  @NotEmpty private @Nullable String name;
  private @Nullable String type;
  private @Nullable String uri;
  private @Nullable String warehouse;
  @NotNull private Map<String, String> properties = new LinkedHashMap<>();

  /**
   * Validates the combination of keys (e.g. a jdbc catalog needs a uri and a warehouse).
   *
   * @throws CatalogConnectionException when a key is missing or does not fit the type
   */
  public CatalogSettings settings() {
    if (name == null || name.isBlank()) {
      throw new CatalogConnectionException("a catalog needs a name (key 'name')");
    }
    return CatalogSettings.of(name, type, uri, warehouse, properties);
  }

  @JsonProperty
  public @Nullable String getName() {
    return name;
  }

  @JsonProperty
  public void setName(@Nullable String name) {
    this.name = name;
  }

  @JsonProperty
  public @Nullable String getType() {
    return type;
  }

  @JsonProperty
  public void setType(@Nullable String type) {
    this.type = type;
  }

  @JsonProperty
  public @Nullable String getUri() {
    return uri;
  }

  @JsonProperty
  public void setUri(@Nullable String uri) {
    this.uri = uri;
  }

  @JsonProperty
  public @Nullable String getWarehouse() {
    return warehouse;
  }

  @JsonProperty
  public void setWarehouse(@Nullable String warehouse) {
    this.warehouse = warehouse;
  }

  @JsonProperty
  public Map<String, String> getProperties() {
    return properties;
  }

  @JsonProperty
  @JsonSetter(nulls = Nulls.SKIP, contentNulls = Nulls.FAIL)
  public void setProperties(Map<String, String> properties) {
    this.properties = properties;
  }
}
