/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.deploy;

import io.firn.core.catalog.CatalogSettings;
import io.firn.ingest.IngestEvent;
import io.firn.ingest.IngestJob;
import io.firn.ingest.IngestSettings;
import io.firn.ingest.SampleEvents;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The real ingest job ({@link IngestJob#addSink}, Firn's routing operator in front of Iceberg's
 * dynamic sink) on a local Flink MiniCluster in this JVM, with Flink's Prometheus reporter on a
 * free port, writing to an SQLite JDBC catalog under {@code target/}. Its input never ends: the
 * built-in sample events with the bad ones early ({@link SampleEvents} of {@value #SAMPLE} events:
 * a malformed one at index 4, one without a key at 6, a field of {@code user_events} that appears
 * at 7), then more of the same until {@link #close()} cancels the job. So the operator's metrics
 * stay registered (Flink drops a job's metrics when it finishes), and dead letters, table creations
 * and a schema change have happened within the first second.
 */
final class IngestJobWithPrometheusReporter implements AutoCloseable {
  /** Job name: the {@code job_name} label on every series of the job. */
  static final String JOB_NAME = "firn-ingest";

  /** The count {@link SampleEvents} places its bad events and its new field by. */
  private static final long SAMPLE = 12;

  private final JobClient job;
  private final int reporterPort;

  private IngestJobWithPrometheusReporter(JobClient job, int reporterPort) {
    this.job = job;
    this.reporterPort = reporterPort;
  }

  static IngestJobWithPrometheusReporter start(double eventsPerSecond) throws Exception {
    int port = PrometheusServer.freePort();
    Configuration config = new Configuration();
    // As on a cluster whose flink-conf enables the reporter (deploy/prometheus/prometheus.yml).
    config.setString(
        "metrics.reporter.prom.factory.class",
        "org.apache.flink.metrics.prometheus.PrometheusReporterFactory");
    config.setString("metrics.reporter.prom.port", Integer.toString(port));
    config.setString("rest.bind-port", "0");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(1, config);
    env.enableCheckpointing(1000);
    Path dir = Kit.scratch("ingest");
    CatalogSettings catalog =
        new CatalogSettings(
            "lake",
            "jdbc",
            "jdbc:sqlite:" + dir.resolve("catalog.db"),
            dir.resolve("warehouse").toString(),
            Map.of());
    DataGeneratorSource<IngestEvent> source =
        new DataGeneratorSource<>(
            new SampleEvents(SAMPLE),
            Long.MAX_VALUE,
            RateLimiterStrategy.perSecond(eventsPerSecond),
            TypeInformation.of(IngestEvent.class));
    IngestJob.addSink(
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "firn-sample-events"),
        IngestJob.catalogLoader(catalog),
        // Every catalogued ingest series must appear: user_events is an append table partitioned
        // by loyalty_tier once that field arrives (a spec change), and order_events has a contract
        // its growing amounts break and appends its new keys (one router: parallelism 1).
        IngestSettings.defaults("sales")
            .withTables(
                java.util.List.of(
                    new io.firn.ingest.TableRule(
                        "user_events",
                        java.util.List.of("id"),
                        java.util.List.of(io.firn.ingest.PartitionCandidate.parse("loyalty_tier")),
                        null,
                        false),
                    new io.firn.ingest.TableRule(
                            "order_events",
                            java.util.List.of("id"),
                            java.util.List.of(),
                            null,
                            true,
                            java.util.List.of(),
                            io.firn.ingest.SchemaChanges.EVOLVE,
                            java.util.List.of(
                                new io.firn.ingest.ContractCheck(
                                    "amount_below_50",
                                    "amount",
                                    io.firn.ingest.ContractCheck.Kind.MAX,
                                    java.math.BigDecimal.valueOf(50),
                                    null,
                                    null)))
                        .withInserts(io.firn.ingest.Inserts.APPEND_NEW_KEYS))),
        Map.of());
    return new IngestJobWithPrometheusReporter(env.executeAsync(JOB_NAME), port);
  }

  /** The reporter's scrape target, {@code host:port}. */
  String target() {
    return "127.0.0.1:" + reporterPort;
  }

  String metricsUrl() {
    return "http://" + target() + "/metrics";
  }

  /** Whether the job is still running (or about to). */
  boolean running() throws Exception {
    return !job.getJobStatus().get(10, TimeUnit.SECONDS).isTerminalState();
  }

  /** Cancels the job; the MiniCluster (and the reporter) stops with it. */
  @Override
  public void close() throws Exception {
    job.cancel().get(30, TimeUnit.SECONDS);
    job.getJobExecutionResult().handle((r, e) -> null).get(30, TimeUnit.SECONDS);
  }
}
