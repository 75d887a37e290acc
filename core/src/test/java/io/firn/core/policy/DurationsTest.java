/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Durations and sizes as the YAML formats write them, and the values too large for Java. */
class DurationsTest {
  @Test
  void readsShortFormsIsoAndOff() {
    assertThat(Durations.parse("30s")).isEqualTo(Duration.ofSeconds(30));
    assertThat(Durations.parse(" 2d ")).isEqualTo(Duration.ofDays(2));
    assertThat(Durations.parse("PT1H")).isEqualTo(Duration.ofHours(1));
    assertThat(Durations.parse("off")).isEqualTo(Duration.ofMillis(-1));
  }

  @Test
  void overflowIsAnIllegalArgumentNotAnArithmeticException() {
    // Once an ArithmeticException that escaped PolicyParser as a raw exception.
    assertThatThrownBy(() -> Durations.parse("200000000000000d"))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("too long: a duration is at most about 292 billion years");
    assertThatThrownBy(() -> Durations.parse("99999999999999999999ms"))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("too long");
    assertThat(Durations.parse("106751991167300d")).isEqualTo(Duration.ofDays(106751991167300L));
  }

  @Test
  void sizesOfEightExbibytesOrMoreAreRejectedNotClamped() {
    assertThat(Sizes.parse("128MiB")).isEqualTo(128L << 20);
    assertThat(Sizes.parse("1023TiB")).isEqualTo(1023L << 40);
    assertThatThrownBy(() -> Sizes.parse("8388608TiB"))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("too large: a size is at most 9223372036854775807 bytes (8 EiB)");
  }
}
