/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import jakarta.validation.constraints.NotNull;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code tables:} which tables the server watches, as glob patterns on {@code
 * catalog.namespace.table}. A table is watched when it matches an include pattern and no exclude
 * pattern.
 */
public class TablesConfiguration {
  @NotNull private List<String> include = new ArrayList<>(List.of("*"));
  @NotNull private List<String> exclude = new ArrayList<>();

  @JsonProperty
  public List<String> getInclude() {
    return include;
  }

  @JsonProperty
  @JsonSetter(contentNulls = Nulls.FAIL)
  public void setInclude(List<String> include) {
    this.include = include;
  }

  @JsonProperty
  public List<String> getExclude() {
    return exclude;
  }

  @JsonProperty
  @JsonSetter(contentNulls = Nulls.FAIL)
  public void setExclude(List<String> exclude) {
    this.exclude = exclude;
  }

  public TablePatterns patterns() {
    return new TablePatterns(include, exclude);
  }
}
