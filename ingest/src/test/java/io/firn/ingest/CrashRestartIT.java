/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 15's acceptance for a local run (ADR 0019): the ingest job runs as its own JVM the way
 * {@code bin/firn ingest} runs it ({@code IngestJob --config FILE}, a MiniCluster in that JVM)
 * against a real broker, and is killed with SIGKILL at random moments while events keep arriving —
 * half of the kills the moment a new Iceberg snapshot lands in one of the tables, which is after
 * the Iceberg commit of a checkpoint and before the commits of its other tables and its Kafka
 * offsets. Each time it is started again and resumes from its newest completed checkpoint. At the
 * end the append table holds every event id exactly once, the upsert table the last row per key and
 * the dead-letter table each poison record once. The seed is printed; rerun one with {@code
 * -Dfirn.crash.seed=N}.
 */
class CrashRestartIT {
  private static final String TOPIC = "crash-events";
  private static final String NAMESPACE = "events";
  private static final List<String> TABLES = List.of("clicks", "accounts", "dead_letters");
  private static final int KILLS = 10;
  private static final int RETAINED = 2;

  private static final int ACCOUNTS = 40;
  private static final Pattern RESUMED = Pattern.compile("Resuming from checkpoint (\\d+)");

  @RegisterExtension static final KafkaBroker.PerClass KAFKA = new KafkaBroker.PerClass();

  @TempDir Path dir;

  private final List<Process> processes = Collections.synchronizedList(new ArrayList<>());

  @AfterEach
  void killJobs() throws InterruptedException {
    for (Process process : processes) {
      process.destroyForcibly().waitFor();
    }
  }

  @Test
  void repeatedKillsLoseAndDuplicateNothing() throws Exception {
    long seed = Long.getLong("firn.crash.seed", System.nanoTime());
    System.out.println("CrashRestartIT seed " + seed + " (rerun: -Dfirn.crash.seed=" + seed + ")");
    Random random = new Random(seed);
    KAFKA.broker().createTopic(TOPIC, 2);
    Path checkpoints = dir.resolve("checkpoints");
    Path config = writeConfig(checkpoints);
    Catalog catalog =
        IngestJob.catalogLoader(IngestConfigParser.parse(config).catalog()).loadCatalog();

    Produced produced = new Produced();
    AtomicBoolean stop = new AtomicBoolean();
    CompletableFuture<Void> producer =
        CompletableFuture.runAsync(() -> produce(produced, new Random(seed + 1), stop));
    long started = System.nanoTime();
    try {
      List<String> kills = new ArrayList<>();
      List<Long> resumedFrom = new ArrayList<>();
      for (int run = 0; run < KILLS; run++) {
        Path log = dir.resolve("run-" + run + ".log");
        Process job = start(config, log);
        // Every other kill right after a table's commit; the others at a random time, either
        // from the start (start-up, restore) or once the run commits (mid-checkpoint, writes).
        if (run % 2 == 1) {
          String table = TABLES.get(random.nextInt(TABLES.size()));
          awaitSnapshot(catalog, table, job, log);
          job.destroyForcibly();
          kills.add("right after a commit to " + table);
        } else if (run == 0 || random.nextInt(3) == 0) {
          long millis = 300L + random.nextInt(10_000);
          assertThat(job.waitFor(millis, TimeUnit.MILLISECONDS))
              .as("run %d still running; log:%n%s", run, tail(log))
              .isFalse();
          job.destroyForcibly();
          kills.add(millis + " ms after the start");
        } else {
          awaitSnapshot(catalog, "accounts", job, log);
          long millis = random.nextInt(3_000);
          assertThat(job.waitFor(millis, TimeUnit.MILLISECONDS))
              .as("run %d still running; log:%n%s", run, tail(log))
              .isFalse();
          job.destroyForcibly();
          kills.add(millis + " ms after a commit");
        }
        job.waitFor();
        resumed(log).ifPresent(resumedFrom::add);
      }
      stop.set(true);
      System.out.println("CrashRestartIT kills: " + kills);
      System.out.println("CrashRestartIT resumed from checkpoints: " + resumedFrom);

      Path log = dir.resolve("final.log");
      Process job = start(config, log);
      producer.get(3, TimeUnit.MINUTES);
      Map<Long, Long> expectedAccounts = produced.accounts();
      try {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (!landed(catalog, produced, expectedAccounts) && System.nanoTime() < deadline) {
          assertThat(job.isAlive()).as("final run alive; log:%n%s", tail(log)).isTrue();
          Thread.sleep(500);
        }
      } finally {
        job.destroyForcibly().waitFor();
      }
      System.out.printf(
          "CrashRestartIT: %d kills, %d clicks, %d account upserts to %d keys, %d poison, %.1f s%n",
          KILLS,
          produced.clicks.size(),
          produced.upserts.get(),
          expectedAccounts.size(),
          produced.poison.size(),
          (System.nanoTime() - started) / 1e9);

      Map<Long, Long> clicks =
          rows(catalog, "clicks").stream()
              .collect(
                  Collectors.groupingBy(
                      r -> (Long) r.getField("click"), TreeMap::new, Collectors.counting()));
      assertThat(clicks.entrySet().stream().filter(e -> e.getValue() != 1).toList())
          .as("click ids not exactly once")
          .isEmpty();
      assertThat(clicks.keySet()).as("every click id").isEqualTo(produced.clicks());
      Map<Long, List<Long>> accounts =
          rows(catalog, "accounts").stream()
              .collect(
                  Collectors.groupingBy(
                      r -> (Long) r.getField("id"),
                      TreeMap::new,
                      Collectors.mapping(r -> (Long) r.getField("version"), Collectors.toList())));
      assertThat(accounts)
          .as("the last version per account, one row each")
          .isEqualTo(
              expectedAccounts.entrySet().stream()
                  .collect(
                      Collectors.toMap(
                          Map.Entry::getKey,
                          e -> List.of(e.getValue()),
                          (a, b) -> a,
                          TreeMap::new)));
      Map<String, Long> letters =
          rows(catalog, "dead_letters").stream()
              .collect(
                  Collectors.groupingBy(
                      r -> (String) r.getField("source_position"),
                      TreeMap::new,
                      Collectors.counting()));
      assertThat(letters.entrySet().stream().filter(e -> e.getValue() != 1).toList())
          .as("dead letters not exactly once")
          .isEmpty();
      assertThat(letters.keySet()).as("every poison record").isEqualTo(produced.poison());

      assertThat(resumedFrom)
          .as("restarts that resumed from a checkpoint, in order")
          .hasSizeGreaterThanOrEqualTo(KILLS / 2)
          .isSorted();
      assertThat(resumed(log)).as("the final run resumed").isPresent();
      // Bounded: the last run's checkpoints and those of the run it resumed from.
      assertThat(completedCheckpoints(checkpoints))
          .as("completed checkpoints left in %s", checkpoints)
          .hasSizeBetween(1, 2 * RETAINED);
    } finally {
      stop.set(true);
      producer.exceptionally(e -> null).get(1, TimeUnit.MINUTES);
    }
  }

