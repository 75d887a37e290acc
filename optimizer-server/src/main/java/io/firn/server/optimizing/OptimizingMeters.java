/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import io.firn.core.plan.OptimizingType;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Every meter of the optimizing side, in one place (docs/metrics.md lists them): counters the
 * service increments, and gauges that read its state through {@link Readings}. Per-table series
 * stop at {@code metrics.tableSeriesLimit} tables so label cardinality stays bounded.
 */
final class OptimizingMeters {
  /** What the gauges read; each reading takes the service lock itself. */
  interface Readings {
    double pendingTasks();

    double leasedTasks();

    double tablesIn(TableStatus status);

    double tablesWithoutSeries();

    double workers(String group);

    double slots(String group);

    double backlog(String group);

    double maxDelaySeconds(TableState table);
  }

  final Counter conflicts;
  final Counter integrityFailures;
  final Counter bytesRead;
  final Counter bytesWritten;
  final Counter maxDelayOverrides;
  final Timer taskDuration;
  private final Map<String, Counter> deferred;
  private final MeterRegistry registry;
  private final Readings readings;
  private final Clock clock;
  private final int tableSeriesLimit;
  private final Set<String> groups = new HashSet<>();
  private int tableSeries;

  OptimizingMeters(MeterRegistry registry, Readings readings, Clock clock, int tableSeriesLimit) {
    this.registry = registry;
    this.readings = readings;
    this.clock = clock;
    this.tableSeriesLimit = tableSeriesLimit;
    this.deferred =
        List.of("window", "group", "disabled").stream()
            .collect(
                Collectors.toMap(
                    r -> r,
                    r ->
                        Counter.builder("firn.work.deferred")
                            .description(
                                "Scheduling rounds in which a due table waited, by reason (window"
                                    + " closed, group full, kind disabled)")
                            .tag("reason", r)
                            .register(registry)));
    this.maxDelayOverrides =
        Counter.builder("firn.max.delay.overrides")
            .description(
                "Minor optimizing started outside its windows because a critical table waited"
                    + " longer than max-delay")
            .register(registry);
    this.conflicts =
        Counter.builder("firn.commit.conflicts")
            .description("Commit groups that conflicted with a concurrent writer")
            .register(registry);
    this.integrityFailures =
        Counter.builder("firn.integrity.check.failures")
            .description("Row-count or history checks that failed around a commit (an alert)")
            .register(registry);
    this.bytesRead =
        Counter.builder("firn.optimizing.read")
            .baseUnit("bytes")
            .description("Data-file bytes read by finished optimizing tasks")
            .register(registry);
    this.bytesWritten =
        Counter.builder("firn.optimizing.written")
            .baseUnit("bytes")
            .description("Bytes of new files written by finished optimizing tasks")
            .register(registry);
    this.taskDuration =
        Timer.builder("firn.optimizing.task.duration")
            .description("Wall time of optimizing task attempts handed in by workers")
            .register(registry);
    Gauge.builder("firn.queue.tasks", readings, Readings::pendingTasks)
        .description("Optimizing tasks waiting for a worker (pending) or running (leased)")
        .tag("state", "pending")
        .register(registry);
    Gauge.builder("firn.queue.tasks", readings, Readings::leasedTasks)
        .description("Optimizing tasks waiting for a worker (pending) or running (leased)")
        .tag("state", "leased")
        .register(registry);
    for (TableStatus status : TableStatus.values()) {
      Gauge.builder("firn.tables", readings, r -> r.tablesIn(status))
          .description("Watched tables by optimizing state")
          .tag("state", status.label())
          .register(registry);
    }
    Gauge.builder("firn.table.series.capped", readings, Readings::tablesWithoutSeries)
        .description(
            "Watched tables without per-table series because metrics.tableSeriesLimit was reached")
        .register(registry);
    for (String result : List.of("succeeded", "failed", "expired", "rejected")) {
      tasks(result);
    }
    for (OptimizingType type : List.of(OptimizingType.MINOR, OptimizingType.MAJOR)) {
      for (ProcessStatus status : ProcessStatus.values()) {
        if (status != ProcessStatus.RUNNING) {
          process(type, status);
        }
      }
    }
  }

  /** A due table waited this round: window closed, group full or kind disabled. */
  void deferred(String reason) {
    Counter counter = deferred.get(reason);
    if (counter == null) {
      throw new IllegalArgumentException(
          "no deferral reason '" + reason + "': one of " + deferred.keySet());
    }
    counter.increment();
  }

  /** Task attempts by result (succeeded, failed, expired, rejected, refused). */
  Counter tasks(String result) {
    return Counter.builder("firn.optimizing.tasks")
        .description("Optimizing task attempts by result")
        .tag("result", result)
        .register(registry);
  }

