/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.aws.glue.GlueCatalog;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.junit.jupiter.api.Test;

/**
 * The glue catalog type (ADR 0025) cannot be tested against AWS here. What is tested: that Firn's
 * settings build Iceberg's {@code GlueCatalog} whose requests go to {@code glue.endpoint} in the
 * configured region with the JDK's HTTP client, and that an endpoint that does not answer fails at
 * connect time, quickly and without the SDK's retries, naming catalog, endpoint and region.
 *
 * <p>Every test names the region and credentials explicitly: the SDK's default chains would ask the
 * EC2 instance metadata service, an address off this machine.
 */
class GlueCatalogTest {
  private static final String ANONYMOUS =
      "software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider";

  @Test
  void aGlueEndpointThatDoesNotAnswerFailsAtOnceNamingCatalogEndpointAndRegion() throws Exception {
    int closed = LoopbackPorts.closed();
    String endpoint = "http://127.0.0.1:" + closed;
    CatalogSettings settings = glue(endpoint);

    long start = System.nanoTime();
    assertThatThrownBy(() -> Catalogs.connect(settings))
        .isInstanceOf(CatalogConnectionException.class)
        .hasMessageStartingWith(
            "cannot connect to catalog 'aws' (glue, endpoint "
                + endpoint
                + ", region eu-west-1, catalog id 123456789012): ")
        .hasMessageContaining("Connection refused");
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(took).as("one attempt, no retries with backoff").isLessThan(Duration.ofSeconds(5));
  }

  @Test
  void aGlueEndpointThatHangsUpIsAskedOnceNotRetried() throws Exception {
    AtomicInteger connections = new AtomicInteger();
    try (ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread acceptor =
          new Thread(
              () -> {
                while (!socket.isClosed()) {
                  try (Socket accepted = socket.accept()) {
                    connections.incrementAndGet(); // and hang up at once
                  } catch (IOException closed) {
                    return;
                  }
                }
              },
              "hang-up");
      acceptor.setDaemon(true);
      acceptor.start();
      String endpoint = "http://127.0.0.1:" + socket.getLocalPort();
      assertThatThrownBy(() -> Catalogs.connect(glue(endpoint)))
          .isInstanceOf(CatalogConnectionException.class)
          .hasMessageStartingWith("cannot connect to catalog 'aws' (glue, endpoint " + endpoint);
      // The SDK's default strategy makes 3 attempts; the check makes one.
      assertThat(connections.get()).isEqualTo(1);
    }
  }

  @Test
  void theGlueCatalogSendsItsRequestsToTheEndpointInTheRegion() throws Exception {
    List<String> requests = new CopyOnWriteArrayList<>();
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/",
        exchange -> {
          String body =
              new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          requests.add(
              exchange.getRequestHeaders().getFirst("X-Amz-Target")
                  + " "
                  + body
                  + " "
                  + exchange.getRequestHeaders().getFirst("Authorization"));
          byte[] answer =
              "{\"DatabaseList\":[{\"Name\":\"db\"},{\"Name\":\"sales\"}]}"
                  .getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/x-amz-json-1.1");
          exchange.sendResponseHeaders(200, answer.length);
          exchange.getResponseBody().write(answer);
          exchange.close();
        });
    server.start();
    try {
      String endpoint = "http://127.0.0.1:" + server.getAddress().getPort();
      Catalog catalog = Catalogs.connect(glue(endpoint));
      try {
        assertThat(catalog).isInstanceOf(GlueCatalog.class);
        assertThat(((SupportsNamespaces) catalog).listNamespaces())
            .containsExactly(Namespace.of("db"), Namespace.of("sales"));
      } finally {
        ((Closeable) catalog).close();
      }
      assertThat(requests)
          .as("the connect-time check, then the catalog's own call")
          .hasSize(2)
          .allSatisfy(
              r ->
                  assertThat(r)
                      .startsWith("AWSGlue.GetDatabases ")
                      .contains("\"CatalogId\":\"123456789012\""));
    } finally {
      server.stop(0);
    }
  }

  @Test
  void glueNeedsARegionOrTheEnvironmentsAndSaysWhichProperty() throws IOException {
    int closed = LoopbackPorts.closed();
    CatalogSettings settings =
        new CatalogSettings(
            "aws",
            "glue",
            null,
            null,
            Map.of(
                "glue.endpoint", "http://127.0.0.1:" + closed, "client.region", "not a region!"));
    assertThatThrownBy(() -> Catalogs.connect(settings))
        .isInstanceOf(CatalogConnectionException.class)
        .hasMessageStartingWith(
            "cannot connect to catalog 'aws' (glue, endpoint http://127.0.0.1:"
                + closed
                + ", region not a region!)");
  }

  private static CatalogSettings glue(String endpoint) {
    return new CatalogSettings(
        "aws",
        "glue",
        null,
        null,
        Map.of(
            "glue.endpoint",
            endpoint,
            "client.region",
            "eu-west-1",
            "glue.id",
            "123456789012",
            "client.credentials-provider",
            ANONYMOUS));
  }
}