  @Test
  void aCheckpointThatCannotBeRestoredStopsTheJobWithWhatToDo() throws Exception {
    Path checkpoints = dir.resolve("checkpoints");
    Path damaged = checkpoints.resolve("0123456789abcdef0123456789abcdef").resolve("chk-7");
    Files.createDirectories(damaged);
    Files.writeString(damaged.resolve(LocalCheckpoints.METADATA), "not a checkpoint");
    // Garbage next to it: an in-progress checkpoint and names that are no checkpoint.
    Files.createDirectories(damaged.resolveSibling("chk-9"));
    Files.createDirectories(checkpoints.resolve("not-a-job").resolve("chk-12"));
    Path config = writeConfig(checkpoints);
    Path log = dir.resolve("damaged.log");

    Process job = start(config, log);
    assertThat(job.waitFor(2, TimeUnit.MINUTES)).as("the job stops; log:%n%s", tail(log)).isTrue();

    assertThat(job.exitValue()).as("exit code; log:%n%s", tail(log)).isNotZero();
    String output = Files.readString(log);
    assertThat(output)
        .contains("Resuming from checkpoint 7 (" + damaged.toAbsolutePath())
        .contains("the ingest job could not resume from checkpoint 7")
        .contains("Firn does not start afresh on its own")
        .contains("move " + checkpoints.toAbsolutePath() + " away");
    assertThat(Files.readString(damaged.resolve(LocalCheckpoints.METADATA)))
        .as("the checkpoint is left as it was, for the operator")
        .isEqualTo("not a checkpoint");
  }

  private Path writeConfig(Path checkpoints) throws IOException {
    Path config = dir.resolve("ingest.yaml");
    Files.writeString(
        config,
        String.join(
            "\n",
            "source:",
            "  type: kafka",
            "  bootstrap-servers: '" + KAFKA.broker().bootstrapServers() + "'",
            "  topics: " + TOPIC,
            "  group-id: firn-crash-it",
            "  starting-offsets: earliest",
            "catalog:",
            "  uri: 'jdbc:sqlite:" + dir.resolve("catalog.db") + "?busy_timeout=30000'",
            "  warehouse: '" + dir.resolve("warehouse") + "'",
            "namespace: " + NAMESPACE,
            "tables:",
            "  - {match: clicks, upsert: false}",
            "checkpoint-interval: 400ms",
            "checkpoint-directory: '" + checkpoints + "'",
            "checkpoints-retained: " + RETAINED,
            ""));
    return config;
  }

