/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.firn.deploy.MetricCatalogue.Metric;
import io.firn.deploy.MetricCatalogue.Section;
import io.firn.testkit.Http;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A real Prometheus ({@code /usr/bin/prometheus}) scrapes a demo-sized Firn server (four generated
 * CDC tables, the in-process worker, the shipped default policy) while it optimizes, and the real
 * ingest job running on a Flink MiniCluster in this JVM with Flink's Prometheus reporter (through
 * the kit's own {@code flink} scrape job and its renaming rule), with the kit's alert rules loaded.
 * Then:
 *
 * <ul>
 *   <li>the server's scrape has exactly the {@code firn_} families of {@code docs/metrics.md}
 *       (types and labels as listed) and passes {@code promtool check metrics}; the Flink
 *       reporter's scrape has no {@code promtool} errors; its lint complaints are Flink's camelCase
 *       names and the {@code _total} of the ingest counters, which Flink reports as gauges;
 *   <li>every metric of the catalogue's Ingest section arrives renamed from its Flink name to its
 *       {@code firn_ingest_*} name, with the catalogued labels besides Flink's own, and no Flink
 *       name of the {@code firn} operator group is left;
 *   <li>every dashboard and alert expression evaluates through {@code /api/v1/query}; dashboard
 *       expressions return series, and so does every selector of an alert expression (an alert's
 *       own result is empty while nothing is wrong). Expressions reading metrics of the catalogue's
 *       <em>Server: pending</em> section must evaluate without error and are reported, in {@code
 *       target/pending-expressions.txt}, instead of failing (there are none at the moment);
 *   <li>Prometheus loaded and evaluates every alert rule without error.
 * </ul>
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PrometheusScrapesRunningServerIT {
  private static final String JOB = "firn-server";
  private static final Pattern SAMPLE =
      Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)\\})?\\s");
  private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"");

  /** Flink's reporter's name for the metrics of the operator group {@code firn}. */
  private static final String FLINK_FIRN_PREFIX = "flink_taskmanager_job_task_operator_firn_";

  private final MetricCatalogue catalogue = MetricCatalogue.load();
  private DemoServer server;
  private PrometheusServer prometheus;
  private IngestJobWithPrometheusReporter ingest;
  private String scrape;
  private String flinkScrape;

  @BeforeAll
  void startServerAndPrometheus() throws Exception {
    // First, so that the MiniCluster starts while the server does.
    ingest = IngestJobWithPrometheusReporter.start(20);
    server = DemoServer.start(4);
    // The kit's own "flink" job (its renaming rule), pointed at the job's Prometheus reporter.
    ObjectNode flinkJob = null;
    for (JsonNode job :
        Kit.readYaml(Kit.deploy("prometheus/prometheus.yml")).path("scrape_configs")) {
      if (job.path("job_name").asText().equals("flink")) {
        flinkJob = (ObjectNode) job;
      }
    }
    assertThat(flinkJob).as("the flink job of deploy/prometheus/prometheus.yml").isNotNull();
    flinkJob.set(
        "static_configs",
        Kit.JSON.valueToTree(List.of(Map.of("targets", List.of(ingest.target())))));
    prometheus =
        PrometheusServer.start(
            List.of(PrometheusServer.job(JOB, "127.0.0.1:" + server.adminPort()), flinkJob),
            List.of(Expressions.alertRules()));
    await()
        .atMost(30, TimeUnit.SECONDS)
        .failFast("prometheus exited", () -> !prometheus.alive())
        .until(prometheus::ready);
    // Optimizing happened: a process succeeded and its counters moved.
    await()
        .atMost(2, TimeUnit.MINUTES)
        .pollInterval(Duration.ofMillis(500))
        .until(() -> succeededMinorProcesses(Http.get(server.metricsUrl()).body()) > 0);
    // Enough scrapes for rate() over the dashboards' 1m interval, and after the optimizing.
    await()
        .atMost(1, TimeUnit.MINUTES)
        .pollInterval(Duration.ofSeconds(1))
        .failFast("prometheus exited", () -> !prometheus.alive())
        .until(
            () ->
                prometheus
                        .query("count_over_time(up{job=\"" + JOB + "\"}[1m]) >= 8")
                        .path("data")
                        .path("result")
                        .size()
                    == 1);
    // The ingest job's series, the per-table ones included (registered at a table's first
    // record, the schema change one at the first new column), scraped often enough for rate().
    await()
        .atMost(1, TimeUnit.MINUTES)
        .pollInterval(Duration.ofSeconds(1))
        .failFast("prometheus exited", () -> !prometheus.alive())
        .failFast("the ingest job stopped", () -> !ingest.running())
        .until(
            () ->
                prometheus
                        .query("count_over_time(firn_ingest_schema_changes_total[1m]) >= 8")
                        .path("data")
                        .path("result")
                        .size()
                    >= 1);
    scrape = Http.get(server.metricsUrl()).body();
    Files.writeString(Kit.deployDir().resolve("target/scrape.txt"), scrape);
    flinkScrape = Http.get(ingest.metricsUrl()).body();
    Files.writeString(Kit.deployDir().resolve("target/flink-scrape.txt"), flinkScrape);
  }

  private static double succeededMinorProcesses(String scrape) {
    Matcher m =
        Pattern.compile(
                "^firn_optimizing_processes_total\\{result=\"succeeded\",type=\"minor\"} (\\S+)$",
                Pattern.MULTILINE)
            .matcher(scrape);
    return m.find() ? Double.parseDouble(m.group(1)) : 0;
  }

  @AfterAll
  void stop() throws Exception {
    try {
      if (prometheus != null) {
        prometheus.close();
      }
    } finally {
      try {
        if (ingest != null) {
          ingest.close();
        }
      } finally {
        if (server != null) {
          server.close();
        }
      }
    }
  }

  @Test
  void scrapeHasExactlyTheCataloguedFirnFamiliesWithTheirTypesAndLabels() {
    Map<String, String> types = new TreeMap<>();
    Map<String, Set<String>> labels = new TreeMap<>();
    for (String line : scrape.lines().toList()) {
      if (line.startsWith("# TYPE ")) {
        String[] parts = line.split(" ");
        types.put(parts[2], parts[3]);
        continue;
      }
      Matcher m = SAMPLE.matcher(line);
      if (line.startsWith("#") || !m.find()) {
        continue;
      }
      String family =
          catalogue
              .family(m.group(1))
              .map(Metric::name)
              .orElse(m.group(1).replaceAll("_(count|sum|bucket)$", ""));
      Set<String> names = labels.computeIfAbsent(family, f -> new TreeSet<>());
      if (m.group(2) != null) {
        Matcher l = LABEL.matcher(m.group(2));
        while (l.find()) {
          if (!l.group(1).equals("quantile") && !l.group(1).equals("le")) {
            names.add(l.group(1));
          }
        }
      }
    }
    Set<String> scrapedFirn = new TreeSet<>();
    types.keySet().stream().filter(n -> n.startsWith("firn_")).forEach(scrapedFirn::add);
    Set<String> cataloguedServer = new TreeSet<>();
    catalogue.in(Section.SERVER).stream()
        .filter(m -> !m.lazy())
        .forEach(m -> cataloguedServer.add(m.name()));

    List<String> problems = new ArrayList<>();
    for (String name : scrapedFirn) {
      Metric metric = catalogue.family(name).orElse(null);
      if (metric == null) {
        problems.add(name + " is exported but not in docs/metrics.md");
      } else if (metric.section() != Section.SERVER) {
        problems.add(
            name
                + " is exported but docs/metrics.md lists it under "
                + metric.section()
                + ": move its row to the Server section");
      }
    }
    for (String name : cataloguedServer) {
      if (!scrapedFirn.contains(name)) {
        problems.add(name + " is in docs/metrics.md (Server) but not exported");
      }
    }
    for (String name : types.keySet()) {
      if (!name.startsWith("firn_") && catalogue.family(name).isEmpty()) {
        problems.add(name + " (" + types.get(name) + ") is exported but not in docs/metrics.md");
      }
    }
    for (Map.Entry<String, String> t : types.entrySet()) {
      catalogue
          .family(t.getKey())
          .filter(m -> m.name().equals(t.getKey()))
          .ifPresent(
              m -> {
                if (!m.type().equals(t.getValue())) {
                  problems.add(
                      m.name() + " is a " + t.getValue() + ", docs/metrics.md says " + m.type());
                }
                Set<String> seen = labels.getOrDefault(m.name(), Set.of());
                if (!seen.isEmpty() && !seen.equals(m.labels())) {
                  problems.add(
                      m.name() + " has labels " + seen + ", docs/metrics.md says " + m.labels());
                }
              });
    }
    assertThat(problems).isEmpty();
  }

  @Test
  void scrapePassesPromtoolCheckMetrics() {
    Promtool.Result result = Promtool.run(Kit.deployDir(), scrape, "check", "metrics");
    assertThat(result.ok()).as(result.output()).isTrue();
  }

  @Test
  void everyDashboardAndAlertExpressionEvaluatesAndReturnsSeries() throws Exception {
    List<String> failures = new ArrayList<>();
    List<String> pending = new ArrayList<>();
    List<Expressions.Expression> all = Expressions.all();
    for (Expressions.Expression e : all) {
      JsonNode answer = prometheus.query(e.promql());
      if (!answer.path("status").asText().equals("success")) {
        failures.add(e.source() + ": " + answer.path("error").asText() + " in " + e.promql());
        continue;
      }
      Set<String> waitingFor = new TreeSet<>();
      for (String name : e.metrics()) {
        Metric metric = catalogue.family(name).orElse(null);
        if (metric != null && metric.section().pending()) {
          waitingFor.add(metric.name());
        }
      }
      if (!waitingFor.isEmpty()) {
        // Expected gap, reported: the server does not export these yet.
        pending.add(e.source() + " waits for " + waitingFor);
        continue;
      }
      if (e.alert()) {
        for (String selector : e.selectors()) {
          if (prometheus.query(selector).path("data").path("result").isEmpty()) {
            failures.add(e.source() + ": selector " + selector + " returns no series");
          }
        }
      } else if (answer.path("data").path("result").isEmpty()) {
        failures.add(e.source() + ": no series for " + e.promql());
      }
    }
    Files.writeString(
        Kit.deployDir().resolve("target/pending-expressions.txt"), String.join("\n", pending));
    System.out.println(
        "Expressions pending on metrics not exported yet ("
            + pending.size()
            + "):\n  "
            + String.join("\n  ", pending));
    assertThat(failures).isEmpty();
    assertThat(all.size() - pending.size()).as("expressions checked with data").isGreaterThan(40);
    // docs/metrics.md lists no pending server metric at the moment; the ingest expressions (the
    // ingest dashboard's firn_ingest_* panels, FirnDeadLettersRising, FirnIngestSchemaChanged,
    // FirnIngestCommitLag) read the running ingest job.
    assertThat(pending).isEmpty();
    assertThat(all)
        .filteredOn(e -> e.metrics().stream().anyMatch(m -> m.startsWith("firn_ingest_")))
        .extracting(Expressions.Expression::source)
        .hasSize(9)
        .anySatisfy(p -> assertThat(p).startsWith("alerts.yml FirnDeadLettersRising"))
        .anySatisfy(p -> assertThat(p).startsWith("alerts.yml FirnIngestSchemaChanged"))
        .anySatisfy(p -> assertThat(p).startsWith("alerts.yml FirnIngestCommitLag"));
  }

  @Test
  void kitRenamesTheIngestJobsFlinkReporterNamesToTheCatalogueNames() {
    // Flink's own labels on an operator's metrics (and Prometheus' job and instance).
    Set<String> flinkLabels =
        labelNames(
            prometheus.query(
                // Flink's reporter replaces what is not [a-zA-Z0-9:_] in label values by "_".
                "flink_taskmanager_job_task_operator_numRecordsIn{operator_name=\"firn_route\"}"));
    assertThat(flinkLabels).contains("job_name", "subtask_index", "job", "instance");
    List<String> problems = new ArrayList<>();
    for (Metric metric : catalogue.in(Section.INGEST)) {
      JsonNode answer = prometheus.query(metric.name());
      Set<String> labels = labelNames(answer);
      labels.removeAll(flinkLabels);
      if (answer.path("data").path("result").isEmpty()) {
        problems.add(metric.name() + " has no series");
      } else if (!labels.equals(metric.labels())) {
        problems.add(
            metric.name()
                + " has labels "
                + labels
                + " besides Flink's, docs/metrics.md says "
                + metric.labels());
      }
    }
    assertThat(problems).isEmpty();
    assertThat(prometheus.query("firn_ingest_commit_lag_seconds").path("data").path("result"))
        .as("one series per routing subtask; label values as Flink's reporter filters them")
        .singleElement()
        .satisfies(
            series ->
                assertThat(series.path("metric").path("job_name").asText())
                    .isEqualTo(IngestJobWithPrometheusReporter.JOB_NAME.replace('-', '_')));
    assertThat(
            prometheus
                .query("{__name__=~\"" + FLINK_FIRN_PREFIX + ".*\"}")
                .path("data")
                .path("result"))
        .as("Flink names of the firn operator group left after renaming")
        .isEmpty();
    // The job's input had one malformed event and one without a key; every reason has a series.
    JsonNode deadLetters =
        prometheus.query("sum by (reason) (firn_ingest_dead_letters_total)").path("data");
    Map<String, Double> byReason = new TreeMap<>();
    for (JsonNode series : deadLetters.path("result")) {
      byReason.put(
          series.path("metric").path("reason").asText(),
          Double.parseDouble(series.path("value").get(1).asText()));
    }
    assertThat(byReason)
        .hasSize(io.firn.ingest.DeadLetterReason.values().length)
        .containsEntry("unparseable_json", 1.0)
        .containsEntry("missing_key", 1.0)
        .containsEntry("incompatible_type", 0.0);
  }

  /** The label names of every series in a query answer. */
  private static Set<String> labelNames(JsonNode answer) {
    Set<String> labels = new TreeSet<>();
    for (JsonNode series : answer.path("data").path("result")) {
      series.path("metric").fieldNames().forEachRemaining(labels::add);
    }
    labels.remove("__name__");
    return labels;
  }

  @Test
  void flinkReporterScrapeHasNoPromtoolErrorsAndOnlyTheLintOfCountersReportedAsGauges()
      throws Exception {
    Promtool.Result result = Promtool.run(Kit.deployDir(), flinkScrape, "check", "metrics");
    Files.writeString(Kit.deployDir().resolve("target/flink-scrape-promtool.txt"), result.output());
    // Exit code 1 is a parse error, 3 lint problems only. Flink's own names are camelCase
    // (numRecordsIn, …): its lint, not ours. Ours: Flink reports every counter as a gauge, so
    // promtool objects to the "_total" of the catalogue's counters (renamed, they are used with
    // rate() and increase() as counters).
    assertThat(result.exitCode()).as(result.output()).isIn(0, 3);
    List<String> ours =
        result.output().lines().filter(l -> l.startsWith(FLINK_FIRN_PREFIX)).sorted().toList();
    List<String> counters =
        catalogue.in(Section.INGEST).stream()
            .filter(m -> m.type().equals("counter"))
            .map(m -> m.name().substring("firn_".length()))
            .toList();
    assertThat(ours)
        .hasSize(counters.size())
        .allSatisfy(
            l -> assertThat(l).endsWith(" non-counter metrics should not have \"_total\" suffix"))
        .allSatisfy(
            l -> assertThat(counters).anySatisfy(c -> assertThat(l).contains("_" + c + " ")));
    assertThat(result.output().lines().filter(l -> !l.startsWith(FLINK_FIRN_PREFIX)))
        .as("lint of Flink's own metrics")
        .allSatisfy(
            l ->
                assertThat(l)
                    .endsWith(" metric names should be written in 'snake_case' not 'camelCase'"));
  }

  @Test
  void prometheusEvaluatesEveryAlertRuleWithoutError() {
    int rules = Expressions.alertExpressions().size();
    await()
        .atMost(30, TimeUnit.SECONDS)
        .untilAsserted(
            () -> {
              JsonNode groups = prometheus.api("/api/v1/rules").path("data").path("groups");
              List<String> health = new ArrayList<>();
              for (JsonNode group : groups) {
                for (JsonNode rule : group.path("rules")) {
                  health.add(
                      rule.path("name").asText()
                          + "="
                          + rule.path("health").asText()
                          + rule.path("lastError").asText(""));
                }
              }
              assertThat(health).hasSize(rules).allSatisfy(h -> assertThat(h).endsWith("=ok"));
            });
  }
}
