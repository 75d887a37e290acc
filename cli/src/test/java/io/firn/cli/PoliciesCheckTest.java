/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code firn policies check} validates policy files offline. */
class PoliciesCheckTest {
  @TempDir Path dir;

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    return new FirnCli(
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8))
        .run(args);
  }

  @Test
  void theShippedDefaultPolicyPasses() {
    Path shipped = Path.of("..", "policies", "default.yaml");

    assertThat(run("policies", "check", shipped.toString())).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8)).startsWith(shipped + ": ok (");
    assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
  }

  @Test
  void anInvalidPolicyExitsOneNamingFileLineKeyAndRule() throws Exception {
    Path bad = dir.resolve("bad.yaml");
    Files.writeString(
        bad,
        "version: 1\n"
            + "windows:\n"
            + "  nightly:\n"
            + "    time-zone: Mars/Olympus\n"
            + "    start: \"01:00\"\n"
            + "    end: \"05:00\"\n");

    assertThat(run("policies", "check", bad.toString())).isEqualTo(FirnCli.BAD_INPUT);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .startsWith("error: " + bad)
        .contains("line 4")
        .contains("windows.nightly.time-zone")
        .contains("not a time zone");
  }

  @Test
  void aCronExpressionTheServerWouldRefuseIsRefusedOfflineToo() throws Exception {
    // Right characters in every field: only Quartz's own check, the server's, catches hour 25.
    Path bad = dir.resolve("cron.yaml");
    Files.writeString(
        bad,
        "version: 1\nwindows:\n  evening: {time-zone: UTC, cron: \"0 0 25 * * ?\", duration: 1h}\n");

    assertThat(run("policies", "check", bad.toString())).isEqualTo(FirnCli.BAD_INPUT);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains(
            bad
                + " line 3: windows.evening.cron = '0 0 25 * * ?': not a valid Quartz cron"
                + " expression: Hour values must be between 0 and 23");
  }

  @Test
  void aMissingSubcommandPrintsUsage() {
    assertThat(run("policies")).isEqualTo(FirnCli.BAD_INPUT);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .isEqualTo("usage: firn policies check FILE [FILE...]\n");
  }
}