  /** {@code IngestJob --config FILE} in its own JVM, on this test's classpath. */
  private Process start(Path config, Path log) throws IOException {
    List<String> command =
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx768m",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-Dslf4j.provider=org.slf4j.simple.SimpleServiceProvider",
            "io.firn.ingest.IngestJob",
            "--config",
            config.toString());
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    builder.environment().put("CLASSPATH", System.getProperty("java.class.path"));
    Process process = builder.start();
    processes.add(process);
    return process;
  }

  /** What the producer sent: click ids, the last version per account, poison positions. */
  private static final class Produced {
    private final List<Long> clicks = Collections.synchronizedList(new ArrayList<>());
    private final Map<Long, Long> accounts = Collections.synchronizedMap(new HashMap<>());
    private final List<String> poison = Collections.synchronizedList(new ArrayList<>());
    private final java.util.concurrent.atomic.AtomicLong upserts =
        new java.util.concurrent.atomic.AtomicLong();

    java.util.Set<Long> clicks() {
      return new java.util.TreeSet<>(clicks);
    }

    Map<Long, Long> accounts() {
      return new TreeMap<>(accounts);
    }

    java.util.Set<String> poison() {
      return new java.util.TreeSet<>(poison);
    }
  }

  /**
   * Records in batches of 25 every 100 ms until {@code stop} (the kills are over): clicks without
   * key, account upserts keyed by account (so that one partition holds a key's order), and every
   * 40th record a truncated JSON object. Each batch is acknowledged before it counts as produced.
   */
  private static void produce(Produced produced, Random random, AtomicBoolean stop) {
    try (KafkaProducer<String, String> producer = KAFKA.broker().producer()) {
      long click = 0;
      for (int i = 0; !stop.get(); i++) {
        if (i % 40 == 39) {
          RecordMetadata sent =
              producer
                  .send(new ProducerRecord<>(TOPIC, "{\"event_type\": \"clicks\", \"click\": " + i))
                  .get();
          produced.poison.add(sent.topic() + "/" + sent.partition() + "/" + sent.offset());
        } else if (i % 3 == 0) {
          long account = random.nextInt(ACCOUNTS);
          producer
              .send(
                  new ProducerRecord<>(
                      TOPIC,
                      "account-" + account,
                      "{\"event_type\": \"accounts\", \"id\": "
                          + account
                          + ", \"version\": "
                          + i
                          + ", \"balance\": "
                          + random.nextInt(1_000)
                          + "}"))
              .get();
          produced.accounts.put(account, (long) i);
          produced.upserts.incrementAndGet();
        } else {
          producer
              .send(
                  new ProducerRecord<>(
                      TOPIC,
                      "{\"event_type\": \"clicks\", \"click\": "
                          + click
                          + ", \"page\": \"/p/"
                          + (click % 17)
                          + "\"}"))
              .get();
          produced.clicks.add(click++);
        }
        if (i % 25 == 24) {
          Thread.sleep(100);
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException("producing failed", e);
    }
  }

  private static boolean landed(Catalog catalog, Produced produced, Map<Long, Long> accounts) {
    try {
      return rows(catalog, "clicks").size() >= produced.clicks.size()
          && rows(catalog, "dead_letters").size() >= produced.poison.size()
          && rows(catalog, "accounts").stream()
              .collect(
                  Collectors.toMap(
                      r -> (Long) r.getField("id"),
                      r -> (Long) r.getField("version"),
                      (a, b) -> -1L))
              .equals(accounts);
    } catch (NoSuchTableException e) {
      return false;
    }
  }

  private static List<Record> rows(Catalog catalog, String table) {
    try {
      return IngestJobIT.readAll(catalog.loadTable(TableIdentifier.of(NAMESPACE, table)));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Waits until a new snapshot of {@code table} lands (polling every 2 ms). */
  private static void awaitSnapshot(Catalog catalog, String table, Process job, Path log)
      throws InterruptedException {
    long before = snapshotId(catalog, table);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (snapshotId(catalog, table) == before) {
      assertThat(job.isAlive()).as("the job runs; log:%n%s", tail(log)).isTrue();
      assertThat(System.nanoTime() - deadline)
          .as("a new snapshot of %s within 60 s; log:%n%s", table, tail(log))
          .isNegative();
      Thread.sleep(2);
    }
  }

  private static long snapshotId(Catalog catalog, String name) {
    try {
      Table table = catalog.loadTable(TableIdentifier.of(NAMESPACE, name));
      Snapshot current = table.currentSnapshot();
      return current == null ? -1 : current.snapshotId();
    } catch (NoSuchTableException e) {
      return -2;
    }
  }

  private static java.util.Optional<Long> resumed(Path log) throws IOException {
    Matcher matcher = RESUMED.matcher(Files.readString(log));
    return matcher.find()
        ? java.util.Optional.of(Long.parseLong(matcher.group(1)))
        : java.util.Optional.empty();
  }

  private static List<Path> completedCheckpoints(Path checkpoints) throws IOException {
    try (Stream<Path> files = Files.walk(checkpoints)) {
      return files
          .filter(f -> f.getFileName().toString().equals(LocalCheckpoints.METADATA))
          .map(Path::getParent)
          .toList();
    }
  }

  private static String tail(Path log) {
    try {
      String text =
          Files.readString(log)
              .lines()
              .filter(l -> !l.contains("Name collision") && !l.contains("without view support"))
              .collect(Collectors.joining("\n"));
      return text.substring(Math.max(0, text.length() - 6_000));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }
}
