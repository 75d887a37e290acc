/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.constraints.Min;

/**
 * {@code metrics:} bounds on what {@code /metrics} exports. Per-table series (health, file counts,
 * optimizing lag) exist for at most {@code tableSeriesLimit} tables, the first ones seen; {@code
 * firn_table_series_capped} counts the tables left out.
 */
public class MetricsConfiguration {
  @Min(0)
  private int tableSeriesLimit = 1000;

  @JsonProperty
  public int getTableSeriesLimit() {
    return tableSeriesLimit;
  }

  @JsonProperty
  public void setTableSeriesLimit(int tableSeriesLimit) {
    this.tableSeriesLimit = tableSeriesLimit;
  }
}
