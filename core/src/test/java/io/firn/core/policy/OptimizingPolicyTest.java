/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OptimizingPolicyTest {

  @Test
  void defaultsAreAmoros() {
    OptimizingPolicy p = OptimizingPolicy.DEFAULTS;
    assertThat(p.targetSize()).isEqualTo(128L << 20);
    assertThat(p.fragmentSize()).isEqualTo(16L << 20);
    assertThat(p.minTargetSize()).isEqualTo(96L << 20);
    assertThat(p.minorTriggerFileCount()).isEqualTo(12);
    assertThat(p.minorTriggerInterval()).isEqualTo(Duration.ofHours(1));
    assertThat(p.duplicateRatio()).isEqualTo(0.1);
    assertThat(p.fullByInterval()).isFalse();
  }

  @Test
  void overridesParseSizesAndDurationsAndTheTaskSizeFollowsTheTarget() {
    OptimizingPolicy p =
        OptimizingPolicy.DEFAULTS.withOverrides(
            Map.of(
                "target-size",
                "256MiB",
                "minor.trigger.interval",
                "30m",
                "full.trigger.interval",
                "1d",
                "max-process-files",
                "20000"));
    assertThat(p.targetSize()).isEqualTo(256L << 20);
    assertThat(p.maxProcessFiles()).isEqualTo(20_000);
    assertThat(OptimizingPolicy.DEFAULTS.maxProcessFiles()).isEqualTo(1_000_000);
    assertThat(p.taskCapacity()).isEqualTo(8 * (256L << 20));
    assertThat(OptimizingPolicy.DEFAULTS.maxTaskSize()).isEqualTo(8 * (128L << 20));
    OptimizingPolicy own = p.withOverrides(Map.of("max-task-size", "300MiB"));
    assertThat(own.withOverrides(Map.of("target-size", "64MiB")).maxTaskSize())
        .as("a task size set on its own stays")
        .isEqualTo(300L << 20);
    assertThat(p.minorTriggerInterval()).isEqualTo(Duration.ofMinutes(30));
    assertThat(p.fullTriggerInterval()).isEqualTo(Duration.ofDays(1));
  }

  @Test
  void aHugeTargetGivesTheLargestTaskSizeNotANegativeOne() {
    // 8 × 2 EiB overflows a long: the task size that follows the target stops at its maximum.
    OptimizingPolicy huge =
        OptimizingPolicy.DEFAULTS.withOverrides(Map.of("target-size", Long.toString(2L << 60)));
    assertThat(huge.targetSize()).isEqualTo(2L << 60);
    assertThat(huge.maxTaskSize()).isEqualTo(Long.MAX_VALUE);
    assertThat(huge.withOverrides(Map.of("target-size", "1MiB")).maxTaskSize())
        .as("still following the target")
        .isEqualTo(8L << 20);
  }

  @Test
  void unknownKeysAreRejectedWithTheKnownOnes() {
    assertThatThrownBy(() -> OptimizingPolicy.DEFAULTS.withOverrides(Map.of("target-sise", "1")))
        .isInstanceOf(InvalidPolicyException.class)
        .hasMessageStartingWith("unknown policy key(s) [target-sise]; known keys are [")
        .hasMessageContaining("target-size");
  }

  @Test
  void badValuesNameKeyValueAndRule() {
    assertThatThrownBy(() -> OptimizingPolicy.DEFAULTS.withOverrides(Map.of("target-size", "big")))
        .hasMessage(
            "policy key 'target-size' = 'big': must be a size in bytes, optionally with a unit"
                + " (e.g. 134217728, 128MiB, 1GB)");
    assertThatThrownBy(
            () ->
                OptimizingPolicy.DEFAULTS.withOverrides(
                    Map.of("major.trigger.duplicate-ratio", "1.5")))
        .hasMessage("policy key 'major.trigger.duplicate-ratio' = 1.5: must be in (0, 1]");
    // Once cast to int without a check: 4294967297 became a fragment ratio of 1.
    assertThatThrownBy(
            () -> OptimizingPolicy.DEFAULTS.withOverrides(Map.of("fragment-ratio", "4294967297")))
        .hasMessage("policy key 'fragment-ratio' = '4294967297': must be a whole number");
    assertThatThrownBy(
            () ->
                OptimizingPolicy.DEFAULTS.withOverrides(
                    Map.of("full.trigger.interval", "200000000000000d")))
        .isInstanceOf(InvalidPolicyValueException.class)
        .hasMessageStartingWith(
            "policy key 'full.trigger.interval' = '200000000000000d': too long: a duration is");
  }
}
