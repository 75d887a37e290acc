/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.plan;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

/**
 * Breaks the planning package's rule on purpose (reads a file, asks the system clock), so that
 * {@code CoreArchitectureTest} can show the rule fails on it. Test code only: never imported by the
 * rules that check production classes.
 */
public final class PlannerThatReadsAFile {
  private PlannerThatReadsAFile() {}

  public static long plan(Path file) throws IOException {
    return Files.size(file) + Instant.now().toEpochMilli();
  }
}
