/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 15: a local run ({@code bin/firn ingest}) serves its {@code firn_ingest_*} metrics. A local
 * MiniCluster configured as {@link IngestJob#main} configures it runs the generator (every 10th
 * event malformed); its endpoint is scraped over HTTP while it runs.
 */
class LocalMetricsIT {
  @TempDir Path dir;

  @Test
  void aLocalRunServesItsIngestMetricsWithTheCatalogueNamesAndLabels() throws Exception {
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    IngestConfig config =
        IngestConfigParser.parse(
            String.join(
                "\n",
                "source: {type: generator, rate: 200, bad-every: 10}",
                "catalog:",
                "  uri: 'jdbc:sqlite:" + dir.resolve("catalog.db") + "'",
                "  warehouse: '" + dir.resolve("warehouse") + "'",
                "checkpoint-interval: 500ms",
                "metrics-port: " + port,
                "tables:",
                "  - match: user_events",
                "    contract: [{name: has_vip, field: vip, required: true}]",
                ""),
            "local-metrics-it.yaml");
    assertThat(config.metricsPort()).isEqualTo(port);
    Configuration local = new Configuration();
    LocalMetricsReporter.configure(local, config.metricsPort());
    StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(1, local);
    IngestJob.build(env, config);
    JobClient job = env.executeAsync("local-metrics-it");
    HttpClient http = HttpClient.newHttpClient();
    HttpRequest scrape =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build();
    try {
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(500))
          .ignoreExceptions()
          .untilAsserted(
              () -> {
                HttpResponse<String> response =
                    http.send(scrape, HttpResponse.BodyHandlers.ofString());
                assertThat(response.statusCode()).isEqualTo(200);
                Map<String, Double> series = parse(response.body());
                assertThat(response.body())
                    .contains("# TYPE firn_ingest_records_total counter")
                    .contains("# TYPE firn_ingest_commit_lag_seconds gauge")
                    .doesNotContain("flink_");
                assertThat(series)
                    .hasEntrySatisfying(
                        "firn_ingest_records_total{catalog=\"firn\",job_name=\"local-metrics-it\","
                            + "namespace=\"events\",subtask_index=\"0\",table=\"order_events\"}",
                        value -> assertThat(value).isGreaterThan(0))
                    .hasEntrySatisfying(
                        "firn_ingest_dead_letters_total{job_name=\"local-metrics-it\","
                            + "reason=\"unparseable_json\",subtask_index=\"0\"}",
                        value -> assertThat(value).isGreaterThan(0))
                    .hasEntrySatisfying(
                        "firn_ingest_contract_violations_total{job_name=\"local-metrics-it\","
                            + "rule=\"has_vip\",subtask_index=\"0\",table=\"user_events\"}",
                        value -> assertThat(value).isGreaterThan(0))
                    .hasEntrySatisfying(
                        "firn_ingest_dead_letters_total{job_name=\"local-metrics-it\","
                            + "reason=\"contract_violation\",subtask_index=\"0\"}",
                        value -> assertThat(value).isGreaterThan(0))
                    .hasEntrySatisfying(
                        "firn_ingest_table_creations_total{catalog=\"firn\","
                            + "job_name=\"local-metrics-it\",subtask_index=\"0\"}",
                        value -> assertThat(value).isGreaterThanOrEqualTo(2));
              });
    } finally {
      job.cancel().get();
      // The temporary directory goes when the test ends: no writer may still add files to it. A
      // local job's result completes once its MiniCluster has shut down (here: exceptionally).
      job.getJobExecutionResult()
          .handle((result, failure) -> result)
          .get(30, java.util.concurrent.TimeUnit.SECONDS);
    }
  }

  private static final Pattern LINE = Pattern.compile("^(firn_[a-z_]+\\{[^}]*\\}) (\\S+)$");

  /** Each series line as {@code name{labels}} → value; comment lines must be TYPE lines. */
  private static Map<String, Double> parse(String body) {
    Map<String, Double> series = new LinkedHashMap<>();
    for (String line : body.split("\n")) {
      if (line.startsWith("#")) {
        assertThat(line).matches("# TYPE firn_ingest_[a-z_]+ (counter|gauge)");
        continue;
      }
      Matcher matcher = LINE.matcher(line);
      assertThat(matcher.matches()).as("a series line: " + line).isTrue();
      series.put(matcher.group(1), Double.parseDouble(matcher.group(2)));
    }
    return series;
  }
}