  Counter process(OptimizingType type, ProcessStatus status) {
    return Counter.builder("firn.optimizing.processes")
        .description("Finished optimizing processes by type and result")
        .tag("type", type.name().toLowerCase(Locale.ROOT))
        .tag("result", status.label())
        .register(registry);
  }

  /** Series per optimizer group: workers, slots, backlog. Once per group name. */
  void group(String group) {
    if (!groups.add(group)) {
      return;
    }
    Gauge.builder("firn.workers", readings, r -> r.workers(group))
        .description("Registered workers that were seen within three lease times, per group")
        .tag("group", group)
        .register(registry);
    Gauge.builder("firn.worker.slots", readings, r -> r.slots(group))
        .description("Task slots of the registered workers, per group")
        .tag("group", group)
        .register(registry);
    Gauge.builder("firn.group.backlog.tasks", readings, r -> r.backlog(group))
        .description("Optimizing tasks of the group waiting for a worker")
        .tag("group", group)
        .register(registry);
  }

  /** Per-table series, up to the limit. Under the service lock. */
  void table(TableState table) {
    if (tableSeries >= tableSeriesLimit) {
      return;
    }
    tableSeries++;
    List<Tag> tags =
        List.of(
            Tag.of("catalog", table.catalog),
            Tag.of("namespace", table.namespace),
            Tag.of("table", table.table));
    tableGauge(
        table,
        "firn.table.health",
        "Table health 0-100 from cheap signals (100: nothing to optimize)",
        tags,
        t -> t.health);
    tableGauge(
        table,
        "firn.table.data.files",
        "Live data files of the table at its last evaluation",
        tags,
        t -> t.dataFiles);
    String deletes = "Live delete files of the table at its last evaluation, by type";
    List<Tag> equality = new java.util.ArrayList<>(tags);
    equality.add(Tag.of("type", "equality"));
    tableGauge(table, "firn.table.delete.files", deletes, equality, t -> t.equalityDeleteFiles);
    List<Tag> position = new java.util.ArrayList<>(tags);
    position.add(Tag.of("type", "position"));
    tableGauge(table, "firn.table.delete.files", deletes, position, t -> t.positionDeleteFiles);
    // The size figures of Amoro's table_summary_* (TableSummary), from the same evaluation.
    tableGauge(
        table,
        "firn.table.total.size",
        "bytes",
        "Bytes of the table's live data and delete files at its last evaluation",
        tags,
        t -> t.summary.totalBytes());
    tableGauge(
        table,
        "firn.table.data.size",
        "bytes",
        "Bytes of the table's live data files at its last evaluation",
        tags,
        t -> t.summary.dataBytes());
    tableGauge(
        table,
        "firn.table.average.data.file.size",
        "bytes",
        "Average size of the table's live data files at its last evaluation",
        tags,
        t -> t.summary.averageDataFileBytes());
    tableGauge(
        table,
        "firn.table.records",
        null,
        "Records in the table's live data files at its last evaluation, before deletes apply",
        tags,
        t -> t.summary.records());
    tableGauge(
        table,
        "firn.table.snapshots",
        null,
        "Snapshots in the table's metadata at its last evaluation",
        tags,
        t -> t.summary.snapshots());
    tableGauge(
        table,
        "firn.table.manifests",
        null,
        "Manifests of the table's current snapshot at its last evaluation",
        tags,
        t -> t.summary.manifests());
    table.meters.add(
        Gauge.builder("firn.table.policy.max.delay", table, readings::maxDelaySeconds)
            .description(
                "The table's effective policy max-delay (how long it may stay due before minor"
                    + " work runs outside its windows); +Inf when off")
            .baseUnit("seconds")
            .tags(tags)
            .register(registry));
    table.meters.add(
        Gauge.builder("firn.table.optimizing.lag", table, t -> t.lagSeconds(clock.instant()))
            .description("How long the table has been due for optimizing (0 when not due)")
            .baseUnit("seconds")
            .tags(tags)
            .register(registry));
  }

  private void tableGauge(
      TableState table,
      String name,
      String description,
      List<Tag> tags,
      ToDoubleFunction<TableState> value) {
    tableGauge(table, name, null, description, tags, value);
  }

  private void tableGauge(
      TableState table,
      String name,
      @Nullable String baseUnit,
      String description,
      List<Tag> tags,
      ToDoubleFunction<TableState> value) {
    table.meters.add(
        Gauge.builder(name, table, value)
            .baseUnit(baseUnit)
            .description(description)
            .tags(tags)
            .register(registry));
  }

  /** A table is no longer watched: its series go, and free a place under the limit. */
  void forget(TableState table) {
    table.meters.forEach(registry::remove);
    if (!table.meters.isEmpty()) {
      tableSeries--;
    }
    table.meters.clear();
  }
}
