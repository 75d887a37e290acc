/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import io.firn.core.maintenance.DanglingDeleteRemoval;
import io.firn.core.maintenance.DanglingDeleteReport;
import io.firn.core.maintenance.MaintenanceSettings;
import io.firn.core.maintenance.ManifestRewrite;
import io.firn.core.maintenance.ManifestRewriteReport;
import io.firn.core.maintenance.OrphanCleanupReport;
import io.firn.core.maintenance.OrphanFileCleanup;
import io.firn.core.maintenance.SharedTableLocationException;
import io.firn.core.maintenance.SnapshotExpiry;
import io.firn.core.maintenance.SnapshotExpiryReport;
import io.firn.core.policy.PolicyFile;
import io.firn.core.policy.PolicyFile.EffectivePolicy;
import io.firn.core.policy.PolicyFile.WorkKind;
import io.firn.server.ServerCatalogs;
import io.firn.server.policy.PolicyDecisions;
import io.firn.server.policy.WindowCalendar;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.Table;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Table maintenance as the server runs it (ADR 0010): snapshot expiry and orphan-file cleanup,
 * enabled, timed and windowed per table by the policy's {@code expire-snapshots} and {@code
 * orphan-files} kinds (interval falls back to the {@code maintenance:} settings), dangling delete
 * removal and manifest rewriting by the settings alone. One operation per table at a time, never
 * next to a process of the same table (the caller guarantees it). Stateless apart from its meters.
 */
final class MaintenanceRunner {
  private static final Logger LOG = LoggerFactory.getLogger(MaintenanceRunner.class);

  /** The operations, with their labels (metric values, process types). */
  enum Operation {
    EXPIRE_SNAPSHOTS("expire-snapshots"),
    ORPHAN_FILES("orphan-files"),
    DANGLING_DELETES("dangling-deletes"),
    REWRITE_MANIFESTS("rewrite-manifests");

    final String label;

    Operation(String label) {
      this.label = label;
    }
  }

  /**
   * What one run did.
   *
   * @param status succeeded, failed (or partial for a dry run that found work: never)
   * @param message one line for the process history
   * @param report the operation's own report, or null when it threw
   */
  record Outcome(ProcessStatus status, String message, @Nullable Object report) {}

  private final ServerCatalogs catalogs;
  private final MaintenanceSettings settings;
  private final MeterRegistry registry;

  MaintenanceRunner(ServerCatalogs catalogs, MaintenanceSettings settings, MeterRegistry registry) {
    this.catalogs = catalogs;
    this.settings = settings;
    this.registry = registry;
    for (Operation operation : Operation.values()) {
      for (ProcessStatus result : List.of(ProcessStatus.SUCCEEDED, ProcessStatus.FAILED)) {
        runs(operation, result);
      }
      if (operation != Operation.REWRITE_MANIFESTS) {
        // A manifest rewrite removes no file from the table (the replaced manifests go with
        // snapshot expiry): no series that would stay 0.
        filesDeleted(operation);
      }
      duration(operation);
    }
    expired();
  }

  private Timer duration(Operation operation) {
    return Timer.builder("firn.maintenance.duration")
        .description("Wall time of table maintenance runs")
        .tag("type", operation.label)
        .register(registry);
  }

  private Counter expired() {
    return Counter.builder("firn.maintenance.snapshots.expired")
        .description("Snapshots expired by table maintenance")
        .register(registry);
  }

  /**
   * The operation due now for a table, or null.
   *
   * @param lastRuns when each operation last ran on the table
   */
  @Nullable Operation due(
      EffectivePolicy policy,
      WindowCalendar calendar,
      Instant now,
      Map<Operation, Instant> lastRuns) {
    for (Operation operation : Operation.values()) {
      boolean enabled;
      Duration interval;
      boolean windowOpen = true;
      switch (operation) {
        case EXPIRE_SNAPSHOTS, ORPHAN_FILES -> {
          WorkKind kind =
              operation == Operation.EXPIRE_SNAPSHOTS
                  ? WorkKind.EXPIRE_SNAPSHOTS
                  : WorkKind.ORPHAN_FILES;
          PolicyFile.WorkPolicy work = policy.work(kind);
          MaintenanceSettings.Schedule schedule =
              operation == Operation.EXPIRE_SNAPSHOTS
                  ? settings.expireSnapshots()
                  : settings.orphanFiles();
          enabled = work.enabled();
          interval = work.interval() != null ? work.interval() : schedule.interval();
          windowOpen =
              PolicyDecisions.mayStart(
                      policy, kind, calendar, now, PolicyDecisions.TableState.HEALTHY)
                  .mayStart();
        }
        case DANGLING_DELETES -> {
          enabled = settings.danglingDeletes().enabled();
          interval = settings.danglingDeletes().interval();
        }
        default -> {
          enabled = settings.rewriteManifests().enabled();
          interval = settings.rewriteManifests().interval();
        }
      }
      Instant last = lastRuns.get(operation);
      if (enabled && windowOpen && (last == null || !last.plus(interval).isAfter(now))) {
        return operation;
      }
    }
    return null;
  }

