/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.server.TableRuntime;
import io.firn.server.TableSummary;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class TableHistoryTest {
  private static final Instant T0 = Instant.parse("2026-12-03T10:00:00Z");

  @Test
  void keepsPointsSpacedApartAndAlwaysTheNewestEvaluation() {
    TableHistory history = new TableHistory(10);
    assertThat(history.of("lake.db.t")).isEmpty();
    for (int second = 0; second <= 12; second++) {
      history.record(runtime("t", second, 100 - second));
    }
    // Seconds 0, 5 and 10 stay; the newest (12) replaced 11.
    assertThat(history.of("lake.db.t"))
        .extracting(TableHistory.Point::at)
        .containsExactly(T0, T0.plusSeconds(5), T0.plusSeconds(10), T0.plusSeconds(12));
    assertThat(history.of("lake.db.t")).last().extracting(TableHistory.Point::health).isEqualTo(88);
  }

  @Test
  void keepsAtMostPointsPerTableAndHistoryForTheFirstTablesOnly() {
    TableHistory history = new TableHistory(1);
    for (int i = 0; i < TableHistory.POINTS + 20; i++) {
      history.record(runtime("t", i * 10L, 50));
    }
    assertThat(history.of("lake.db.t")).hasSize(TableHistory.POINTS);
    assertThat(history.of("lake.db.t").get(0).at()).isEqualTo(T0.plusSeconds(200));
    history.record(runtime("other", 0, 50));
    assertThat(history.of("lake.db.other")).as("no room left: none kept").isNull();
    history.forget("lake.db.t");
    assertThat(history.of("lake.db.other")).as("room again").isEmpty();
  }

  private static TableRuntime runtime(String table, long second, int health) {
    return new TableRuntime(
        "lake",
        "db",
        table,
        second,
        false,
        "fine",
        T0.plusSeconds(second),
        health,
        4,
        1,
        0,
        TableSummary.of(4_000, 3_000, 4, 100, 3, 2));
  }
}
