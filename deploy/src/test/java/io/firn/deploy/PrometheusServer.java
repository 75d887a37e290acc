/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import io.firn.testkit.Http;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real Prometheus server ({@code /usr/bin/prometheus}) on a free port, with its config and
 * storage in a directory under {@code target/}. Stopped (and killed if it does not stop) on close.
 */
final class PrometheusServer implements AutoCloseable {
  private final Process process;
  private final int port;
  final Path dir;

  private PrometheusServer(Process process, int port, Path dir) {
    this.process = process;
    this.port = port;
    this.dir = dir;
  }

  /** A static scrape job: {@code job_name}, {@code metrics_path} /metrics, one target. */
  static Map<String, Object> job(String name, String target) {
    Map<String, Object> job = new LinkedHashMap<>();
    job.put("job_name", name);
    job.put("metrics_path", "/metrics");
    job.put("static_configs", List.of(Map.of("targets", List.of(target))));
    return job;
  }

  /**
   * Starts Prometheus with these scrape jobs (each scraped every second) and rule files (evaluated
   * every second).
   */
  static PrometheusServer start(List<?> scrapeConfigs, List<Path> ruleFiles) {
    Path dir = Kit.scratch("prometheus");
    int port = freePort();
    Map<String, Object> config = new LinkedHashMap<>();
    config.put("global", Map.of("scrape_interval", "1s", "evaluation_interval", "1s"));
    config.put("rule_files", ruleFiles.stream().map(f -> f.toAbsolutePath().toString()).toList());
    config.put("scrape_configs", scrapeConfigs);
    try {
      Files.writeString(dir.resolve("prometheus.yml"), Kit.YAML.writeValueAsString(config));
      Promtool.Result check =
          Promtool.run(dir, null, "check", "config", dir.resolve("prometheus.yml").toString());
      if (!check.ok()) {
        throw new IllegalStateException("generated config is invalid: " + check.output());
      }
      List<String> command = new ArrayList<>();
      command.add(Promtool.executable("prometheus").toString());
      command.add("--config.file=" + dir.resolve("prometheus.yml"));
      command.add("--storage.tsdb.path=" + dir.resolve("data"));
      command.add("--web.listen-address=127.0.0.1:" + port);
      command.add("--log.level=warn");
      Process process =
          new ProcessBuilder(command)
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("prometheus.log").toFile())
              .start();
      return new PrometheusServer(process, port, dir);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot start prometheus (install the Debian package 'prometheus')", e);
    }
  }

  String url() {
    return "http://127.0.0.1:" + port;
  }

  boolean ready() {
    try {
      return process.isAlive() && Http.get(url() + "/-/ready").status() == 200;
    } catch (UncheckedIOException e) {
      return false;
    }
  }

  boolean alive() {
    return process.isAlive();
  }

  String log() {
    try {
      return Files.readString(dir.resolve("prometheus.log"));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  /** {@code /api/v1/query} at the current time; the whole JSON answer. */
  JsonNode query(String expression) {
    return api("/api/v1/query?query=" + URLEncoder.encode(expression, StandardCharsets.UTF_8));
  }

  JsonNode api(String pathAndQuery) {
    Http.Answer answer = Http.get(url() + pathAndQuery);
    try {
      return Kit.JSON.readTree(answer.body());
    } catch (IOException e) {
      throw new UncheckedIOException("not JSON from " + pathAndQuery + ": " + answer.body(), e);
    }
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(20, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(20, TimeUnit.SECONDS);
    }
  }

  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
