/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.jspecify.annotations.Nullable;

/**
 * {@code bin/firn dead-letters [--config FILE] list|replay [options]}: what the ingest job refused,
 * and a replay of it under the configuration in force now (ADR 0008 §12). Exit codes as the other
 * commands (ADR 0006): 0 done, 1 bad input, 2 the replay failed (run it again to finish it).
 */
public final class DeadLetterCommand {
  static final String USAGE =
      """
      usage: bin/firn dead-letters [--config FILE] list [--reason R]... [--since T] [--until T]
                                   [--limit N] [--json]
             bin/firn dead-letters [--config FILE] replay [--reason R]... [--since T] [--until T]
                                   [--limit N] [--job-stopped]

        list     the dead letters, newest first (default limit 50), and how many per reason
        replay   sends the selected dead letters (oldest first, default limit 100000) through the
                 ingest job's routing again, under the configuration FILE holds now: each is
                 written exactly once, to its table when accepted now, back to the dead-letter
                 table when refused again; finishes an interrupted replay first
        --reason R   only dead letters of reason R (repeatable)
        --since T, --until T   only dead letters received at or after / before instant T
                     (ISO-8601, e.g. 2026-12-03T08:00:00Z)
        --job-stopped  the ingest job is stopped: the replay may write to tables whose rule says
                     inserts: append-new-keys (they upsert every row once the job starts again)
        without --config: the embedded configuration of 'bin/firn ingest' (./firn-data)
      """;

