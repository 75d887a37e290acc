/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The scenario of the engine workers' ITs (Flink, Spark): a server in a child JVM ({@link
 * ServerProcess}) with no local worker threads, a big table {@code db.big} whose one task takes a
 * while to write, and three small tables. A worker is stopped without drain while it writes the big
 * task's first attempt (that attempt is dead: not handed in, its lease expires), the next is
 * stopped with a drain time while it writes the next attempt (that one is handed in), and a last
 * worker optimizes everything: rows unchanged, no file of a dead attempt committed.
 *
 * <p>The checks throw {@link AssertionError} naming what differs; the waits are the test's.
 */
public final class StoppedWorkerScenario {
  /** The server's {@code optimizing:} body: no local worker, leases of 4 s. */
  public static final String OPTIMIZING =
      """
        localWorkerThreads: 0
        maxConcurrentProcesses: 8
        lease: 4s
        heartbeatInterval: 500ms
        retryBackoff: 500ms
      """;

  private static final Set<Object> HANDED_IN = Set.of("succeeded", "committed");

  private final ServerProcess server;
  private final Map<String, GeneratedTable> tables = new LinkedHashMap<>();
  private final Set<String> deadAttempts = new HashSet<>();

  private StoppedWorkerScenario(ServerProcess server) {
    this.server = server;
    // 400,000 keys: the big task writes for about 2 s, twice what a MiniCluster took to cancel a
    // job on a quiet 2-core machine; with 200,000 the cancel once landed while the attempt was
    // already handing its file in, and the server committed it.
    tables.put(
        "big",
        server.generate(
            "db", "big", new CdcTableSpec(400_000, 30, 0.1, 0.02, 0.02, 0, 5L, false, false)));
    for (int i = 0; i < 3; i++) {
      tables.put(
          "t" + i,
          server.generate(
              "db",
              "t" + i,
              new CdcTableSpec(1_500, 20, 0.05, 0.02, 0.02, i * 2, 100L + i, i == 1, false)));
    }
  }

  /** Generates the tables in {@code server}'s catalog, then starts it with {@link #OPTIMIZING}. */
  public static StoppedWorkerScenario start(ServerProcess server) throws IOException {
    StoppedWorkerScenario scenario = new StoppedWorkerScenario(server);
    server.start(OPTIMIZING);
    return scenario;
  }

  /**
   * Waits until the server planned the big table and returns its process's id.
   *
   * @throws AssertionError when it has not after {@code timeout}
   */
  public String awaitBigProcess(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    String process;
    while ((process = bigProcess()) == null) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the server planned no process of db.big in " + timeout);
      }
      Thread.sleep(200);
    }
    return process;
  }

  /** The id of the big table's last process, or null before the server planned it. */
  private String bigProcess() {
    for (Map<String, Object> table : Http.list(server.api() + "/tables")) {
      if ("big".equals(table.get("table")) && table.get("lastProcessId") != null) {
        return (String) table.get("lastProcessId");
      }
    }
    return null;
  }

  /** The first attempt of the big process's one task: the process id plus {@code -t0-a1}. */
  public static String firstAttempt(String process) {
    return process + "-t0-a1";
  }

  /** Whether a file of {@code attempt} is in the big table's data (output files carry its id). */
  public boolean writing(String attempt) {
    Path data = server.dir.resolve("warehouse/db/big/data");
    if (!Files.isDirectory(data)) {
      return false;
    }
    try (Stream<Path> files = Files.walk(data)) {
      return files.anyMatch(f -> f.getFileName().toString().contains(attempt));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Records that {@code attempt} died (its worker stopped without drain), and checks that it was
   * not handed in: the process's one task is still that attempt, neither succeeded nor committed.
   */
  public void assertDead(String process, String attempt) {
    deadAttempts.add(attempt);
    Map<String, Object> task = onlyTask(process);
    if (!attempt.equals(task.get("attemptId")) || HANDED_IN.contains(task.get("status"))) {
      throw new AssertionError("the stopped attempt " + attempt + " was handed in: " + task);
    }
  }

  /**
   * The attempt of the big process that is leased, not dead and being written, or null: the moment
   * to stop a draining worker.
   */
  public String liveAttemptWriting(String process) {
    for (Map<String, Object> task : tasks(process)) {
      String attempt = (String) task.get("attemptId");
      if ("leased".equals(task.get("status"))
          && !deadAttempts.contains(attempt)
          && writing(attempt)) {
        return attempt;
      }
    }
    return null;
  }

  /**
   * Checks that the drained {@code attempt}, the task's second, was handed in and accepted.
   *
   * @param context what to add to the failure (e.g. the worker's log)
   */
  public void assertDrained(String process, String attempt, String context) {
    Map<String, Object> task = onlyTask(process);
    if (!attempt.equals(task.get("attemptId"))
        || !Integer.valueOf(2).equals(task.get("attempts"))
        || !HANDED_IN.contains(task.get("status"))) {
      throw new AssertionError(
          "the running attempt " + attempt + " was not drained: " + task + "; " + context);
    }
  }

  /**
   * Waits until every table is optimized and the server settled ({@link ServerProcess#pending}),
   * then checks the end ({@link #verify}).
   *
   * @throws AssertionError with what is still pending after {@code timeout}, or what differs
   */
  public void awaitOptimized(String process, Duration timeout) throws InterruptedException {
    List<String> names = tables.keySet().stream().map(name -> "db." + name).toList();
    long deadline = System.nanoTime() + timeout.toNanos();
    String pending;
    while ((pending = server.pending(names)) != null) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not optimized after " + timeout + ": " + pending);
      }
      Thread.sleep(500);
    }
    verify(process);
  }

  /**
   * Checks the end: no task of the big process is a dead attempt, every table's rows are the
   * generator's, and no live file is a dead attempt's output.
   */
  private void verify(String process) {
    for (Map<String, Object> task : tasks(process)) {
      if (deadAttempts.contains(task.get("attemptId"))) {
        throw new AssertionError("the dead attempt's task was not redone: " + task);
      }
    }
    for (Map.Entry<String, GeneratedTable> entry : tables.entrySet()) {
      Table table = server.catalog.loadTable(TableIdentifier.of("db", entry.getKey()));
      if (!RowSets.read(table)
          .equals(RowSets.of(entry.getValue().writer().expected().values(), table.schema()))) {
        throw new AssertionError("the rows of " + table.name() + " differ from the generator's");
      }
      for (String file : RowSets.liveFiles(table)) {
        for (String attempt : deadAttempts) {
          if (file.contains(attempt)) {
            throw new AssertionError(
                "a dead attempt's output is live in " + table.name() + ": " + file);
          }
        }
      }
    }
  }

  /** The tasks of a process, as the API lists them. */
  @SuppressWarnings("unchecked")
  public List<Map<String, Object>> tasks(String process) {
    return (List<Map<String, Object>>)
        Http.map(server.api() + "/processes/" + process).get("tasks");
  }

  private Map<String, Object> onlyTask(String process) {
    List<Map<String, Object>> tasks = new ArrayList<>(tasks(process));
    if (tasks.size() != 1) {
      throw new AssertionError("the big process has not one task but " + tasks);
    }
    return tasks.get(0);
  }
}
