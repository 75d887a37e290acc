/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** The policy files the repository ships in {@code policies/}, for the tests that read them all. */
public final class ShippedPolicies {
  /** The directory, seen from a module's directory (tests run there). */
  public static final Path DIR = Path.of("..", "policies");

  /** Four of the shipped files, by name: a test that lists the directory expects at least these. */
  public static final List<String> KNOWN =
      List.of(
          "default.yaml",
          "cdc-lake-nightly-full.yaml",
          "append-only-logs.yaml",
          "critical-low-latency.yaml");

  private ShippedPolicies() {}

  /** Every {@code .yaml} and {@code .yml} file under {@link #DIR}, sorted. */
  public static List<Path> files() {
    try (Stream<Path> files = Files.walk(DIR)) {
      return files
          .filter(p -> p.toString().endsWith(".yaml") || p.toString().endsWith(".yml"))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot list the shipped policies in " + DIR.toAbsolutePath().normalize(), e);
    }
  }
}
