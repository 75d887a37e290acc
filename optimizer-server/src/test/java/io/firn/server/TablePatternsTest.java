/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class TablePatternsTest {
  @Test
  void starMatchesAcrossDotsAndQuestionMarkOneCharacter() {
    TablePatterns patterns = new TablePatterns(List.of("lake.*", "other.db.t?"), List.of());

    assertThat(patterns.matches("lake.db.nested.events")).isTrue();
    assertThat(patterns.matches("other.db.t1")).isTrue();
    assertThat(patterns.matches("other.db.t12")).isFalse();
  }

  @Test
  void excludeWinsAndOtherCharactersAreLiteral() {
    TablePatterns patterns = new TablePatterns(List.of("*"), List.of("lake.scratch.*", "a+b.*"));

    assertThat(patterns.matches("lake.scratch.tmp")).isFalse();
    assertThat(patterns.matches("a+b.db.t")).isFalse();
    assertThat(patterns.matches("aab.db.t")).isTrue();
    assertThat(patterns.matches("lake.db.events")).isTrue();
  }
}
