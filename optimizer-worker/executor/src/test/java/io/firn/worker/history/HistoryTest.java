/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.history;

import static io.firn.worker.history.History.ALL;
import static io.firn.worker.history.History.FINISH;
import static io.firn.worker.history.History.KEEP;

import io.firn.worker.history.ScheduleGenerator.Mode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * Model-based histories: a Flink-style upsert writer, Spark-style deletes, schema and partition
 * spec changes, and Firn's plans, runs, partial and stale commits and maintenance in random order
 * on a real table; after every step the table read with Iceberg's reader must equal the reference
 * model (see {@link History}). On a failure the seed and a minimized schedule are printed, ready to
 * paste into a named test like the regressions below.
 *
 * <p>A soak runs the same code longer:
 *
 * <pre>
 * mvn -o -pl optimizer-worker/executor -am test -Dtest='HistoryTest#soak' \
 *     -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dfirn.history.seeds=1..50 -Dfirn.history.ops=2000 \
 *     [-Dfirn.history.mode=all|without_known_defects|writer_only] \
 *     [-Dfirn.history.shrink-seconds=300] [-Dfirn.history.trace=true]
 * </pre>
 */
class HistoryTest {
  /** Small sizes and eager triggers so that every kind of run happens on a few hundred rows. */
  private static final Map<String, String> SMALL =
      Map.of(
          "target-size", "16KiB",
          "fragment-ratio", "2",
          "minor.trigger.file-count", "2",
          "minor.trigger.interval", "0s",
          "full.trigger.interval", "off");

  @TempDir Path warehouse;

  // ---------------------------------------------------------------- randomized

  @Test
  void randomHistoriesKeepEveryRow() throws Exception {
    runSeeds(List.of(1L, 3L, 4L), 60, Mode.ALL, Duration.ofSeconds(60));
  }

  /** The writer and the model alone must always agree: this proves the test, not Firn. */
  @Test
  void theWriterAloneKeepsTheModel() throws Exception {
    runSeeds(List.of(11L, 12L), 30, Mode.WRITER_ONLY, Duration.ofSeconds(30));
  }

  @Test
  @EnabledIfSystemProperty(named = "firn.history.seeds", matches = ".+")
  void soak() throws Exception {
    runSeeds(
        seeds(System.getProperty("firn.history.seeds")),
        Integer.getInteger("firn.history.ops", 2000),
        Mode.valueOf(System.getProperty("firn.history.mode", "all").toUpperCase(Locale.ROOT)),
        Duration.ofSeconds(Long.getLong("firn.history.shrink-seconds", 300)));
  }

  // ---------------------------------------------------------------- regressions

  /**
   * After a spec change to unpartitioned, a minor run planned from cheap signals scans only the
   * flagged partitions, so it sees the new global equality deletes attached to the unpartitioned
   * partition only and removes them; the old bucket spec's files, not scanned, still needed them.
   */
  @Test
  void resurrectsRowsAfterSpecChangeToUnpartitioned() {
    try (History h = History.create(warehouse, "regression", "regression", SMALL)) {
      h.spec("bucket[4]");
      h.write(1, "U0-399");
      h.write(2, "U0-39");
      h.optimize("full");
      h.spec("unpartitioned");
      h.write(3, "U100-139");
      h.write(4, "U0-9");
      h.optimize("auto"); // 50 keys duplicated: 0-9 and 100-139
    }
  }

  /** The same with one row (seed 12, minimized): the old spec's file holds a single clean row. */
  @Test
  void duplicatesAKeyUpsertedAfterASpecChangeToUnpartitioned() {
    try (History h =
        History.create(
            warehouse,
            "regression",
            "seed 12",
            Map.of(
                "target-size", "4KiB",
                "fragment-ratio", "2",
                "minor.trigger.file-count", "2",
                "minor.trigger.interval", "1h",
                "major.trigger.duplicate-ratio", "0.3",
                "full.trigger.interval", "0s",
                "max-task-size", "16KiB",
                "equality-delete.bloom-threshold", "0"))) {
      h.spec("bucket[3]+cat");
      h.write(14, "U2");
      h.spec("unpartitioned");
      h.optimize("full");
      h.write(17, "U2");
      h.optimize("auto"); // key 2 twice
    }
  }

  /**
   * apache/iceberg#10962: a full rewrite of every data file planned at S commits after the writer
   * committed delete-only checkpoints; Iceberg's MergingSnapshotProducer drops the delete files
   * below the minimum data sequence number of the remaining data files, ignoring that the new files
   * carry seq(S) explicitly, and the deleted rows come back.
   */
  @Test
  void resurrectsRowsDeletedAfterPlanningWhenAFullRewriteCommits() {
    try (History h = History.create(warehouse, "regression", "regression", SMALL)) {
      h.write(1, "U0-99");
      h.write(2, "D5");
      h.plan(0, "full");
      h.write(3, "D10-19");
      h.write(4, "D20");
      h.commit(0, ALL, FINISH); // keys 10-20 come back
    }
  }

  /**
   * The same when a checkpoint with data follows the deletes (seed 7, minimized): the minimum data
   * sequence number is then that checkpoint's, above the deletes', so Iceberg drops them too.
   */
  @Test
  void resurrectsRowsDeletedAfterPlanningWhenDataFollowsTheDeletes() {
    try (History h =
        History.create(
            warehouse,
            "regression",
            "seed 7",
            Map.of(
                "target-size", "16KiB",
                "fragment-ratio", "8",
                "minor.trigger.file-count", "3",
                "minor.trigger.interval", "0s",
                "major.trigger.duplicate-ratio", "0.1",
                "full.trigger.interval", "1h",
                "max-task-size", "64KiB",
                "equality-delete.bloom-threshold", "1000000"))) {
      h.write(1, "U83");
      h.write(3, "D473");
      h.plan(0, "full");
      h.write(4, "D83");
      h.write(5, "U250");
      h.commit(0, ALL, FINISH); // key 83 comes back
    }
  }

