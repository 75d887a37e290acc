/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.cli;

import io.firn.core.catalog.CatalogConnectionException;
import io.firn.core.catalog.CatalogSettings;
import io.firn.core.catalog.Catalogs;
import io.firn.core.commit.CommitOutcome;
import io.firn.core.optimize.UnsupportedTableException;
import io.firn.core.plan.BinPackPlanner;
import io.firn.core.plan.OptimizingPlan;
import io.firn.core.plan.OptimizingType;
import io.firn.core.plan.PartitionPlan;
import io.firn.core.policy.InvalidPolicyException;
import io.firn.core.policy.OptimizingPolicy;
import io.firn.core.policy.PolicyFile;
import io.firn.core.policy.PolicyParser;
import io.firn.core.policy.Sizes;
import io.firn.core.table.HealthScore;
import io.firn.core.table.PartitionStatistics;
import io.firn.worker.executor.TaskFailedException;
import io.firn.worker.local.LocalOptimizer;
import io.firn.worker.local.OptimizeReport;
import java.io.PrintStream;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.jspecify.annotations.Nullable;

/**
 * {@code firn plan} and {@code firn optimize}: one table, in this JVM. Exit codes: 0 done (or
 * nothing to do), 1 bad input (usage, catalog, table), 2 a group did not commit (conflict or
 * failure; see the output), 3 an integrity check failed.
 */
public final class FirnCli {
  static final int OK = 0;
  static final int BAD_INPUT = 1;
  static final int NOT_COMMITTED = 2;
  static final int INTEGRITY = 3;

  private static final Set<String> OPTIONS =
      Set.of(
          "catalog-uri",
          "catalog-type",
          "catalog-name",
          "warehouse",
          "catalog-property",
          "table",
          "type",
          "threads",
          "policy");
  private static final Set<String> FLAGS = Set.of("help");

  private final PrintStream out;
  private final PrintStream err;

