/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.spark;

import io.firn.worker.remote.HttpWorkerProtocol;
import io.firn.worker.remote.Worker;
import io.firn.worker.remote.WorkerOptions;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.util.ShutdownHookManager;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;

/**
 * {@code spark-submit --class io.firn.worker.spark.SparkWorkerApp
 * firn-worker-spark-<version>-app.jar --server URL [--slots N] ...}: runs until the application is
 * stopped (SIGTERM to the driver, or the cluster manager), then stops polling and drains running
 * tasks for up to {@code --drain-seconds} before Spark shuts down. A thin shell over the worker
 * loop with the Spark-job runner ({@link SparkWorker#create}).
 */
public final class SparkWorkerApp {
  /** Above Spark's own shutdown hook (FileSystem priority + 30), so draining happens first. */
  private static final int SHUTDOWN_PRIORITY = 50;

  private SparkWorkerApp() {}

  /** The text shown with a usage error. */
  static final String USAGE =
      "usage: spark-submit --class io.firn.worker.spark.SparkWorkerApp firn-worker-spark-app.jar "
          + WorkerOptions.USAGE_OPTIONS;

  public static void main(String[] args) throws Exception {
    WorkerOptions options = WorkerOptions.parseOrExit(args, "spark", USAGE);
    SparkSession session = SparkSession.builder().appName("firn-worker").getOrCreate();
    JavaSparkContext spark = JavaSparkContext.fromSparkContext(session.sparkContext());
    int slots = options.slots() > 0 ? options.slots() : spark.defaultParallelism();
    Worker worker =
        SparkWorker.create(
            spark,
            new HttpWorkerProtocol(HttpWorkerProtocol.servers(options.server()), options.token()),
            options,
            slots);
    CountDownLatch stopped = new CountDownLatch(1);
    ShutdownHookManager.get()
        .addShutdownHook(
            () -> {
              try {
                worker.close();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } finally {
                stopped.countDown();
              }
            },
            SHUTDOWN_PRIORITY,
            options.drain().toSeconds() + 30,
            TimeUnit.SECONDS);
    System.out.printf(
        "firn worker on Spark %s (%s): %d slot(s), group %s, server %s%n",
        spark.version(), spark.sc().applicationId(), slots, options.group(), options.server());
    worker.start();
    while (!stopped.await(500, TimeUnit.MILLISECONDS)) {
      if (worker.refusal() != null) {
        // Refused (401/403): the application ends with the reason instead of idling forever.
        System.err.println("error: " + worker.refusal());
        worker.close();
        System.exit(1);
        return;
      }
    }
  }
}
