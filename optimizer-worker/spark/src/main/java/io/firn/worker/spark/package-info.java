/**
 * The worker protocol hosted by a Spark application: the driver talks to the server, executors run
 * the rewrites ({@link io.firn.worker.spark.SparkWorker}).
 */
package io.firn.worker.spark;
