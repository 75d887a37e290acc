/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.iceberg.flink.CatalogLoader;

/** A fixed list of events as a generator function, for a rate-limited bounded test source. */
final class ListedEvents implements GeneratorFunction<Long, IngestEvent> {
  private static final long serialVersionUID = 1L;

  private final ArrayList<String> events;

  ListedEvents(List<String> events) {
    this.events = new ArrayList<>(events);
  }

  /**
   * Runs the ingest job on {@code events} (one source subtask, {@code perSecond} events a second, a
   * checkpoint every 200 ms, two routers and writers) until they are all committed.
   */
  static void runJob(
      List<String> events,
      IngestSettings settings,
      CatalogLoader loader,
      double perSecond,
      String jobName)
      throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(2);
    env.enableCheckpointing(200);
    DataGeneratorSource<IngestEvent> source =
        new DataGeneratorSource<>(
            new ListedEvents(events),
            events.size(),
            RateLimiterStrategy.perSecond(perSecond),
            TypeInformation.of(IngestEvent.class));
    IngestJob.addSink(
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "listed").setParallelism(1),
        loader,
        settings,
        Map.of());
    env.execute(jobName);
  }

  @Override
  public IngestEvent map(Long index) {
    return IngestEvent.of(events.get(Math.toIntExact(index)), "list/" + index);
  }
}
