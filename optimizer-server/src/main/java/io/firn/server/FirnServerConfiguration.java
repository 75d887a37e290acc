package io.firn.server;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.core.Configuration;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The server's YAML file. Unknown keys are errors: Dropwizard's configuration factory fails on
 * unknown properties and names the key.
 */
public class FirnServerConfiguration extends Configuration {
  @Valid @NotNull private List<CatalogConfiguration> catalogs = new ArrayList<>();
  @Valid @NotNull private TablesConfiguration tables = new TablesConfiguration();
  @Valid @NotNull private StateStoreConfiguration stateStore = new StateStoreConfiguration();
  @Valid @NotNull private WatchConfiguration watch = new WatchConfiguration();
  @Valid @NotNull private OptimizingConfiguration optimizing = new OptimizingConfiguration();
  @Valid @NotNull private AuthConfiguration auth = new AuthConfiguration();
  @Valid @NotNull private MetricsConfiguration metrics = new MetricsConfiguration();
  @Valid @NotNull private PoliciesConfiguration policies = new PoliciesConfiguration();

  /**
   * {@code maintenance:} keys of {@code MaintenanceSettings} (ADR 0010), e.g. {@code
   * expire-snapshots.max-age: 12h}; the policy's expire-snapshots and orphan-files kinds decide per
   * table whether and when they run.
   */
  @NotNull private Map<String, String> maintenance = new LinkedHashMap<>();

  @JsonProperty
  public Map<String, String> getMaintenance() {
    return maintenance;
  }

  @JsonProperty
  public void setMaintenance(Map<String, String> maintenance) {
    this.maintenance = maintenance;
  }

  @JsonProperty
  public PoliciesConfiguration getPolicies() {
    return policies;
  }

  @JsonProperty
  public void setPolicies(PoliciesConfiguration policies) {
    this.policies = policies;
  }

  @JsonProperty
  public MetricsConfiguration getMetrics() {
    return metrics;
  }

  @JsonProperty
  public void setMetrics(MetricsConfiguration metrics) {
    this.metrics = metrics;
  }

  @JsonProperty
  public OptimizingConfiguration getOptimizing() {
    return optimizing;
  }

  @JsonProperty
  public void setOptimizing(OptimizingConfiguration optimizing) {
    this.optimizing = optimizing;
  }

  @JsonProperty
  public AuthConfiguration getAuth() {
    return auth;
  }

  @JsonProperty
  public void setAuth(AuthConfiguration auth) {
    this.auth = auth;
  }

  @JsonProperty
  public List<CatalogConfiguration> getCatalogs() {
    return catalogs;
  }

  @JsonProperty
  public void setCatalogs(List<CatalogConfiguration> catalogs) {
    this.catalogs = catalogs;
  }

  @JsonProperty
  public TablesConfiguration getTables() {
    return tables;
  }

  @JsonProperty
  public void setTables(TablesConfiguration tables) {
    this.tables = tables;
  }

  @JsonProperty
  public StateStoreConfiguration getStateStore() {
    return stateStore;
  }

  @JsonProperty
  public void setStateStore(StateStoreConfiguration stateStore) {
    this.stateStore = stateStore;
  }

  @JsonProperty
  public WatchConfiguration getWatch() {
    return watch;
  }

  @JsonProperty
  public void setWatch(WatchConfiguration watch) {
    this.watch = watch;
  }
}