  private DeadLetterCommand() {}

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err, DeadLetterReplay.Interruption.NONE));
  }

  /** Runs the command; returns its exit code. */
  static int run(
      String[] args, PrintStream out, PrintStream err, DeadLetterReplay.Interruption interruption) {
    Options options;
    try {
      options = Options.parse(args);
    } catch (IllegalArgumentException e) {
      err.println("error: " + e.getMessage());
      err.print(USAGE);
      return 1;
    }
    if (options.help) {
      out.print(USAGE);
      return 0;
    }
    if (options.config == null && !Files.isDirectory(IngestConfig.EMBEDDED_DIRECTORY)) {
      err.println(
          "error: no "
              + IngestConfig.EMBEDDED_DIRECTORY
              + " directory here: run in the directory 'bin/firn ingest' ran in, or name the"
              + " job's configuration with --config FILE");
      return 1;
    }
    IngestConfig config;
    try {
      config =
          options.config == null
              ? IngestConfig.embedded()
              : IngestConfigParser.parse(options.config);
    } catch (RuntimeException e) {
      err.println("error: " + e.getMessage());
      return 1;
    }
    if ("list".equals(options.command)) {
      try {
        return list(config, options, out);
      } catch (RuntimeException e) {
        err.println("error: " + e.getMessage());
        return 1;
      }
    }
    try {
      List<DeadLetterReplay.Outcome> outcomes =
          new DeadLetterReplay(
                  config.settings(),
                  IngestJob.catalogLoader(config.catalog()),
                  configId(options.config),
                  interruption,
                  options.jobStopped)
              .run(options.filter(), options.limit == null ? 100_000 : options.limit);
      if (outcomes.isEmpty()) {
        out.println("nothing to replay: no dead letter matches");
      }
      for (DeadLetterReplay.Outcome outcome : outcomes) {
        print(outcome, out);
      }
      return 0;
    } catch (IllegalArgumentException e) {
      err.println("error: " + e.getMessage());
      return 1;
    } catch (RuntimeException e) {
      err.println("error: " + e.getMessage());
      err.println(
          "the replay did not finish; what it committed is recorded, and the next"
              + " 'bin/firn dead-letters replay' finishes it");
      return 2;
    }
  }

  private static int list(IngestConfig config, Options options, PrintStream out) {
    Catalog catalog = IngestJob.catalogLoader(config.catalog()).loadCatalog();
    TableIdentifier identifier =
        TableIdentifier.of(
            Namespace.of(config.settings().namespace()), config.settings().deadLetterTable());
    Table table;
    try {
      table = catalog.loadTable(identifier);
    } catch (NoSuchTableException e) {
      out.println("no dead-letter table " + identifier + " in catalog " + catalog.name());
      return 0;
    }
    List<DeadLetterTable.Stored> rows =
        new ArrayList<>(
            DeadLetterTable.read(table, table.currentSnapshot()).stream()
                .filter(options.filter())
                .toList());
    rows.sort(
        java.util.Comparator.comparing(
            DeadLetterTable.Stored::receivedAt,
            java.util.Comparator.nullsLast(java.util.Comparator.reverseOrder())));
    Map<String, Integer> perReason = new TreeMap<>();
    rows.forEach(row -> perReason.merge(row.reason(), 1, Integer::sum));
    int limit = options.limit == null ? 50 : options.limit;
    ObjectMapper json = new ObjectMapper();
    for (DeadLetterTable.Stored row : rows.subList(0, Math.min(limit, rows.size()))) {
      if (options.json) {
        ObjectNode node = json.createObjectNode();
        node.put("received_at", String.valueOf(row.receivedAt()));
        node.put("reason", row.reason());
        node.put("detail", row.detail());
        node.put("source_position", row.sourcePosition());
        node.put("replay_id", row.replayId());
        node.put("payload", row.payload());
        out.println(node);
      } else {
        out.printf(
            "%s  %-22s %-28s %s%n",
            row.receivedAt(),
            row.reason(),
            row.sourcePosition() == null ? "-" : row.sourcePosition(),
            TableRows.abbreviate(String.valueOf(row.detail())));
      }
    }
    if (!options.json) {
      out.printf(
          "%d dead letters in %s%s%s%n",
          rows.size(),
          identifier,
          rows.size() > limit ? " (newest " + limit + " shown)" : "",
          perReason.isEmpty() ? "" : ": " + perReason);
    }
    return 0;
  }

  private static void print(DeadLetterReplay.Outcome outcome, PrintStream out) {
    long written = outcome.written().values().stream().mapToLong(Long::longValue).sum();
    long refused = outcome.refusedAgain().values().stream().mapToLong(Long::longValue).sum();
    out.printf(
        "replay %s%s: %d dead letters, %d rows written%s, %d refused again%s%s%n",
        outcome.replayId(),
        outcome.resumed() ? " (interrupted earlier, now finished)" : "",
        outcome.events(),
        written,
        outcome.written().isEmpty() ? "" : " " + outcome.written(),
        refused,
        outcome.refusedAgain().isEmpty() ? "" : " " + outcome.refusedAgain(),
        outcome.alreadyCommitted().isEmpty()
            ? ""
            : "; already committed before the interruption: " + outcome.alreadyCommitted());
  }

  /** The configuration's identity for an interrupted replay: a hash of its file. */
  static String configId(@Nullable Path config) {
    if (config == null) {
      return "embedded";
    }
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      return "sha256:"
          + HexFormat.of().formatHex(digest.digest(Files.readAllBytes(config))).substring(0, 16);
    } catch (IOException e) {
      throw new UncheckedIOException("Reading " + config + " failed", e);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The command line. */
  static final class Options {
    @Nullable Path config;
    @Nullable String command;
    final Set<String> reasons = new TreeSet<>();
    @Nullable Instant since;
    @Nullable Instant until;
    @Nullable Integer limit;
    boolean json;
    boolean jobStopped;
    boolean help;

    static Options parse(String[] args) {
      Options options = new Options();
      for (int i = 0; i < args.length; i++) {
        String arg = args[i];
        switch (arg) {
          case "-h", "--help", "help" -> options.help = true;
          case "--config" -> options.config = Path.of(value(args, ++i, arg));
          case "--reason" -> {
            String reason = value(args, ++i, arg);
            if (!DeadLetterReason.codes().contains(reason)) {
              throw new IllegalArgumentException(
                  "--reason '" + reason + "' is not one of " + DeadLetterReason.codes());
            }
            options.reasons.add(reason);
          }
          case "--since" -> options.since = instant(value(args, ++i, arg), arg);
          case "--until" -> options.until = instant(value(args, ++i, arg), arg);
          case "--limit" -> {
            String text = value(args, ++i, arg);
            try {
              options.limit = Integer.parseInt(text);
            } catch (NumberFormatException e) {
              options.limit = -1;
            }
            if (options.limit < 1) {
              throw new IllegalArgumentException(
                  "--limit '" + text + "' is not a positive whole number");
            }
          }
          case "--json" -> options.json = true;
          case "--job-stopped" -> options.jobStopped = true;
          case "list", "replay" -> {
            if (options.command != null) {
              throw new IllegalArgumentException(
                  "one command only: got '" + options.command + "' and '" + arg + "'");
            }
            options.command = arg;
          }
          default -> throw new IllegalArgumentException("unknown argument '" + arg + "'");
        }
      }
      if (!options.help && options.command == null) {
        throw new IllegalArgumentException("name a command: list or replay");
      }
      if (options.json && "replay".equals(options.command)) {
        throw new IllegalArgumentException("--json is an option of list");
      }
      if (options.jobStopped && "list".equals(options.command)) {
        throw new IllegalArgumentException("--job-stopped is an option of replay");
      }
      return options;
    }

    Predicate<DeadLetterTable.Stored> filter() {
      return row ->
          (reasons.isEmpty() || reasons.contains(row.reason()))
              && (since == null || (row.receivedAt() != null && !row.receivedAt().isBefore(since)))
              && (until == null || (row.receivedAt() != null && row.receivedAt().isBefore(until)));
    }

    private static String value(String[] args, int i, String option) {
      if (i >= args.length) {
        throw new IllegalArgumentException("option " + option + " needs a value");
      }
      return args[i];
    }

    private static Instant instant(String text, String option) {
      try {
        return Instant.parse(text);
      } catch (DateTimeParseException e) {
        throw new IllegalArgumentException(
            option + " '" + text + "' is not an ISO-8601 instant such as 2026-12-03T08:00:00Z");
      }
    }
  }
}
