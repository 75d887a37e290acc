/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves the job's {@code firn_ingest_*} metrics in Prometheus' text format on {@code
 * http://127.0.0.1:<metrics-port>/metrics} for a local run ({@code bin/firn ingest}; ADR 0008 §9).
 * On a cluster the cluster's own reporter serves them (deploy/flink); Flink's Prometheus reporter
 * is not available to a local run here, so Firn brings this small one.
 *
 * <p>Only the metrics Firn registers under the operator group {@code firn} are served, with the
 * names and labels of docs/metrics.md ({@code catalog}, {@code namespace}, {@code table}, {@code
 * reason}) plus {@code job_name} and {@code subtask_index}: the same series the cluster's kit gives
 * after its renaming. A port that is taken is logged and the job runs on without the endpoint.
 */
public final class LocalMetricsReporter implements MetricReporter {
  private static final Logger LOG = LoggerFactory.getLogger(LocalMetricsReporter.class);

  /** The reporter's name in Flink's configuration ({@code metrics.reporter.<name>.*}). */
  static final String NAME = "firn";

  /** Firn's labels (key/value groups below {@code firn}) and the two of Flink's that are kept. */
  private static final Set<String> LABELS =
      Set.of("job_name", "subtask_index", "catalog", "namespace", "table", "reason", "rule");

  /** Series by name, then by their label text ({@code {a="b",...}}), in a stable order. */
  private final Map<String, Map<String, Metric>> series = new ConcurrentHashMap<>();

  private @Nullable HttpServer server;

  /** Configures {@code flink} so that a local MiniCluster serves the metrics on {@code port}. */
  static void configure(Configuration flink, int port) {
    flink.setString("metrics.reporter." + NAME + ".factory.class", Factory.class.getName());
    flink.setString("metrics.reporter." + NAME + ".port", String.valueOf(port));
  }

  @Override
  public void open(MetricConfig config) {
    int port = config.getInteger("port", 9250);
    try {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
    } catch (IOException e) {
      LOG.warn(
          "Cannot serve the ingest metrics on 127.0.0.1:{} ({}); the job runs on without them."
              + " Set metrics-port in the ingest configuration to a free port (0: off)",
          port,
          e.toString());
      return;
    }
    server.createContext(
        "/metrics",
        exchange -> {
          byte[] body = scrape().getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4");
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
    LOG.info("Ingest metrics: http://127.0.0.1:{}/metrics", server.getAddress().getPort());
  }

  @Override
  public void close() {
    if (server != null) {
      server.stop(0);
    }
  }

  @Override
  public void notifyOfAddedMetric(Metric metric, String metricName, MetricGroup group) {
    String name = name(metricName, group);
    if (name != null) {
      series.computeIfAbsent(name, n -> new ConcurrentHashMap<>()).put(labels(group), metric);
    }
  }

  @Override
  public void notifyOfRemovedMetric(Metric metric, String metricName, MetricGroup group) {
    String name = name(metricName, group);
    if (name != null) {
      Map<String, Metric> byLabels = series.get(name);
      if (byLabels != null) {
        byLabels.remove(labels(group), metric);
      }
    }
  }

  /** The catalogue name of one of Firn's metrics ({@code firn_ingest_*}), or null for Flink's. */
  private static @Nullable String name(String metricName, MetricGroup group) {
    if (!metricName.startsWith("ingest_")) {
      return null;
    }
    for (String component : group.getScopeComponents()) {
      if (component.equals("firn")) {
        return "firn_" + metricName;
      }
    }
    return null;
  }

  private static String labels(MetricGroup group) {
    Map<String, String> labels = new TreeMap<>();
    for (Map.Entry<String, String> variable : group.getAllVariables().entrySet()) {
      String key = variable.getKey().replace("<", "").replace(">", "");
      if (LABELS.contains(key)) {
        labels.put(key, variable.getValue());
      }
    }
    StringBuilder text = new StringBuilder("{");
    for (Map.Entry<String, String> label : labels.entrySet()) {
      if (text.length() > 1) {
        text.append(',');
      }
      text.append(label.getKey()).append("=\"").append(escape(label.getValue())).append('"');
    }
    return text.append('}').toString();
  }

  private static String escape(String value) {
    return value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
  }

  /** Every series in Prometheus' text format, names sorted. */
  String scrape() {
    StringBuilder out = new StringBuilder();
    for (Map.Entry<String, Map<String, Metric>> named : new TreeMap<>(series).entrySet()) {
      Map<String, Metric> byLabels = new TreeMap<>(named.getValue());
      if (byLabels.isEmpty()) {
        continue;
      }
      boolean counter = byLabels.values().iterator().next() instanceof Counter;
      out.append("# TYPE ").append(named.getKey()).append(counter ? " counter\n" : " gauge\n");
      for (Map.Entry<String, Metric> one : byLabels.entrySet()) {
        Double value = value(one.getValue());
        if (value != null) {
          out.append(named.getKey()).append(one.getKey()).append(' ').append(value).append('\n');
        }
      }
    }
    return out.toString();
  }

  private static @Nullable Double value(Metric metric) {
    if (metric instanceof Counter counter) {
      return (double) counter.getCount();
    }
    if (metric instanceof Gauge<?> gauge) {
      Object value = gauge.getValue();
      if (value instanceof Number number) {
        return number.doubleValue();
      }
      if (value instanceof Boolean bool) {
        return bool ? 1.0 : 0.0;
      }
    }
    return null;
  }

  /** Flink's entry point ({@code metrics.reporter.firn.factory.class}). */
  public static final class Factory implements MetricReporterFactory {
    @Override
    public MetricReporter createMetricReporter(Properties properties) {
      return new LocalMetricsReporter();
    }
  }
}
