/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.UUID;
import org.junit.jupiter.api.Test;

class LearnedBytesPerRowTest {
  private static String table() {
    return "test-" + UUID.randomUUID();
  }

  @Test
  void anUnknownTableStartsFromTheGuessItself() {
    assertThat(LearnedBytesPerRow.share(table())).isEqualTo(1.0);
  }

  @Test
  void eachTaskCountsHalfOfWhatIsLearned() {
    String t = table();
    LearnedBytesPerRow.record(t, 90, 100);
    assertThat(LearnedBytesPerRow.share(t)).isEqualTo(0.9);
    LearnedBytesPerRow.record(t, 80, 100);
    assertThat(LearnedBytesPerRow.share(t)).isCloseTo(0.85, within(1e-9));
  }

  @Test
  void sharesStayWithinTheirBoundsAndNonsenseIsIgnored() {
    String t = table();
    LearnedBytesPerRow.record(t, 1, 1_000);
    assertThat(LearnedBytesPerRow.share(t)).isEqualTo(LearnedBytesPerRow.MIN_SHARE);
    String u = table();
    LearnedBytesPerRow.record(u, 1_000, 1);
    assertThat(LearnedBytesPerRow.share(u)).isEqualTo(LearnedBytesPerRow.MAX_SHARE);
    String v = table();
    LearnedBytesPerRow.record(v, 10, 0);
    LearnedBytesPerRow.record(v, 0, 10);
    LearnedBytesPerRow.record(v, Double.NaN, 10);
    LearnedBytesPerRow.record(v, -5, 10);
    assertThat(LearnedBytesPerRow.share(v)).isEqualTo(1.0);
  }

  @Test
  void theLeastRecentlyUsedTableIsForgottenBeyondTheBound() {
    String first = table();
    LearnedBytesPerRow.record(first, 50, 100);
    for (int i = 0; i < LearnedBytesPerRow.MAX_TABLES; i++) {
      LearnedBytesPerRow.record(table(), 70, 100);
    }
    assertThat(LearnedBytesPerRow.share(first)).isEqualTo(1.0);
  }
}
