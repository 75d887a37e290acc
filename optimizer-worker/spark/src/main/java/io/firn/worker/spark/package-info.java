/**
 * The worker protocol hosted by a Spark application: the driver runs the executor's worker loop and
 * talks to the server, executors run the rewrites as Spark jobs ({@link
 * io.firn.worker.spark.SparkWorker}, the loop's task runner; ADR 0029).
 */
package io.firn.worker.spark;
