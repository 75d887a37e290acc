/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.spark;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.firn.core.catalog.CatalogCredentials;
import io.firn.core.protocol.CompleteRequest;
import io.firn.core.protocol.TaskAssignment;
import io.firn.core.protocol.WorkerProtocol;
import io.firn.worker.remote.TaskRunner;
import io.firn.worker.remote.Worker;
import io.firn.worker.remote.WorkerOptions;
import io.firn.worker.remote.WorkerSettings;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Spark part of the Spark application's worker: the {@link TaskRunner} that runs each leased
 * task as a one-partition Spark job on an executor ({@link RewriteFunction}), whose job group is
 * the attempt id. Everything else is the executor's {@link Worker} loop on the driver (ADR 0029):
 * one registration with all slots (engine {@code spark}, Spark's version), a driver thread per slot
 * polling, heartbeats, hand-in, backoff and draining on close.
 *
 * <p>Cancelling an attempt (the server abandoned it, or the worker stopped waiting for it) cancels
 * its Spark job; a job that then ends with an exception counts as abandoned, not failed. A
 * completion travels from the executor as protocol JSON without the worker secret; the loop on the
 * driver signs it.
 */
public final class SparkWorker implements TaskRunner {
  private static final Logger LOG = LoggerFactory.getLogger(SparkWorker.class);
  private static final ObjectMapper JSON =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  private final JavaSparkContext spark;

  private SparkWorker(JavaSparkContext spark) {
    this.spark = spark;
  }

  /**
   * The worker loop of a Spark application, not started yet: it registers as {@code
   * <name>@<application id>} and runs its tasks as Spark jobs of {@code spark}. Its own catalog
   * properties come from {@code FIRN_CATALOG_PROPERTIES}, if set (ADR 0017).
   *
   * @param slots tasks leased and run at once, each as its own Spark job
   */
  public static Worker create(
      JavaSparkContext spark, WorkerProtocol server, WorkerOptions options, int slots) {
    return new Worker(
        server,
        new WorkerSettings(
            options.name() + "@" + spark.sc().applicationId(),
            options.group(),
            slots,
            "spark",
            spark.version(),
            options.pollWait(),
            options.drain()),
        CatalogCredentials.localProperties(System.getenv()),
        new SparkWorker(spark));
  }

  @Override
  public String where() {
    return " as a Spark job";
  }

  @Override
  public Outcome run(TaskAssignment assignment, Lease lease) {
    TaskOutcome outcome;
    try {
      outcome = rewriteOnExecutor(assignment, lease);
    } catch (RuntimeException e) {
      if (lease.stopped()) {
        LOG.info("the Spark job of {} was cancelled: {}", assignment.attemptId(), e.getMessage());
        return new Outcome.Cancelled(String.valueOf(e.getMessage()));
      }
      return new Outcome.Failed("the Spark job failed: " + e);
    }
    String failure = outcome.failure();
    String complete = outcome.complete();
    if (failure != null) {
      return new Outcome.Failed(failure);
    }
    if (complete == null) {
      return new Outcome.Failed("the Spark task returned neither a completion nor a failure");
    }
    return new Outcome.Completed(read(complete));
  }

  @Override
  public void cancel(String attemptId, String why) {
    LOG.info("cancelling the Spark job of {}: {}", attemptId, why);
    spark.sc().cancelJobGroup(attemptId, why);
  }

  /** One Spark job of one partition holding the assignment; its job group is the attempt id. */
  private TaskOutcome rewriteOnExecutor(TaskAssignment assignment, Lease lease) {
    String catalogsJson;
    String assignmentJson;
    try {
      catalogsJson = JSON.writeValueAsString(lease.catalogs());
      assignmentJson = JSON.writeValueAsString(assignment);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write a task as JSON: " + e, e);
    }
    spark.setJobGroup(
        assignment.attemptId(),
        "firn " + assignment.type() + " " + assignment.table() + " " + assignment.taskId(),
        true);
    try {
      return spark
          .parallelize(List.of(assignmentJson), 1)
          .map(new RewriteFunction(lease.workerId(), catalogsJson))
          .collect()
          .get(0);
    } finally {
      spark.clearJobGroup();
    }
  }

  private static CompleteRequest read(String json) {
    try {
      return JSON.readValue(json, CompleteRequest.class);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("an executor sent a completion that is not JSON: " + e, e);
    }
  }
}