  /** A CLI printing to the given streams (public: other modules' tests run it in-process). */
  public FirnCli(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  public static void main(String[] args) {
    System.exit(new FirnCli(System.out, System.err).run(args));
  }

  /** Runs one command line and returns its exit code (ADR 0006). */
  public int run(String[] args) {
    if (args.length == 0 || args[0].equals("--help") || args[0].equals("help")) {
      out.println(usage());
      return args.length == 0 ? BAD_INPUT : OK;
    }
    String command = args[0];
    if (command.equals("policies")) {
      return policies(args);
    }
    if (command.equals("worker")) {
      return WorkerCommand.run(args, out, err);
    }
    if (command.equals("demo-console")) {
      return DemoConsole.run(args, out, err);
    }
    try {
      Arguments arguments = new Arguments(args, 1, OPTIONS, FLAGS);
      if (arguments.flag("help")) {
        out.println(usage());
        return OK;
      }
      return switch (command) {
        case "plan" -> plan(arguments);
        case "optimize" -> optimize(arguments);
        default -> {
          err.println("error: unknown command '" + command + "'\n" + usage());
          yield BAD_INPUT;
        }
      };
    } catch (Arguments.UsageException | InvalidPolicyException e) {
      err.println("error: " + e.getMessage());
      return BAD_INPUT;
    } catch (CatalogConnectionException | UnsupportedTableException e) {
      err.println("error: " + e.getMessage());
      return BAD_INPUT;
    } catch (TaskFailedException e) {
      err.println("error: " + e.getMessage());
      return NOT_COMMITTED;
    }
  }

  /** {@code firn policies check FILE...}: validates policy files offline. */
  private int policies(String[] args) {
    if (args.length < 3 || !args[1].equals("check")) {
      err.println("usage: firn policies check FILE [FILE...]");
      return BAD_INPUT;
    }
    int exit = OK;
    for (int i = 2; i < args.length; i++) {
      try {
        PolicyFile policy = PolicyParser.parse(java.nio.file.Path.of(args[i]));
        out.printf(
            Locale.ROOT,
            "%s: ok (%d windows, %d groups, %d rules)%n",
            args[i],
            policy.windows().size(),
            policy.groups().size(),
            policy.rules().size());
      } catch (InvalidPolicyException e) {
        err.println("error: " + e.getMessage());
        exit = BAD_INPUT;
      }
    }
    return exit;
  }

  private int plan(Arguments arguments) {
    Context context = context(arguments);
    OptimizingPlan plan =
        new LocalOptimizer(context.policy, new BinPackPlanner(), 1, s -> {})
            .plan(context.table, context.type, Instant.now());
    printPlan(plan, context.policy);
    return OK;
  }

  private int optimize(Arguments arguments) {
    Context context = context(arguments);
    int threads = arguments.intValue("threads", Runtime.getRuntime().availableProcessors());
    if (threads < 1) {
      throw new Arguments.UsageException("option --threads = '" + threads + "' must be at least 1");
    }
    LocalOptimizer optimizer =
        new LocalOptimizer(context.policy, new BinPackPlanner(), threads, out::println);
    OptimizeReport report = optimizer.optimize(context.table, context.type, Instant.now());
    if (!report.plan().hasWork()) {
      printPlan(report.plan(), context.policy);
      return OK;
    }
    long committed = report.outcomes().stream().filter(CommitOutcome::committed).count();
    out.printf(
        Locale.ROOT,
        "%s: %d of %d commit group(s) committed; %,d rows read, %,d written; %.1f s%n",
        context.table.name(),
        committed,
        report.outcomes().size(),
        report.rowsRead(),
        report.rowsWritten(),
        report.nanos() / 1e9);
    if (report.outcomes().stream()
        .anyMatch(o -> o.result() == CommitOutcome.Result.INTEGRITY_FAILED)) {
      err.println("error: an integrity check failed; see above");
      return INTEGRITY;
    }
    if (!report.succeeded()) {
      err.println(
          "error: some groups were not committed; see above. The table is consistent; run again later.");
      return NOT_COMMITTED;
    }
    return OK;
  }

  private void printPlan(OptimizingPlan plan, OptimizingPolicy policy) {
    if (plan.note() != null) {
      out.printf(
          Locale.ROOT,
          "table %s at snapshot %d: nothing to do: %s%n",
          plan.table(),
          plan.snapshotId(),
          plan.note());
      return;
    }
    PartitionStatistics total = PartitionStatistics.EMPTY;
    for (PartitionPlan p : plan.partitions()) {
      total = total.plus(p.statistics());
    }
    out.printf(
        Locale.ROOT,
        "table %s at snapshot %d: %d data files (%s), %d equality-delete and %d position-delete files,"
            + " health %d/100%n",
        plan.table(),
        plan.snapshotId(),
        total.dataFiles(),
        Sizes.format(total.dataBytes()),
        total.equalityDeleteFiles(),
        total.positionDeleteFiles(),
        HealthScore.of(total, policy, Math.max(1, plan.partitions().size())));
    if (plan.partitions().isEmpty()) {
      out.println("nothing to do: the table has no data files");
      return;
    }
    out.printf(
        Locale.ROOT,
        "%-28s %-6s %8s %10s %8s %8s %9s  %s%n",
        "partition",
        "type",
        "files in",
        "bytes in",
        "convert",
        "deletes-",
        "files out",
        "reason");
    for (PartitionPlan p : plan.partitions()) {
      out.printf(
          Locale.ROOT,
          "%-28s %-6s %8d %10s %8d %8d %9d  %s%n",
          p.key(),
          p.type().label(),
          p.rewriteFiles(),
          Sizes.format(p.rewriteBytes()),
          p.convertFiles(),
          p.deletesToRemove().size(),
          p.estimatedOutputFiles(),
          p.reason());
    }
    if (!plan.sharedDeletesToRemove().isEmpty()) {
      out.println(
          plan.sharedDeletesToRemove().size() + " delete file(s) spanning partitions to remove");
    }
    if (!plan.hasWork()) {
      out.println("nothing to do: no partition is due (reasons above)");
    }
  }

  /**
   * @param type the type {@code --type} forces; null when the policy's triggers decide
   */
  private record Context(Table table, OptimizingPolicy policy, @Nullable OptimizingType type) {}

  private Context context(Arguments arguments) {
    String name = arguments.get("catalog-name", "firn");
    CatalogSettings settings =
        CatalogSettings.of(
            name,
            arguments.get("catalog-type"),
            arguments.get("catalog-uri"),
            arguments.get("warehouse"),
            arguments.pairs("catalog-property"));
    Catalog catalog = Catalogs.connect(settings);
    Table table = Catalogs.load(catalog, arguments.require("table"));
    Map<String, String> overrides = new LinkedHashMap<>(arguments.pairs("policy"));
    OptimizingPolicy policy = OptimizingPolicy.DEFAULTS.withOverrides(overrides);
    String type = arguments.get("type");
    try {
      return new Context(table, policy, type == null ? null : OptimizingType.parse(type));
    } catch (IllegalArgumentException e) {
      throw new Arguments.UsageException("option --type: " + e.getMessage());
    }
  }

  static String usage() {
    return String.join(
        "\n",
        "usage: firn plan|optimize --table NS.TABLE [catalog options] [options]",
        "       firn policies check FILE [FILE...]",
        "       firn worker local --server URL [--slots N] [--group G] (token: FIRN_WORKER_TOKEN)",
        "",
        "  plan       print, per partition, what optimizing is due and why (changes nothing)",
        "  optimize   run it in this JVM and commit",
        "",
        "catalog options:",
        "  --catalog-uri URI          jdbc:sqlite:/path/catalog.db, jdbc:postgresql://host/db,"
            + " https://rest, thrift://metastore:9083 (none for glue)",
        "  --warehouse LOCATION       warehouse path (required for jdbc, hadoop)",
        "  --catalog-type TYPE        "
            + String.join(" | ", CatalogSettings.TYPES)
            + " (custom: --catalog-property catalog-impl=CLASS; default: from the uri, hadoop"
            + " without one)",
        "  --catalog-property K=V     any Iceberg catalog property (repeatable), e.g. jdbc.user=...,"
            + " client.region=eu-west-1 (glue)",
        "options:",
        "  --type minor|major|full    force a type (default: the policy's triggers decide)",
        "  --threads N                rewrite threads (optimize; default: cores)",
        "  --policy K=V               override a policy threshold (repeatable), e.g. target-size=256MiB;",
        "                             keys: "
            + String.join(", ", new java.util.TreeSet<>(OptimizingPolicy.KEYS)));
  }
}
