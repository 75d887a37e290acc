/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.firn.core.protocol.PollRequest;
import io.firn.core.protocol.RegisterRequest;
import io.firn.core.protocol.WorkerNotAuthorizedException;
import io.firn.worker.remote.HttpWorkerProtocol;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * A Flink slot whose token the server refuses (401) hears of it through the gate, so that its
 * subtask fails with the server's reason instead of idling (SlotReader); against a real HTTP server
 * answering as the optimizer server's RequestGuard does.
 */
class GatedProtocolTest {
  @Test
  void aRefusalReachesTheSlotWithTheServersReason() throws Exception {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/",
        exchange -> {
          exchange.getRequestBody().readAllBytes();
          byte[] body =
              "{\"code\":401,\"message\":\"a worker token is required\"}"
                  .getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(401, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
    try {
      List<String> refusals = new CopyOnWriteArrayList<>();
      GatedProtocol gate =
          new GatedProtocol(
              new HttpWorkerProtocol(
                  URI.create("http://127.0.0.1:" + server.getAddress().getPort()), "wrong"),
              request -> {},
              refusals::add);
      assertThatThrownBy(
              () -> gate.register(new RegisterRequest(2, "w", "default", 1, "flink", "2.1")))
          .isInstanceOf(WorkerNotAuthorizedException.class);
      assertThatThrownBy(() -> gate.poll(new PollRequest(2, "w-1", "secret", 0)))
          .isInstanceOf(WorkerNotAuthorizedException.class);
      assertThat(refusals)
          .hasSize(2)
          .allSatisfy(
              r ->
                  assertThat(r)
                      .contains("answered 401: a worker token is required")
                      .contains("FIRN_WORKER_TOKEN"));
    } finally {
      server.stop(0);
    }
  }
}
