/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.remote;

import io.firn.core.catalog.CatalogSettings;
import io.firn.core.protocol.CompleteRequest;
import io.firn.core.protocol.TaskAssignment;
import java.util.List;
import org.apache.iceberg.catalog.Catalog;

/**
 * How a worker runs one leased task: the seam between the worker loop ({@link Worker}) and the
 * runtime that does the rewrite (ADR 0029). The loop registers, polls, heartbeats, backs off,
 * checks, signs and hands in, drops what the server no longer wants and drains on close, the same
 * for every runtime; a runner only runs: one assignment in, its {@link Outcome} out.
 *
 * <ul>
 *   <li>{@link InThreadRunner}: the executor in the slot's own thread (the standalone worker, the
 *       server's in-process worker, each slot of the Flink worker);
 *   <li>{@code io.firn.worker.spark.SparkWorker}: a one-partition Spark job on an executor.
 * </ul>
 *
 * <p>The loop's side of the contract: it calls {@link #run} on one of its slot threads, at most
 * once per leased attempt, and heartbeats the lease while it runs. A {@link Outcome.Completed} is
 * handed in only when it is the leased attempt's; the loop signs it with the worker's secret (a
 * runner never needs it). A runner that throws has failed, with the exception as the reason. The
 * loop deletes the output of a completion the server refuses or no longer wants, and keeps it when
 * it may have been committed.
 */
public interface TaskRunner {
  /**
   * Runs one leased attempt.
   *
   * @param assignment what the server leased
   * @param lease the worker's side of that lease
   * @return the attempt's completion (unsigned), why it failed, or that it stopped because it was
   *     {@linkplain #cancel cancelled}
   * @throws RuntimeException the attempt failed; {@code toString()} is the reason the server gets
   */
  Outcome run(TaskAssignment assignment, Lease lease);

  /**
   * Stops a running attempt, if this runtime can: the server abandoned it, or the worker stopped
   * waiting for it. Called from another thread than the attempt's {@link #run}, possibly before it
   * started its work or after it ended. The default cannot stop anything; the loop then drops the
   * attempt's output when it ends.
   *
   * @param why for the runtime's own records, e.g. {@code "the Firn worker stopped"}
   */
  default void cancel(String attemptId, String why) {}

  /**
   * Where tasks run, for the log line {@code running <task> (attempt <id>)<where>: ...}: empty, or
   * e.g. {@code " as a Spark job"}.
   */
  default String where() {
    return "";
  }

  /** The worker's side of one leased attempt, as its runner sees it. */
  interface Lease {
    /** The worker's id from its registration (never its secret). */
    String workerId();

    /**
     * The catalogs the server sent at registration with this worker's own properties laid over them
     * (credentials the server withholds, ADR 0017).
     */
    List<CatalogSettings> catalogs();

    /** The worker's connection to catalog {@code name}, shared by its slots; closed by the loop. */
    Catalog catalog(String name);

    /** Whether the server abandoned this attempt or the worker stopped waiting for it. */
    boolean stopped();
  }

  /** What became of one attempt. */
  sealed interface Outcome {
    /**
     * The attempt wrote its output.
     *
     * @param completion of the leased attempt; its secret is left out (the loop signs it)
     */
    record Completed(CompleteRequest completion) implements Outcome {}

    /**
     * The attempt failed; the loop reports it to the server, which decides about retries.
     *
     * @param reason for the server and the log
     */
    record Failed(String reason) implements Outcome {}

    /**
     * The attempt stopped because it was {@linkplain TaskRunner#cancel cancelled}, so it wrote
     * nothing to hand in; nothing is reported (the server already gave the attempt up, or its lease
     * expires).
     *
     * @param why what the runtime said
     */
    record Cancelled(String why) implements Outcome {}
  }
}
