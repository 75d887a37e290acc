/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** {@code firn worker} without a runtime it starts itself: the usage names every runtime. */
class WorkerCommandTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    return new FirnCli(
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8))
        .run(args);
  }

  @Test
  void theUsageSendsFlinkAndSparkToTheirSubmitLinesAndNeverCallsThemUnbuilt() {
    for (String runtime : new String[] {"flink", "spark"}) {
      err.reset();
      assertThat(run("worker", runtime, "--server", "http://firn:8080")).isEqualTo(1);
      assertThat(err.toString(StandardCharsets.UTF_8))
          .startsWith("usage: firn worker local --server URL[,URL...]")
          .contains("Flink and Spark workers run as cluster jobs")
          .contains("bin/firn worker flink|spark --server URL prints their submit line")
          .doesNotContain("not built");
    }
    assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
  }
}
