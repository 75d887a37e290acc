/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The Grafana dashboards are well formed (Grafana itself is not installable here): the six
 * dashboards exist, each has the Prometheus datasource variable and the catalog/namespace/table
 * variables, every panel queries that datasource, and every expression parses ({@code promtool
 * check rules} on a generated rules file).
 */
class DashboardsTest {
  private static final List<String> DASHBOARDS =
      List.of(
          "fleet-overview.json",
          "ingest-dead-letters.json",
          "optimizing-activity.json",
          "table-health.json",
          "windows-deferrals.json",
          "workers-queue.json");

  @Test
  void theSixDashboardsExistWithUniqueUidsAndTitles() {
    assertThat(Expressions.dashboards())
        .extracting(p -> p.getFileName().toString())
        .containsExactlyElementsOf(DASHBOARDS);
    Set<String> uids = new HashSet<>();
    Set<String> titles = new HashSet<>();
    for (Path file : Expressions.dashboards()) {
      JsonNode d = Kit.readJson(file);
      assertThat(uids.add(d.path("uid").asText(""))).as("unique uid in %s", file).isTrue();
      assertThat(titles.add(d.path("title").asText(""))).as("unique title in %s", file).isTrue();
      assertThat(d.path("uid").asText()).as("uid of %s", file).matches("firn-[a-z-]{1,35}");
      assertThat(d.path("description").asText()).as("description of %s", file).isNotBlank();
      assertThat(d.path("schemaVersion").asInt()).as("schemaVersion of %s", file).isPositive();
    }
  }

  @Test
  void everyDashboardHasTheDatasourceAndTableVariables() {
    for (Path file : Expressions.dashboards()) {
      JsonNode variables = Kit.readJson(file).path("templating").path("list");
      JsonNode datasource = variable(variables, "datasource");
      assertThat(datasource).as("datasource variable in %s", file).isNotNull();
      assertThat(datasource.path("type").asText()).isEqualTo("datasource");
      assertThat(datasource.path("query").asText()).isEqualTo("prometheus");
      for (String name : List.of("catalog", "namespace", "table")) {
        JsonNode v = variable(variables, name);
        assertThat(v).as("variable %s in %s", name, file).isNotNull();
        assertThat(v.path("type").asText()).as("%s in %s", name, file).isEqualTo("query");
        assertThat(v.path("datasource").path("uid").asText())
            .as("%s in %s", name, file)
            .isEqualTo("${datasource}");
        assertThat(v.path("includeAll").asBoolean()).as("%s in %s", name, file).isTrue();
        assertThat(v.path("allValue").asText()).as("%s in %s", name, file).isEqualTo(".*");
      }
    }
  }

  @Test
  void everyPanelQueriesTheDatasourceVariable() {
    List<String> problems = new ArrayList<>();
    for (Path file : Expressions.dashboards()) {
      List<JsonNode> panels = Expressions.panels(Kit.readJson(file));
      assertThat(panels).as("panels of %s", file).hasSizeGreaterThanOrEqualTo(4);
      Set<Integer> ids = new HashSet<>();
      for (JsonNode panel : panels) {
        String at = file.getFileName() + " panel '" + panel.path("title").asText() + "': ";
        if (panel.path("title").asText().isBlank()
            || panel.path("description").asText().isBlank()) {
          problems.add(at + "needs a title and a description");
        }
        if (!ids.add(panel.path("id").asInt())) {
          problems.add(at + "duplicate id");
        }
        if (!panel.path("gridPos").has("w") || !panel.path("gridPos").has("h")) {
          problems.add(at + "no gridPos");
        }
        if (!panel.path("datasource").path("uid").asText().equals("${datasource}")) {
          problems.add(at + "datasource must be ${datasource}");
        }
        JsonNode targets = panel.path("targets");
        if (!targets.isArray() || targets.isEmpty()) {
          problems.add(at + "no targets");
        }
        for (JsonNode target : targets) {
          if (target.path("expr").asText().isBlank() || target.path("refId").asText().isBlank()) {
            problems.add(at + "a target without expr or refId");
          }
          if (!target.path("datasource").path("uid").asText().equals("${datasource}")) {
            problems.add(at + "target datasource must be ${datasource}");
          }
        }
      }
    }
    assertThat(problems).isEmpty();
  }

  @Test
  void everyDashboardExpressionParses() throws IOException {
    List<Expressions.Expression> expressions = Expressions.dashboardExpressions();
    assertThat(expressions).hasSizeGreaterThan(40);
    Path dir = Kit.scratch("dashboard-expressions");
    StringBuilder rules = new StringBuilder("groups:\n  - name: dashboards\n    rules:\n");
    for (int i = 0; i < expressions.size(); i++) {
      rules
          .append("      - record: dashboard:expression_")
          .append(i)
          .append("\n        expr: ")
          .append(Kit.JSON.writeValueAsString(expressions.get(i).promql()))
          .append("\n");
    }
    Path file = dir.resolve("dashboard-expressions.yml");
    Files.writeString(file, rules);
    Promtool.Result result = Promtool.run(dir, null, "check", "rules", file.toString());
    if (!result.ok()) {
      // Name the failing expressions: check them one by one.
      List<String> failing = new ArrayList<>();
      for (Expressions.Expression e : expressions) {
        Path one = dir.resolve("one.yml");
        writeOne(one, e.promql());
        Promtool.Result r = Promtool.run(dir, null, "check", "rules", one.toString());
        if (!r.ok()) {
          failing.add(e.source() + ": " + e.expr() + "\n" + r.output());
        }
      }
      assertThat(failing).as("expressions promtool rejects").isEmpty();
    }
    assertThat(result.output()).contains("SUCCESS: " + expressions.size() + " rules found");
  }

  private static void writeOne(Path file, String expr) {
    try {
      Files.writeString(
          file,
          "groups:\n  - name: one\n    rules:\n      - record: dashboard:expression\n        expr: "
              + Kit.JSON.writeValueAsString(expr)
              + "\n");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static JsonNode variable(JsonNode variables, String name) {
    for (JsonNode v : variables) {
      if (v.path("name").asText().equals(name)) {
        return v;
      }
    }
    return null;
  }
}