  /**
   * Snapshot expiry removes the planning snapshot S (its child stays, so Iceberg's validation from
   * S passes); the commit goes through, then Firn's ancestry check cannot find S and reports
   * INTEGRITY_FAILED although every row is right (seed 14, minimized).
   */
  @Test
  void expiringThePlanningSnapshotGivesAFalseIntegrityAlarm() {
    try (History h = History.create(warehouse, "regression", "regression", SMALL)) {
      h.write(1, "U0-99");
      h.write(2, "D5");
      h.plan(0, "full");
      h.write(3, "U50");
      h.expire(1);
      h.commit(0, ALL, FINISH);
    }
  }

  /**
   * The same cause where the commit includes a row delta (converted files): Iceberg's row delta
   * validation throws IllegalArgumentException ("Snapshot S is not an ancestor of ...") and Firn
   * reports FAILED ("commit failed") rather than a conflict to plan again (seed 4, minimized).
   */
  @Test
  void expiringThePlanningSnapshotFailsAConversionCommit() {
    try (History h =
        History.create(
            warehouse,
            "regression",
            "seed 4",
            Map.of(
                "target-size", "8KiB",
                "fragment-ratio", "8",
                "minor.trigger.file-count", "3",
                "minor.trigger.interval", "0s",
                "major.trigger.duplicate-ratio", "0.3",
                "full.trigger.interval", "off",
                "max-task-size", "8KiB",
                "equality-delete.bloom-threshold", "1000000"))) {
      h.write(15, "U194");
      h.plan(0, "cheap");
      h.write(16, "U298");
      h.write(21, "U283");
      h.expire(2);
      h.commit(0, ALL, FINISH);
    }
  }

  /**
   * The same cause through the dangling-delete path (seed 10, minimized): the bucket partition is
   * clean (its dangling delete was removed by a partial commit), so cheap signals flag only the
   * unpartitioned partition; in that pruned scan the new global delete of key 224 applies to no
   * scanned file, is taken for dangling and removed, and the old spec's row of 224 comes back.
   */
  @Test
  void resurrectsARowWhenAPrunedScanTakesAGlobalDeleteForDangling() {
    try (History h =
        History.create(
            warehouse,
            "regression",
            "seed 10",
            Map.of(
                "target-size", "4KiB",
                "fragment-ratio", "2",
                "minor.trigger.file-count", "5",
                "minor.trigger.interval", "1h",
                "major.trigger.duplicate-ratio", "0.1",
                "full.trigger.interval", "off",
                "max-task-size", "16KiB",
                "equality-delete.bloom-threshold", "50"))) {
      h.spec("bucket[3]+cat");
      h.write(6, "U224");
      h.spec("unpartitioned");
      h.plan(1, "cheap");
      h.commit(1, ALL, KEEP);
      h.write(9, "D224 U225");
      h.optimize("auto");
    }
  }

  // ---------------------------------------------------------------- helpers

  private static void deleteTree(Path root) throws java.io.IOException {
    try (java.util.stream.Stream<Path> paths = Files.walk(root)) {
      for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }

  private void runSeeds(List<Long> seeds, int ops, Mode mode, Duration shrink) throws Exception {
    List<String> failures = new ArrayList<>();
    Map<String, Integer> mix = new TreeMap<>();
    long started = System.nanoTime();
    for (long seed : seeds) {
      Path dir = Files.createDirectories(warehouse.resolve("seed-" + seed));
      try {
        HistoryRunner.run(dir, seed, ops, mode, shrink)
            .forEach((k, n) -> mix.merge(k, n, Integer::sum));
        deleteTree(dir); // a long soak keeps only failing seeds' tables
      } catch (AssertionError e) {
        failures.add(e.getMessage());
      }
    }
    // One line a soak's record can quote (BENCHMARKS.md).
    System.out.printf(
        Locale.ROOT,
        "history %s: seeds %s, %d steps each, %d steps run, %d of %d seeds failed, %.0f s; mix %s%n",
        mode,
        seeds.get(seeds.size() - 1) - seeds.get(0) == seeds.size() - 1
            ? seeds.get(0) + ".." + seeds.get(seeds.size() - 1)
            : seeds.toString(),
        ops,
        mix.values().stream().mapToInt(Integer::intValue).sum(),
        failures.size(),
        seeds.size(),
        (System.nanoTime() - started) / 1e9,
        mix);
    if (!failures.isEmpty()) {
      throw new AssertionError(
          failures.size()
              + " of "
              + seeds.size()
              + " seeds failed ("
              + ops
              + " steps each, "
              + mode
              + "):\n\n"
              + String.join("\n\n", failures));
    }
  }

  /** {@code 1..50}, {@code 3,7,9} or a mix ({@code 1..5,9}). */
  private static List<Long> seeds(String text) {
    List<Long> seeds = new ArrayList<>();
    for (String part : text.split(",")) {
      String p = part.trim();
      int dots = p.indexOf("..");
      if (dots < 0) {
        seeds.add(Long.parseLong(p));
      } else {
        long from = Long.parseLong(p.substring(0, dots));
        long to = Long.parseLong(p.substring(dots + 2));
        for (long s = from; s <= to; s++) {
          seeds.add(s);
        }
      }
    }
    return seeds;
  }
}
