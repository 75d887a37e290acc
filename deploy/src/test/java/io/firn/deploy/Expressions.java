/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** Every PromQL expression the kit ships: dashboard targets and variables, alert rules. */
final class Expressions {
  /** One expression and where it comes from (file and panel or rule). */
  record Expression(String source, String expr, boolean alert) {
    /** With Grafana's variables replaced by what Grafana sends for "All" and a 1m interval. */
    String promql() {
      return substitute(expr);
    }

    /** Metric names it reads: {@code firn_*} and {@code up}. */
    Set<String> metrics() {
      Set<String> names = new LinkedHashSet<>();
      Matcher m = SELECTOR.matcher(promql());
      while (m.find()) {
        names.add(m.group(1));
      }
      return names;
    }

    /** Vector selectors it contains, e.g. {@code firn_workers{group!="*"}}. */
    List<String> selectors() {
      List<String> selectors = new ArrayList<>();
      Matcher m = SELECTOR.matcher(promql());
      while (m.find()) {
        selectors.add(m.group(1) + (m.group(2) == null ? "" : m.group(2)));
      }
      return selectors;
    }
  }

  private static final Pattern SELECTOR =
      Pattern.compile("\\b(firn_[a-z0-9_]+|up(?=\\{))(\\{[^}]*\\})?");
  private static final Pattern LABEL_VALUES =
      Pattern.compile("^label_values\\((.+),\\s*[a-zA-Z_][a-zA-Z0-9_]*\\)$");

  /** What Grafana puts in for its built-in and the dashboards' variables. */
  private static final Map<String, String> VARIABLES =
      Map.of(
          "$__rate_interval", "1m",
          "$__interval", "1m",
          "$__range", "1h",
          "$catalog", ".*",
          "$namespace", ".*",
          "$table", ".*",
          "$group", ".*");

  private Expressions() {}

  static String substitute(String expr) {
    String out = expr;
    for (Map.Entry<String, String> v : VARIABLES.entrySet()) {
      out = out.replace(v.getKey(), v.getValue());
    }
    if (out.contains("$")) {
      throw new IllegalStateException("unknown Grafana variable in: " + expr);
    }
    return out;
  }

  static List<Path> dashboards() {
    try (Stream<Path> files = Files.list(Kit.deploy("grafana/dashboards"))) {
      return files.filter(f -> f.toString().endsWith(".json")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Targets of every panel (rows' nested panels too) and the selectors of query variables. */
  static List<Expression> dashboardExpressions() {
    List<Expression> all = new ArrayList<>();
    for (Path file : dashboards()) {
      JsonNode dashboard = Kit.readJson(file);
      String name = file.getFileName().toString();
      for (JsonNode panel : panels(dashboard)) {
        for (JsonNode target : panel.path("targets")) {
          all.add(
              new Expression(
                  name
                      + " panel '"
                      + panel.path("title").asText()
                      + "' "
                      + target.path("refId").asText(),
                  target.path("expr").asText(),
                  false));
        }
      }
      for (JsonNode variable : dashboard.path("templating").path("list")) {
        if (!variable.path("type").asText().equals("query")) {
          continue;
        }
        JsonNode query = variable.path("query");
        String text = query.isObject() ? query.path("query").asText() : query.asText();
        Matcher m = LABEL_VALUES.matcher(text.trim());
        String expr = m.matches() ? m.group(1).trim() : text;
        all.add(
            new Expression(
                name + " variable '" + variable.path("name").asText() + "'", expr, false));
      }
    }
    return all;
  }

  /** Panels, including those nested in collapsed rows; rows themselves excluded. */
  static List<JsonNode> panels(JsonNode dashboard) {
    List<JsonNode> panels = new ArrayList<>();
    for (JsonNode panel : dashboard.path("panels")) {
      if (panel.path("type").asText().equals("row")) {
        panel.path("panels").forEach(panels::add);
      } else {
        panels.add(panel);
      }
    }
    return panels;
  }

  static Path alertRules() {
    return Kit.deploy("prometheus/alerts.yml");
  }

  static List<Expression> alertExpressions() {
    List<Expression> all = new ArrayList<>();
    for (JsonNode group : Kit.readYaml(alertRules()).path("groups")) {
      for (JsonNode rule : group.path("rules")) {
        String name =
            rule.has("alert") ? rule.path("alert").asText() : rule.path("record").asText();
        all.add(new Expression("alerts.yml " + name, rule.path("expr").asText(), true));
      }
    }
    return all;
  }

  static List<Expression> all() {
    List<Expression> all = new ArrayList<>(dashboardExpressions());
    all.addAll(alertExpressions());
    return all;
  }
}
