/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.firn.core.protocol.RegisterRequest;
import io.firn.core.protocol.RegisterResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The worker's side of several server replicas (ADR 0021), against real HTTP servers: a follower's
 * 307 is followed with the body kept, a server that does not answer moves the next call to the next
 * URL, and a dead leader a redirect named is dropped for the configured list.
 */
class HttpWorkerProtocolTest {
  private static final RegisterRequest REGISTER =
      new RegisterRequest(2, "w", "default", 1, "local", "test");

  private final List<HttpServer> servers = new CopyOnWriteArrayList<>();
  private final List<String> heard = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() {
    servers.forEach(s -> s.stop(0));
  }

  /** A leader answering register with a worker id naming it, after checking the body arrived. */
  private URI leader(String name) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/api/v1/worker/",
        exchange -> {
          String body =
              new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          heard.add(name + " " + exchange.getRequestURI().getPath());
          int status = body.contains("\"name\":\"w\"") ? 200 : 400;
          byte[] answer =
              ("{\"protocolVersion\":3,\"workerId\":\""
                      + name
                      + "-w\",\"workerSecret\":\"s\","
                      + "\"catalogs\":[],\"leaseMillis\":30000,\"heartbeatMillis\":5000}")
                  .getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(status, answer.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(answer);
          }
        });
    server.start();
    servers.add(server);
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  /** A follower sending every call to {@code leader} with a 307. */
  private URI follower(String name, URI leader) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/",
        exchange -> {
          exchange.getRequestBody().readAllBytes();
          heard.add(name + " " + exchange.getRequestURI().getPath());
          exchange
              .getResponseHeaders()
              .add("Location", leader + exchange.getRequestURI().getPath());
          exchange.sendResponseHeaders(307, -1);
          exchange.close();
        });
    server.start();
    servers.add(server);
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  @Test
  void aFollowersRedirectIsFollowedWithTheBodyAndRemembered() throws Exception {
    URI a = leader("a");
    URI b = follower("b", a);
    HttpWorkerProtocol protocol = new HttpWorkerProtocol(List.of(b, a), "token");
    RegisterResponse first = protocol.register(REGISTER);
    assertThat(first.workerId()).isEqualTo("a-w");
    RegisterResponse second = protocol.register(REGISTER);
    assertThat(second.workerId()).isEqualTo("a-w");
    assertThat(heard)
        .containsExactly(
            "b /api/v1/worker/register", "a /api/v1/worker/register", "a /api/v1/worker/register");
  }

  @Test
  void aServerThatDoesNotAnswerMovesTheNextCallToTheNextUrl() throws Exception {
    URI dead = URI.create("http://127.0.0.1:" + freePort());
    URI b = leader("b");
    HttpWorkerProtocol protocol = new HttpWorkerProtocol(List.of(dead, b), "token");
    assertThatThrownBy(() -> protocol.register(REGISTER))
        .isInstanceOf(WorkerUnavailableException.class)
        .hasMessageContaining(dead.toString());
    assertThat(protocol.register(REGISTER).workerId()).isEqualTo("b-w");
  }

  @Test
  void aDeadLeaderThatARedirectNamedIsDroppedForTheConfiguredList() throws Exception {
    URI a = leader("a");
    URI b = follower("b", a);
    URI c = leader("c");
    HttpWorkerProtocol protocol = new HttpWorkerProtocol(List.of(b, c), "token");
    assertThat(protocol.register(REGISTER).workerId()).isEqualTo("a-w");
    servers.get(0).stop(0); // a dies
    assertThatThrownBy(() -> protocol.register(REGISTER))
        .isInstanceOf(WorkerUnavailableException.class)
        .hasMessageContaining(a.toString());
    // Back to the list after b, which named the dead leader (and may go on naming it).
    assertThat(protocol.register(REGISTER).workerId()).isEqualTo("c-w");
  }

  @Test
  void serverOptionsAreCommaSeparatedHttpUrls() {
    assertThat(HttpWorkerProtocol.servers("http://a:8080, https://b:8443/"))
        .containsExactly(URI.create("http://a:8080"), URI.create("https://b:8443/"));
    assertThatThrownBy(() -> HttpWorkerProtocol.servers("http://a:8080,b:8080"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'b:8080' must be an http(s) URL");
    assertThatThrownBy(() -> HttpWorkerProtocol.servers("http://a:8080,"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
