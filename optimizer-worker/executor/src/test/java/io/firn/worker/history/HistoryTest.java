package io.firn.worker.history;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * Model-based histories: a Flink-style upsert writer, Spark-style deletes, schema and partition
 * spec changes, and Firn's plans, runs, partial and stale commits and maintenance in random order
 * on a real table; after every step the table read with Iceberg's generic reader must equal the
 * reference model (see {@link History}).
 *
 * <p>Bounded in the build: a few fixed seeds. As a soak:
 *
 * <pre>
 * mvn -o -pl optimizer-worker/executor -am test -Dtest='HistoryTest#soak' \
 *     -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dfirn.history.seeds=1..50 -Dfirn.history.ops=2000 [-Dfirn.history.shrink-seconds=300]
 * </pre>
 *
 * Each failing seed prints the failure, the seed and a minimized schedule to paste into a named
 * test like the ones below.
 */
class HistoryTest {
  private static final List<Long> CI_SEEDS = List.of(1L, 2L, 3L, 4L);
  private static final int CI_OPS = 70;

  @TempDir Path warehouse;

  @Test
  @Disabled(
      "defects: Firn resurrects and duplicates rows today (see the @Disabled named tests); enable"
          + " when they are fixed")
  void randomHistoriesKeepEveryRow() throws Exception {
    runSeeds(CI_SEEDS, CI_OPS, false, Duration.ofSeconds(60));
  }

  /** The writer and the model alone must always agree: this proves the test, not Firn. */
  @Test
  void theWriterAloneKeepsTheModel() throws Exception {
    runSeeds(List.of(11L, 12L, 13L), 60, true, Duration.ofSeconds(30));
  }

  @Test
  @EnabledIfSystemProperty(named = "firn.history.seeds", matches = ".+")
  void soak() throws Exception {
    runSeeds(
        seeds(System.getProperty("firn.history.seeds")),
        Integer.getInteger("firn.history.ops", 2000),
        Boolean.getBoolean("firn.history.writer-only"),
        Duration.ofSeconds(Long.getLong("firn.history.shrink-seconds", 300)));
  }

  // ---------------------------------------------------------------- regressions

  /**
   * The brief's first known defect: after a spec change to unpartitioned, the new global equality
   * deletes are removed by a minor run while data files of the old bucket spec still need them.
   */
  @Test
  @Disabled("defect: global equality deletes removed while other specs' files still need them")
  void resurrectsRowsAfterSpecChangeToUnpartitioned() {
    try (History h =
        History.create(warehouse, "regression", "regression", Map.of("target-size", "64KiB"))) {
      h.spec("bucket[4]");
      h.write(1, "U0-399");
      h.write(2, "U0-39");
      h.optimize("full");
      h.spec("unpartitioned");
      h.write(3, "U100-139");
      h.write(4, "U0-9");
      h.optimize("auto");
    }
  }

  // ---------------------------------------------------------------- helpers

  private void runSeeds(List<Long> seeds, int ops, boolean writerOnly, Duration shrink)
      throws Exception {
    List<String> failures = new ArrayList<>();
    for (long seed : seeds) {
      Path dir = Files.createDirectories(warehouse.resolve("seed-" + seed));
      try {
        HistoryRunner.run(dir, seed, ops, writerOnly, shrink);
      } catch (AssertionError e) {
        failures.add(e.getMessage());
      }
    }
    if (!failures.isEmpty()) {
      throw new AssertionError(
          failures.size()
              + " of "
              + seeds.size()
              + " seeds failed ("
              + ops
              + " steps each):\n\n"
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
