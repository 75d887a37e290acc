/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.firn.worker.remote.WorkerOptions;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SparkWorkerOptionsTest {
  @Test
  void defaultsAndTokenFromTheEnvironment() {
    assertThat(
            WorkerOptions.parse(
                new String[] {"--server", "http://firn:8080"},
                Map.of("FIRN_WORKER_TOKEN", "t"),
                "spark"))
        .isEqualTo(
            new WorkerOptions(
                "http://firn:8080",
                "t",
                "default",
                0,
                "spark",
                Duration.ofSeconds(120),
                Duration.ofSeconds(20)));
  }

  @Test
  void rejectsUnknownOptionsAndMissingToken() {
    assertThatThrownBy(
            () ->
                WorkerOptions.parse(
                    new String[] {"--server", "http://f", "--master", "x"}, Map.of(), "spark"))
        .hasMessage(
            "unknown option --master; known options: --drain-seconds, --group, --name,"
                + " --poll-seconds, --server, --slots, --token");
    assertThatThrownBy(
            () -> WorkerOptions.parse(new String[] {"--server", "http://f"}, Map.of(), "spark"))
        .hasMessage(
            "no worker token: set FIRN_WORKER_TOKEN (or --token) to the server's auth.workerToken");
  }

  @Test
  void aTaskThatCannotBeReadIsAFailureOutcomeNotAFailedSparkTask() {
    TaskOutcome outcome = new RewriteFunction("w-1", "[]").call("{not json");
    assertThat(outcome.complete()).isNull();
    assertThat(outcome.failure()).startsWith("com.fasterxml.jackson.core.JsonParseException");
  }
}
