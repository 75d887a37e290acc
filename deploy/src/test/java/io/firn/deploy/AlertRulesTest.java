/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@code deploy/prometheus}: the alert rules pass {@code promtool check rules} and their unit tests
 * ({@code promtool test rules alerts_test.yml}), which show every alert both firing and not firing;
 * the scrape config passes {@code promtool check config}.
 */
class AlertRulesTest {
  /** Issue 7, item 3, in order. */
  private static final List<String> REQUIRED =
      List.of(
          "FirnTableHealthCritical",
          "FirnOptimizingLagBeyondPolicy",
          "FirnCommitConflictsRising",
          "FirnIntegrityCheckFailed",
          "FirnNoWorkerAlive",
          "FirnBacklogNotDraining",
          "FirnDeadLettersRising",
          "FirnIngestCommitLag",
          // Issue 15: an alert rule on schema changes.
          "FirnIngestSchemaChanged");

  @Test
  void alertRulesPassPromtoolCheckRules() {
    Promtool.Result result =
        Promtool.run(Kit.deploy("prometheus"), null, "check", "rules", "alerts.yml");
    assertThat(result.ok()).as(result.output()).isTrue();
  }

  @Test
  void alertRuleUnitTestsPass() {
    Promtool.Result result =
        Promtool.run(Kit.deploy("prometheus"), null, "test", "rules", "alerts_test.yml");
    assertThat(result.ok()).as(result.output()).isTrue();
    assertThat(result.output()).contains("SUCCESS");
  }

  @Test
  void scrapeConfigPassesPromtoolCheckConfig() {
    Promtool.Result result =
        Promtool.run(Kit.deploy("prometheus"), null, "check", "config", "prometheus.yml");
    assertThat(result.ok()).as(result.output()).isTrue();
    JsonNode config = Kit.readYaml(Kit.deploy("prometheus/prometheus.yml"));
    assertThat(config.path("rule_files").toString()).contains("alerts.yml");
    assertThat(config.path("scrape_configs").findValuesAsText("job_name"))
        .contains("firn-server", "flink");
  }

  @Test
  void everyRequiredAlertExistsWithSeverityAndAnnotations() {
    List<String> names = new ArrayList<>();
    for (JsonNode group : Kit.readYaml(Expressions.alertRules()).path("groups")) {
      for (JsonNode rule : group.path("rules")) {
        String name = rule.path("alert").asText();
        names.add(name);
        assertThat(rule.path("labels").path("severity").asText())
            .as("severity of %s", name)
            .isIn("critical", "warning", "info");
        assertThat(rule.path("annotations").path("summary").asText())
            .as("summary of %s", name)
            .isNotBlank();
        assertThat(rule.path("annotations").path("description").asText())
            .as("description of %s", name)
            .isNotBlank();
      }
    }
    assertThat(names).containsAll(REQUIRED).doesNotHaveDuplicates();
  }

  @Test
  void everyAlertIsTestedFiringAndNotFiring() {
    Set<String> firing = new HashSet<>();
    Set<String> silent = new HashSet<>();
    for (JsonNode test : Kit.readYaml(Kit.deploy("prometheus/alerts_test.yml")).path("tests")) {
      for (JsonNode check : test.path("alert_rule_test")) {
        String name = check.path("alertname").asText();
        JsonNode expected = check.path("exp_alerts");
        (expected.isArray() && !expected.isEmpty() ? firing : silent).add(name);
      }
    }
    for (Expressions.Expression rule : Expressions.alertExpressions()) {
      String name = rule.source().substring("alerts.yml ".length());
      assertThat(firing).as("a unit test where %s fires", name).contains(name);
      assertThat(silent).as("a unit test where %s does not fire", name).contains(name);
    }
  }
}