  /**
   * Runs an operation on a table. Never throws: failures are the outcome.
   *
   * @param otherTables name → location of the other tables of the same catalog (orphan cleanup)
   * @param processId the run's id in the process history, recorded in the snapshot summary of a
   *     commit it makes ({@code firn.process-id}), so a snapshot leads to its run
   */
  Outcome run(
      Operation operation,
      String catalog,
      String namespace,
      String name,
      Map<String, String> otherTables,
      Instant now,
      String processId) {
    long started = System.nanoTime();
    String qualified = catalog + "." + namespace + "." + name;
    Outcome outcome;
    try {
      Table table = catalogs.load(catalog, namespace, name);
      outcome =
          switch (operation) {
            case EXPIRE_SNAPSHOTS -> expire(table, now);
            case ORPHAN_FILES -> orphans(table, otherTables, now);
            case DANGLING_DELETES -> dangling(table, processId);
            case REWRITE_MANIFESTS -> manifests(table, processId);
          };
    } catch (SharedTableLocationException e) {
      // Its message says which tables share the location.
      outcome = new Outcome(ProcessStatus.FAILED, String.valueOf(e.getMessage()), null);
    } catch (RuntimeException e) {
      LOG.warn("{}: {} failed", qualified, operation.label, e);
      outcome = new Outcome(ProcessStatus.FAILED, operation.label + " failed: " + e, null);
    }
    runs(operation, outcome.status()).increment();
    duration(operation).record(Duration.ofNanos(System.nanoTime() - started));
    LOG.info(
        "{}: {} {}: {}", qualified, operation.label, outcome.status().label(), outcome.message());
    return outcome;
  }

  private Outcome expire(Table table, Instant now) {
    SnapshotExpiryReport report =
        new SnapshotExpiry(line -> LOG.debug("{}", line)).expire(table, settings.expiry(), now);
    filesDeleted(Operation.EXPIRE_SNAPSHOTS).increment(report.filesDeleted());
    expired().increment(report.expiredCount());
    return new Outcome(
        ProcessStatus.SUCCEEDED,
        String.format(
            Locale.ROOT,
            "%s%d of %d snapshot(s) expired, %d file(s) deleted, %d kept for a reason",
            report.dryRun() ? "dry run: " : "",
            report.expiredCount(),
            report.snapshotsBefore(),
            report.filesDeleted(),
            report.kept().size()),
        report);
  }

  private Outcome orphans(Table table, Map<String, String> otherTables, Instant now) {
    OrphanCleanupReport report =
        new OrphanFileCleanup(line -> LOG.debug("{}", line))
            .clean(table, settings.orphans(), otherTables, now);
    filesDeleted(Operation.ORPHAN_FILES).increment(report.deletedCount());
    return new Outcome(
        report.failedDeletes().isEmpty() ? ProcessStatus.SUCCEEDED : ProcessStatus.FAILED,
        String.format(
            Locale.ROOT,
            "%s%d file(s) listed, %d orphan(s) (%d bytes), %d deleted, %d kept as too young,"
                + " %d Flink file(s) kept%s",
            report.dryRun() ? "dry run: " : "",
            report.filesListed(),
            report.orphanCount(),
            report.orphanBytes(),
            report.deletedCount(),
            report.keptTooYoung(),
            report.keptFlinkFiles(),
            report.warnings().isEmpty() ? "" : "; " + String.join("; ", report.warnings())),
        report);
  }

  private Outcome dangling(Table table, String processId) {
    DanglingDeleteReport report =
        new DanglingDeleteRemoval(line -> LOG.debug("{}", line))
            .remove(table, settings.dangling(), processId);
    filesDeleted(Operation.DANGLING_DELETES).increment(report.removedCount());
    boolean ok = report.result() != DanglingDeleteReport.Result.UNKNOWN;
    return new Outcome(
        ok ? ProcessStatus.SUCCEEDED : ProcessStatus.FAILED,
        report.result().name().toLowerCase(Locale.ROOT)
            + ": "
            + report.equalityDeletesRemoved()
            + " equality and "
            + report.positionDeletesRemoved()
            + " position delete file(s) removed; "
            + report.message(),
        report);
  }

  private Outcome manifests(Table table, String processId) {
    ManifestRewriteReport report =
        new ManifestRewrite(line -> LOG.debug("{}", line))
            .rewrite(table, settings.manifests(), processId);
    boolean ok = report.result() != ManifestRewriteReport.Result.UNKNOWN;
    return new Outcome(
        ok ? ProcessStatus.SUCCEEDED : ProcessStatus.FAILED,
        report.result().name().toLowerCase(Locale.ROOT) + ": " + report.message(),
        report);
  }

  private Counter runs(Operation operation, ProcessStatus result) {
    return Counter.builder("firn.maintenance.runs")
        .description("Table maintenance runs by operation and result")
        .tag("type", operation.label)
        .tag("result", result.label())
        .register(registry);
  }

  private Counter filesDeleted(Operation operation) {
    return Counter.builder("firn.maintenance.files.removed")
        .description(
            "Files removed by table maintenance (expired snapshots' files, orphans, dangling"
                + " delete files from the table)")
        .tag("type", operation.label)
        .register(registry);
  }
}
