/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.deploy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs {@code promtool} (Debian package {@code prometheus}; {@code .ci/run} installs it). */
final class Promtool {
  /** Exit code and combined output of one run. */
  record Result(int exitCode, String output) {
    boolean ok() {
      return exitCode == 0;
    }
  }

  private Promtool() {}

  static Path binary() {
    return executable("promtool");
  }

  /** {@code /usr/bin/NAME} when there, else NAME on the PATH. */
  static Path executable(String name) {
    Path debian = Path.of("/usr/bin", name);
    return Files.isExecutable(debian) ? debian : Path.of(name);
  }

  static Result run(Path workingDirectory, String stdin, String... arguments) {
    List<String> command = new ArrayList<>();
    command.add(binary().toString());
    command.addAll(List.of(arguments));
    try {
      Process process =
          new ProcessBuilder(command)
              .directory(workingDirectory.toFile())
              .redirectErrorStream(true)
              .start();
      try (OutputStream in = process.getOutputStream()) {
        if (stdin != null) {
          in.write(stdin.getBytes(StandardCharsets.UTF_8));
        }
      }
      String output;
      try (InputStream out = process.getInputStream()) {
        output = new String(out.readAllBytes(), StandardCharsets.UTF_8);
      }
      if (!process.waitFor(120, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException("promtool did not finish: " + command);
      }
      return new Result(process.exitValue(), output);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot run " + command + " (install the Debian package 'prometheus')", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
