/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.it;

import io.firn.testkit.ChildProcesses;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A real Hive Metastore in its own JVM on 127.0.0.1 ({@link HiveMetastoreMain}), on this test's
 * classpath plus the metastore's server jars (DataNucleus, Derby: test scope only). Its own JVM
 * keeps the metastore's static state, threads and Derby database out of the test's and stops with
 * it (ADR 0025).
 */
final class HiveMetastoreProcess implements AutoCloseable {
  private final int port;
  private final Process process;

  HiveMetastoreProcess(Path dir) throws IOException, InterruptedException {
    port = ChildProcesses.freePort();
    Path warehouse = Files.createDirectories(dir.resolve("hive-warehouse"));
    Path log = dir.resolve("metastore.log");
    process =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx384m",
                "-Djava.io.tmpdir=" + dir,
                "-Dderby.stream.error.file=" + dir.resolve("derby.log"),
                "-cp",
                System.getProperty("java.class.path"),
                HiveMetastoreMain.class.getName(),
                Integer.toString(port),
                dir.resolve("metastore-db").toString(),
                warehouse.toUri().toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    ChildProcesses.awaitListening(process, port, log, "the Hive Metastore", 90);
  }

  /** The metastore's URI, {@code thrift://127.0.0.1:<port>}. */
  String uri() {
    return "thrift://127.0.0.1:" + port;
  }

  @Override
  public void close() {
    ChildProcesses.stop(process, "the Hive Metastore");
  }
}
