package io.firn.server.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A real Hive Metastore in its own JVM on 127.0.0.1 ({@link HiveMetastoreMain}), on this test's
 * classpath plus the metastore's server jars (DataNucleus, Derby: test scope only). Its own JVM
 * keeps the metastore's static state, threads and Derby database out of the test's and stops with
 * it (ADR 0025).
 */
final class HiveMetastoreProcess implements AutoCloseable {
  private final int port;
  private final Process process;
  private final Path log;

  HiveMetastoreProcess(Path dir) throws IOException, InterruptedException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    }
    Path warehouse = Files.createDirectories(dir.resolve("hive-warehouse"));
    log = dir.resolve("metastore.log");
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
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (!accepts()) {
      if (!process.isAlive() || System.nanoTime() > deadline) {
        process.destroyForcibly();
        throw new IllegalStateException(
            "the Hive Metastore did not start on 127.0.0.1:" + port + ": " + Files.readString(log));
      }
      Thread.sleep(200);
    }
  }

  /** The metastore's URI, {@code thrift://127.0.0.1:<port>}. */
  String uri() {
    return "thrift://127.0.0.1:" + port;
  }

  private boolean accepts() {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  @Override
  public void close() {
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
      throw new UncheckedIOException(new IOException("the Hive Metastore did not stop"));
    }
  }
}
