/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tiny run of the ingest benchmark (Firn with its contract): every side commits one row per key.
 * Never timed.
 */
class IngestThroughputTest {
  @TempDir Path dir;

  @Test
  void everySideCommitsOneRowPerKey() throws Exception {
    IngestThroughput.Options options =
        new IngestThroughput.Options(2_000, 1_000, 3, 2, 1, 0, 1_000, dir, false, true, true);

    IngestThroughput.Result result = IngestThroughput.run(options);

    assertThat(result.baseline())
        .singleElement()
        .extracting(IngestThroughput.Run::rows)
        .isEqualTo(1_000L);
    assertThat(result.perTable())
        .singleElement()
        .extracting(IngestThroughput.Run::rows)
        .isEqualTo(1_000L);
    assertThat(result.firn())
        .singleElement()
        .extracting(IngestThroughput.Run::rows)
        .isEqualTo(1_000L);
    assertThat(IngestThroughput.summary(result))
        .contains("RESULT ingest: 2,000 events")
        .contains("plain FlinkSink into the same tables")
        .contains("RESULT ingest vs one table:");
  }

  @Test
  void eventsAreDeterministicAndRouteEachKeyToOneTable() {
    assertThat(IngestThroughput.Events.event(1_003, 1_000, 3))
        .isEqualTo(
            "{\"event_type\":\"t0\",\"id\":3,\"name\":\"name-3-v1\",\"amount\":251.25,\"qty\":3,"
                + "\"paid\":false,\"city\":\"city-3\"}");
  }
}
