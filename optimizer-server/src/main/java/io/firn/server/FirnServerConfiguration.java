/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import io.dropwizard.core.Configuration;
import io.firn.core.maintenance.InvalidMaintenanceSettingsException;
import io.firn.core.maintenance.MaintenanceSettings;
import io.firn.server.policy.PolicyRegistry;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The server's YAML file. Unknown keys are errors: Dropwizard's configuration factory fails on
 * unknown properties and names the key. What single fields cannot check is in {@link #problems()}.
 *
 * <p>A section without keys (YAML reads {@code ha:} with every key below it commented out as null)
 * keeps its defaults, as a section left out does; an empty entry of a list (a catalog, a table
 * pattern) or a catalog property without a value is a parse error naming it. So no field Jackson
 * fills here is null, as NullAway takes them to be (ADR 0032).
 */
@ConsistentConfiguration
public class FirnServerConfiguration extends Configuration {
  @Valid @NotNull private List<CatalogConfiguration> catalogs = new ArrayList<>();
  @Valid @NotNull private TablesConfiguration tables = new TablesConfiguration();
  @Valid @NotNull private StateStoreConfiguration stateStore = new StateStoreConfiguration();
  @Valid @NotNull private WatchConfiguration watch = new WatchConfiguration();
  @Valid @NotNull private OptimizingConfiguration optimizing = new OptimizingConfiguration();
  @Valid @NotNull private AuthConfiguration auth = new AuthConfiguration();
  @Valid @NotNull private MetricsConfiguration metrics = new MetricsConfiguration();
  @Valid @NotNull private PoliciesConfiguration policies = new PoliciesConfiguration();
  @Valid @NotNull private HaConfiguration ha = new HaConfiguration();

  /**
   * {@code maintenance:} keys of {@code MaintenanceSettings} (ADR 0010), e.g. {@code
   * expire-snapshots.max-age: 12h}; the policy's expire-snapshots and orphan-files kinds decide per
   * table whether and when they run.
   */
  @NotNull private Map<String, String> maintenance = new LinkedHashMap<>();

  /**
   * What the fields' own constraints cannot see, each naming its YAML key: a catalog's keys that do
   * not fit its type, catalog names used twice, unknown or invalid {@code maintenance:} keys, a
   * policy path that does not exist or does not parse, {@code ha:} settings that cannot work. Empty
   * when the file is consistent.
   */
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (int i = 0; i < catalogs.size(); i++) {
      CatalogConfiguration catalog = catalogs.get(i);
      if (catalog == null || catalog.getName() == null || catalog.getName().isBlank()) {
        continue; // reported by the field constraints
      }
      if (!names.add(catalog.getName())) {
        problems.add(
            "catalogs[" + i + "]: the name '" + catalog.getName() + "' is used more than once");
      }
      try {
        catalog.settings();
      } catch (RuntimeException e) {
        problems.add("catalogs[" + i + "]: " + e.getMessage());
      }
    }
    try {
      MaintenanceSettings.DEFAULTS.withOverrides(maintenance);
    } catch (InvalidMaintenanceSettingsException e) {
      problems.add("maintenance: " + e.getMessage());
    }
    String policyPath = policies.getPath();
    if (policyPath != null && !policyPath.isBlank()) {
      Path path = Path.of(policyPath);
      if (!Files.exists(path)) {
        problems.add("policies.path: " + policyPath + " does not exist");
      } else {
        try {
          PolicyRegistry.parse(path);
        } catch (RuntimeException e) {
          problems.add("policies.path: " + e.getMessage());
        }
      }
    }
    problems.addAll(ha.problems(stateStore.getUrl()));
    return problems;
  }

  @JsonProperty
  public HaConfiguration getHa() {
    return ha;
  }

  @JsonProperty
  @JsonSetter(nulls = Nulls.SKIP)
  public void setHa(HaConfiguration ha) {
    this.ha = ha;
  }

  @JsonProperty
  public Map<String, String> getMaintenance() {
    return maintenance;
  }

  @JsonProperty
  @JsonSetter(nulls = Nulls.SKIP)
  public void setMaintenance(Map<String, String> maintenance) {
    this.maintenance = maintenance;
  }

  @JsonProperty
  public PoliciesConfiguration getPolicies() {
    return policies;
  }

  @JsonProperty
  @JsonSetter(nulls = Nulls.SKIP)
  public void setPolicies(PoliciesConfiguration policies) {
    this.policies = policies;
  }

  @JsonProperty
  public MetricsConfiguration getMetrics() {
    return metrics;
  }

  @JsonProperty
  @JsonSetter(nulls = Nulls.SKIP)
  public void setMetrics(MetricsConfiguration metrics) {
    this.metrics = metrics;
  }

  @JsonProperty
  public OptimizingConfiguration getOptimizing() {
    return optimizing;
  }

  @JsonProperty
  @JsonSetter(nulls = Nulls.SKIP)
  public void setOptimizing(OptimizingConfiguration optimizing) {
    this.optimizing = optimizing;
  }

  @JsonProperty
  public AuthConfiguration getAuth() {
    return auth;
  }

  @JsonProperty
  @JsonSetter(nulls = Nulls.SKIP)
  public void setAuth(AuthConfiguration auth) {
    this.auth = auth;
  }

  @JsonProperty
  public List<CatalogConfiguration> getCatalogs() {
    return catalogs;
  }

  @JsonProperty
  @JsonSetter(nulls = Nulls.SKIP, contentNulls = Nulls.FAIL)
  public void setCatalogs(List<CatalogConfiguration> catalogs) {
    this.catalogs = catalogs;
  }

  @JsonProperty
  public TablesConfiguration getTables() {
    return tables;
  }

  @JsonProperty
  @JsonSetter(nulls = Nulls.SKIP)
  public void setTables(TablesConfiguration tables) {
    this.tables = tables;
  }

  @JsonProperty
  public StateStoreConfiguration getStateStore() {
    return stateStore;
  }

  @JsonProperty
  @JsonSetter(nulls = Nulls.SKIP)
  public void setStateStore(StateStoreConfiguration stateStore) {
    this.stateStore = stateStore;
  }

  @JsonProperty
  public WatchConfiguration getWatch() {
    return watch;
  }

  @JsonProperty
  @JsonSetter(nulls = Nulls.SKIP)
  public void setWatch(WatchConfiguration watch) {
    this.watch = watch;
  }
}
