/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.core.table.PartitionKey;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How many files a task's output is split into: {@link RewriteTask#outputFiles}. */
class OutputFilesTest {
  private static final long T = 1_000_000;
  private static final long MIN = 750_000;

  @Test
  void atMostOneTargetIsOneFile() {
    assertThat(RewriteTask.outputFiles(1, T, MIN)).isEqualTo(1);
    assertThat(RewriteTask.outputFiles(T, T, MIN)).isEqualTo(1);
  }

  @Test
  void everyFileIsWithinTheBoundsWheneverSomeCountFits() {
    for (long bytes = T; bytes <= 40 * T; bytes += 7_919) {
      long fewest = (bytes + T - 1) / T;
      long most = bytes / MIN;
      long n = RewriteTask.outputFiles(bytes, T, MIN);
      if (fewest <= most) {
        assertThat((double) bytes / n)
            .as("%d bytes in %d files", bytes, n)
            .isBetween((double) MIN, (double) T);
      }
    }
  }

  @Test
  void whereNoCountFitsFilesStayAboveTheLowerBoundRatherThanBelow() {
    // 1.3 targets: one file of 1.3 T is a segment; two of 0.65 T would be merged again.
    assertThat(RewriteTask.outputFiles(1_300_000, T, MIN)).isEqualTo(1);
    // 2.1 targets: two files of 1.05 T, not three of 0.7 T.
    assertThat(RewriteTask.outputFiles(2_100_000, T, MIN)).isEqualTo(2);
  }

  @Test
  void filesAimAtTheMiddleOfTheRange() {
    // 10 targets fit in 10 to 13 files; 875 000 bytes each (11.4) is the middle, 11 is nearest.
    assertThat(RewriteTask.outputFiles(10 * T, T, MIN)).isEqualTo(11);
  }

  @Test
  void aTaskWithoutRewritesWritesNoFile() {
    RewriteTask convertOnly =
        new RewriteTask(
            0, new PartitionKey(0, ""), OptimizingType.MINOR, List.of(), List.of(), T, MIN);
    assertThat(convertOnly.estimatedOutputFiles()).isZero();
  }
}
