/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.deploy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/** {@code docs/metrics.md}, parsed: one {@link Metric} per table row naming a metric. */
final class MetricCatalogue {
  /** Where a row stands, from the {@code ## } heading above it. */
  enum Section {
    /** Exported by the server today. */
    SERVER,
    /** The server's JVM binders. */
    JVM,
    /** Used by a shipped rule or dashboard; the server does not export it yet. */
    SERVER_PENDING,
    /** The ingest job's metrics, exported through Flink's metric reporter. */
    INGEST;

    /** Its metrics are not exported yet. */
    boolean pending() {
      return this == SERVER_PENDING;
    }
  }

  /** One row. {@code labels} is empty for "—". */
  record Metric(
      String name,
      String type,
      String unit,
      Set<String> labels,
      String meaning,
      String cardinality,
      Section section,
      int line) {
    /** Registered by the server at first use, so a young server's scrape may lack it. */
    boolean lazy() {
      return meaning.contains("(appears after the first");
    }
  }

  private final Map<String, Metric> metrics;

  private MetricCatalogue(Map<String, Metric> metrics) {
    this.metrics = metrics;
  }

  static Path file() {
    return Kit.repositoryDir().resolve("docs/metrics.md");
  }

  static MetricCatalogue load() {
    Map<String, Metric> metrics = new LinkedHashMap<>();
    List<String> lines = Kit.read(file()).lines().toList();
    Section section = null;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.startsWith("## ")) {
        section = section(line.substring(3).trim());
        continue;
      }
      if (!line.startsWith("| `") || section == null) {
        continue;
      }
      String[] cells = line.substring(1, line.length() - 1).split("\\|", -1);
      if (cells.length != 6) {
        throw new IllegalStateException(
            "docs/metrics.md:%d: a metric row needs 6 cells (name, type, unit, labels, meaning,"
                    .formatted(i + 1)
                + " cardinality), has "
                + cells.length
                + ": "
                + line);
      }
      String name = cells[0].trim().replace("`", "");
      String labels = cells[3].trim();
      Set<String> labelSet = new TreeSet<>();
      if (!labels.equals("—")) {
        Arrays.stream(labels.split(",")).map(String::trim).forEach(labelSet::add);
      }
      Metric metric =
          new Metric(
              name,
              cells[1].trim(),
              cells[2].trim(),
              labelSet,
              cells[4].trim(),
              cells[5].trim(),
              section,
              i + 1);
      if (metrics.put(name, metric) != null) {
        throw new IllegalStateException(
            "docs/metrics.md:%d: %s is listed twice".formatted(i + 1, name));
      }
    }
    return new MetricCatalogue(metrics);
  }

  /** The section a {@code ## } heading opens; null for sections without metric rows of ours. */
  private static Section section(String heading) {
    if (heading.startsWith("Server: JVM")) {
      return Section.JVM;
    }
    if (heading.startsWith("Server: pending")) {
      return Section.SERVER_PENDING;
    }
    if (heading.startsWith("Server")) {
      return Section.SERVER;
    }
    if (heading.startsWith("Ingest (Flink metric reporter)")) {
      return Section.INGEST;
    }
    return null;
  }

  List<Metric> all() {
    return new ArrayList<>(metrics.values());
  }

  List<Metric> in(Section section) {
    return metrics.values().stream().filter(m -> m.section() == section).toList();
  }

  /**
   * The catalogue row a series name belongs to: the name itself, or a summary's or histogram's
   * {@code _count}/{@code _sum}/{@code _bucket} series.
   */
  Optional<Metric> family(String seriesName) {
    Metric direct = metrics.get(seriesName);
    if (direct != null) {
      return Optional.of(direct);
    }
    for (String suffix : List.of("_count", "_sum", "_bucket")) {
      if (seriesName.endsWith(suffix)) {
        Metric base = metrics.get(seriesName.substring(0, seriesName.length() - suffix.length()));
        if (base != null && (base.type().equals("summary") || base.type().equals("histogram"))) {
          return Optional.of(base);
        }
      }
    }
    return Optional.empty();
  }
}
