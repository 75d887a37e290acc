/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.executor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class LongSequenceMapTest {

  @Test
  void keepsTheHighestSequencePerKeyLikeAHashMapThroughGrowth() {
    LongSequenceMap map = new LongSequenceMap(4);
    Map<Long, Long> reference = new HashMap<>();
    SplittableRandom random = new SplittableRandom(3);
    for (int i = 0; i < 200_000; i++) {
      long key = random.nextLong(50_000) - 25_000;
      long seq = random.nextLong(1_000);
      map.merge(key, seq);
      reference.merge(key, seq, Math::max);
    }
    assertThat(map.size()).isEqualTo(reference.size());
    reference.forEach((key, seq) -> assertThat(map.get(key)).isEqualTo(seq));
    assertThat(map.get(Long.MAX_VALUE)).isEqualTo(-1);
    assertThat(map.nullSequence()).isEqualTo(-1);
    map.mergeNull(7);
    map.mergeNull(3);
    assertThat(map.nullSequence()).isEqualTo(7);
    assertThat(map.size()).isEqualTo(reference.size() + 1);
  }

  @Test
  void sequenceZeroIsStoredAndKeyZeroWorks() {
    LongSequenceMap map = new LongSequenceMap(16);
    map.merge(0, 0);
    assertThat(map.get(0)).isZero();
    assertThat(map.get(1)).isEqualTo(-1);
  }
}
