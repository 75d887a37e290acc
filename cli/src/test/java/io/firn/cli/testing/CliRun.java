/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.cli.testing;

import io.firn.cli.FirnCli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * One run of the CLI in the test's JVM, as {@code bin/firn} runs it, with what it printed. Test
 * support published in this module's test-jar (only this package) for the server's tests that run
 * the CLI next to a server (ADR 0033).
 *
 * @param exit the exit code
 * @param out what it printed to standard output
 * @param err what it printed to standard error
 */
public record CliRun(int exit, String out, String err) {
  /** Runs {@code firn ARGS...}, capturing both streams. */
  public static CliRun of(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit;
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      exit = new FirnCli(o, e).run(args);
    }
    return new CliRun(
        exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /** Runs {@code firn ARGS...}, capturing both streams. */
  public static CliRun of(List<String> args) {
    return of(args.toArray(String[]::new));
  }
}
