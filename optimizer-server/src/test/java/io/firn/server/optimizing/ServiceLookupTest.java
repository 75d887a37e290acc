/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.firn.testkit.CdcTableSpec;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The service's lookups answer an unknown table with an empty result or a named exception. */
class ServiceLookupTest {
  @TempDir Path dir;

  @Test
  void aWatchedTableIsFoundWithItsHistoryAndAnUnknownOneIsNot() throws Exception {
    // Nothing optimizes: the table stays as evaluated.
    String policy =
        "version: 1\n"
            + "defaults: {minor: {enabled: false}, major: {enabled: false}, full: {enabled: false}}\n";
    try (ServiceHarness harness = new ServiceHarness(dir, policy, Instant.now())) {
      harness.generate("events", new CdcTableSpec(100, 2, 0.1, 0.0, 0.0, 1, 5L, false, false));
      harness.evaluate("events");

      assertThat(harness.service.table("lake", "db", "events"))
          .hasValueSatisfying(t -> assertThat(t.table()).isEqualTo("events"));
      assertThat(harness.service.table("lake", "db", "missing")).isEmpty();
      assertThat(harness.service.history("lake", "db", "events"))
          .hasValueSatisfying(points -> assertThat(points).hasSize(1));
      assertThatThrownBy(() -> harness.service.history("lake", "db", "missing"))
          .isInstanceOf(UnknownTableException.class)
          .hasMessageContaining("lake.db.missing");
    }
  }
}
