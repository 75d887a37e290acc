/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.flink;

import io.firn.worker.remote.WorkerOptions;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * {@code flink run firn-worker-flink-<version>-job.jar --server URL [--slots N] ...}: a streaming
 * job whose source has one executor slot per parallel subtask. A thin shell over {@link
 * WorkerSource}; the work is done by the executor's worker loop.
 */
public final class FlinkWorkerJob {
  private FlinkWorkerJob() {}

  /** The text shown with a usage error. */
  static final String USAGE =
      "usage: flink run [-p N] firn-worker-flink-job.jar " + WorkerOptions.USAGE_OPTIONS;

  public static void main(String[] args) throws Exception {
    WorkerOptions options = WorkerOptions.parseOrExit(args, "flink", USAGE);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    define(env, options);
    env.execute(jobName(options));
  }

  /**
   * Adds the worker's pipeline to {@code env}: the slot source (parallelism {@code
   * options.slots()}, or the environment's when 0) and a sink that discards the lines of accepted
   * attempts.
   */
  public static DataStream<String> define(StreamExecutionEnvironment env, WorkerOptions options) {
    int slots = options.slots() > 0 ? options.slots() : env.getParallelism();
    DataStream<String> accepted =
        env.fromSource(new WorkerSource(options), WatermarkStrategy.noWatermarks(), "firn-slots")
            .uid("firn-slots")
            .setParallelism(slots);
    accepted.sinkTo(new DiscardingSink<>()).name("accepted-attempts").setParallelism(slots);
    return accepted;
  }

  /** {@code firn-worker <group>}. */
  public static String jobName(WorkerOptions options) {
    return "firn-worker " + options.group();
  }
}
