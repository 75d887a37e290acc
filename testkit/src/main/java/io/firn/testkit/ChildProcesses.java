/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** The servers tests start in JVMs of their own (S3Proxy, the Hive Metastore): ports and stops. */
public final class ChildProcesses {
  private ChildProcesses() {}

  /** A port free on 127.0.0.1 now. */
  public static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  /**
   * Waits until the process accepts connections on 127.0.0.1:{@code port}.
   *
   * @throws IllegalStateException with the process's log when it ends or does not listen in time
   */
  public static void awaitListening(Process process, int port, Path log, String what, int seconds)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (!accepts(port)) {
      if (!process.isAlive() || System.nanoTime() > deadline) {
        process.destroyForcibly();
        throw new IllegalStateException(
            what + " did not start on 127.0.0.1:" + port + ": " + Files.readString(log));
      }
      Thread.sleep(100);
    }
  }

  private static boolean accepts(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** Stops the process: politely, then forcibly after 20 s. */
  public static void stop(Process process, String what) {
    process.destroy();
    try {
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    if (process.isAlive()) {
      throw new UncheckedIOException(new IOException(what + " did not stop"));
    }
  }
}
