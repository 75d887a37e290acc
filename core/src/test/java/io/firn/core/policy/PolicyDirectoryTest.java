/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.firn.core.policy.PolicyFile.WorkKind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PolicyDirectoryTest {
  @TempDir Path dir;

  @Test
  void aDirectorysFilesAreReadInNameOrderAsOnePolicy() throws IOException {
    Files.writeString(
        dir.resolve("b-rules.yaml"),
        "version: 1\nrules:\n  - name: cdc\n    match: \"lake.cdc.*\"\n    group: heavy\n"
            + "    full: {enabled: true, windows: [nightly]}\n");
    Files.writeString(
        dir.resolve("a-base.yml"),
        "version: 1\nwindows:\n  nightly: {time-zone: UTC, start: \"01:00\", end: \"05:00\"}\n"
            + "groups:\n  default: {capacity: 2}\n  heavy: {capacity: 1}\ndefaults:\n"
            + "  max-delay: 6h\n");
    Files.createDirectory(dir.resolve("examples"));
    Files.writeString(dir.resolve("examples").resolve("x.yaml"), "not: read");

    PolicyFile policy = PolicyParser.parse(dir);

    assertThat(policy.name()).isEqualTo(dir.toString());
    assertThat(policy.windows()).containsOnlyKeys("nightly");
    assertThat(policy.groups()).containsOnlyKeys("default", "heavy");
    PolicyFile.EffectivePolicy cdc = policy.resolve("lake.cdc.orders");
    assertThat(cdc.rule()).isEqualTo("cdc");
    assertThat(cdc.maxDelay()).isEqualTo(Duration.ofHours(6));
    assertThat(cdc.work(WorkKind.FULL).windows()).hasSize(1);
  }

  @Test
  void aNameDefinedInTwoFilesIsAnErrorNamingBoth() throws IOException {
    Files.writeString(
        dir.resolve("a.yaml"),
        "version: 1\nwindows:\n  nightly: {time-zone: UTC, start: \"01:00\", end: \"05:00\"}\n");
    Files.writeString(
        dir.resolve("b.yaml"),
        "version: 1\nwindows:\n  nightly: {time-zone: UTC, start: \"02:00\", end: \"05:00\"}\n");
    assertThatThrownBy(() -> PolicyParser.parse(dir))
        .isInstanceOf(InvalidPolicyException.class)
        .hasMessage(
            dir.resolve("b.yaml")
                + " line 3: windows.nightly: duplicate window name (first defined at "
                + dir.resolve("a.yaml")
                + " line 3); names are unique across a policy's files");
  }

  @Test
  void anEmptyDirectoryIsAnError() {
    assertThatThrownBy(() -> PolicyParser.parse(dir))
        .isInstanceOf(InvalidPolicyException.class)
        .hasMessage(dir + ": no policy files (*.yaml, *.yml) in the directory");
  }

  @Test
  void quartzRejectsWhatTheShapeCheckLetsThroughWithoutAServer() {
    // Right characters in every field, so only Quartz's own check (the one the server schedules
    // with) can refuse it: `policies check` and a reload must agree.
    String yaml =
        "version: 1\nwindows:\n  evening: {time-zone: UTC, cron: \"0 0 25 * * ?\", duration: 1h}\n";

    assertThatThrownBy(() -> PolicyParser.parse("p.yaml", yaml))
        .isInstanceOf(InvalidPolicyException.class)
        .hasMessage(
            "p.yaml line 3: windows.evening.cron = '0 0 25 * * ?': not a valid Quartz cron"
                + " expression: Hour values must be between 0 and 23");
  }
}
