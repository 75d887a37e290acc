/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.deploy.MetricCatalogue.Metric;
import io.firn.deploy.MetricCatalogue.Section;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@code docs/metrics.md} follows its own conventions and covers every metric the kit uses. */
class MetricCatalogueTest {
  // rule: a data-contract check's name, bounded by the checks the ingest configuration names.
  private static final Set<String> LABELS =
      Set.of(
          "catalog",
          "namespace",
          "table",
          "type",
          "result",
          "group",
          "window",
          "state",
          "reason",
          "rule");
  private static final Set<String> TYPES = Set.of("counter", "gauge", "summary", "histogram");
  private static final List<String> RESERVED_SUFFIXES =
      List.of("_created", "_info", "_bucket", "_count", "_sum");

  private final MetricCatalogue catalogue = MetricCatalogue.load();

  @Test
  void listsServerJvmAndIngestMetricsAndNoPendingServerMetric() {
    assertThat(catalogue.in(Section.SERVER)).hasSizeGreaterThanOrEqualTo(25);
    assertThat(catalogue.in(Section.JVM)).isNotEmpty();
    assertThat(catalogue.in(Section.SERVER_PENDING)).isEmpty();
    assertThat(catalogue.in(Section.INGEST)).isNotEmpty();
  }

  @Test
  void firnMetricsFollowTheNamingRules() {
    List<String> problems = new ArrayList<>();
    for (Metric m : catalogue.all()) {
      String at = "docs/metrics.md:" + m.line() + " " + m.name() + ": ";
      if (!TYPES.contains(m.type())) {
        problems.add(at + "type '" + m.type() + "' is not one of " + TYPES);
      }
      if (m.meaning().isBlank() || m.cardinality().isBlank() || m.unit().isBlank()) {
        problems.add(at + "meaning, unit and cardinality must be given");
      }
      if (m.section() == Section.JVM) {
        continue;
      }
      if (!m.name().matches("firn_[a-z][a-z0-9_]*")) {
        problems.add(at + "must match firn_[a-z][a-z0-9_]*");
      }
      if (m.type().equals("counter") != m.name().endsWith("_total")) {
        problems.add(at + "counters, and only counters, end in _total");
      }
      String stem = m.name().replaceAll("_total$", "").replaceAll("_max$", "");
      if (RESERVED_SUFFIXES.stream().anyMatch(stem::endsWith)) {
        problems.add(at + "ends in a suffix the Prometheus client strips");
      }
      if (stem.endsWith("_seconds") != m.unit().equals("seconds")) {
        problems.add(at + "unit seconds goes with the suffix _seconds, was '" + m.unit() + "'");
      }
      if (stem.endsWith("_bytes") != m.unit().equals("bytes")) {
        problems.add(at + "unit bytes goes with the suffix _bytes, was '" + m.unit() + "'");
      }
      for (String label : m.labels()) {
        if (!LABELS.contains(label)) {
          problems.add(at + "label '" + label + "' is not one of the bounded labels " + LABELS);
        }
      }
      if (m.labels().contains("table")
          && m.section() != Section.INGEST
          && !m.cardinality().contains("tableSeriesLimit")) {
        problems.add(at + "per-table series must state the metrics.tableSeriesLimit bound");
      }
    }
    assertThat(problems).isEmpty();
  }

  @Test
  void everyMetricADashboardOrAlertUsesIsCatalogued() {
    List<String> missing = new ArrayList<>();
    for (Expressions.Expression e : Expressions.all()) {
      for (String name : e.metrics()) {
        if (!name.equals("up") && catalogue.family(name).isEmpty()) {
          missing.add(e.source() + ": " + name);
        }
      }
    }
    assertThat(missing).as("metrics used but not in docs/metrics.md").isEmpty();
  }
}
