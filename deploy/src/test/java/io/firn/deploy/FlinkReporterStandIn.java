package io.firn.deploy;

import com.sun.net.httpserver.HttpServer;
import io.firn.deploy.MetricCatalogue.Metric;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * Serves the ingest metrics of {@code docs/metrics.md} the way Flink's Prometheus reporter names
 * them when the ingest job registers them as the catalogue says (operator group {@code firn}, one
 * key/value group per label, metric name without {@code firn_}): {@code
 * flink_taskmanager_job_task_operator_firn_catalog_namespace_table_ingest_records_total{catalog=…,
 * job_name=…, subtask_index=…}}, as gauges (Flink reports counters as gauges). Stands in for a task
 * manager until the ingest job exports them, to test the kit's renaming rule.
 */
final class FlinkReporterStandIn implements AutoCloseable {
  static final String PREFIX = "flink_taskmanager_job_task_operator_firn_";
  private static final Map<String, String> VALUES =
      Map.of("catalog", "lake", "namespace", "sales", "table", "t0", "reason", "missing_key");

  private final HttpServer http;

  private FlinkReporterStandIn(HttpServer http) {
    this.http = http;
  }

  static FlinkReporterStandIn start(List<Metric> ingest) {
    StringBuilder body = new StringBuilder();
    for (Metric metric : ingest) {
      String name = flinkName(metric);
      StringBuilder labels =
          new StringBuilder(
              "host=\"tm-1\",job_name=\"firn-ingest\",operator_name=\"DynamicIcebergSink\","
                  + "subtask_index=\"0\",task_name=\"sink\",tm_id=\"tm-1\"");
      for (String label : metric.labels()) {
        labels.append(',').append(label).append("=\"").append(VALUES.get(label)).append('"');
      }
      body.append("# HELP ").append(name).append(" ").append(metric.name()).append('\n');
      body.append("# TYPE ").append(name).append(" gauge\n");
      body.append(name).append('{').append(labels).append("} 3.0\n");
    }
    byte[] bytes = body.toString().getBytes(StandardCharsets.UTF_8);
    try {
      HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      http.createContext(
          "/metrics",
          exchange -> {
            exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4");
            exchange.sendResponseHeaders(200, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
              out.write(bytes);
            }
          });
      http.start();
      return new FlinkReporterStandIn(http);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** What Flink's reporter calls the catalogue's metric. */
  static String flinkName(Metric metric) {
    String keys = metric.labels().isEmpty() ? "" : String.join("_", metric.labels()) + "_";
    return PREFIX + keys + metric.name().substring("firn_".length());
  }

  String target() {
    return "127.0.0.1:" + http.getAddress().getPort();
  }

  @Override
  public void close() {
    http.stop(0);
  }
}
