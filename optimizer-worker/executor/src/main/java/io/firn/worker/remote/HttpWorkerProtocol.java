/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.remote;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.firn.core.protocol.Ack;
import io.firn.core.protocol.CompleteRequest;
import io.firn.core.protocol.FailRequest;
import io.firn.core.protocol.HeartbeatRequest;
import io.firn.core.protocol.HeartbeatResponse;
import io.firn.core.protocol.PollRequest;
import io.firn.core.protocol.PollResponse;
import io.firn.core.protocol.ProtocolException;
import io.firn.core.protocol.RegisterRequest;
import io.firn.core.protocol.RegisterResponse;
import io.firn.core.protocol.UnknownWorkerException;
import io.firn.core.protocol.WorkerNotAuthorizedException;
import io.firn.core.protocol.WorkerProtocol;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The worker protocol over HTTP: {@code POST <server>/api/v1/worker/<message>} with a JSON body and
 * {@code Authorization: Bearer <token>}. Status 410 means the server forgot this worker; other 4xx
 * answers are {@link ProtocolException}s carrying the server's message; connection failures and 5xx
 * answers are {@link WorkerUnavailableException}s the worker retries.
 */
public final class HttpWorkerProtocol implements WorkerProtocol {
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(60);

  /** How many redirects one call follows (a follower replica answers 307 to the leader). */
  private static final int MAX_REDIRECTS = 3;

  private final List<URI> servers;
  private final String token;

  /** The server calls go to: the last leader a redirect named, else one of {@link #servers}. */
  private volatile URI base;

  private int next;
  private final HttpClient client;
  private final ObjectMapper json =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  /**
   * @param server the server's application URL, e.g. {@code http://firn:8080}
   * @param token the worker token configured on the server
   */
  public HttpWorkerProtocol(URI server, String token) {
    this(List.of(server), token);
  }

  /**
   * @param servers the replicas' application URLs (ADR 0021): calls go to one of them; a follower
   *     redirects to the leader (307), and when a server does not answer or has no leader (503) the
   *     next call tries the next one
   */
  public HttpWorkerProtocol(List<URI> servers, String token) {
    if (servers.isEmpty()) {
      throw new IllegalArgumentException("no optimizer server URL");
    }
    this.servers = servers.stream().map(HttpWorkerProtocol::withSlash).toList();
    this.base = this.servers.get(0);
    this.token = token;
    this.client =
        HttpClient.newBuilder()
            .connectTimeout(CONNECT_TIMEOUT)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
  }

  /**
   * The URLs of a {@code --server} option: one or several, separated by commas.
   *
   * @throws IllegalArgumentException naming the URL that is not an http(s) URL
   */
  public static List<URI> servers(String option) {
    List<URI> servers = new ArrayList<>();
    for (String part : option.split(",", -1)) {
      String text = part.strip();
      URI uri;
      try {
        uri = URI.create(text);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("'" + text + "' is not a URL: " + e.getMessage(), e);
      }
      if (uri.getScheme() == null
          || !(uri.getScheme().equals("http") || uri.getScheme().equals("https"))
          || uri.getHost() == null) {
        throw new IllegalArgumentException(
            "'" + text + "' must be an http(s) URL of the optimizer server");
      }
      servers.add(uri);
    }
    return servers;
  }

  private static URI withSlash(URI server) {
    String text = server.toString();
    return URI.create(text.endsWith("/") ? text : text + "/");
  }

  /** The next server to try after {@code failed} did not answer. */
  private synchronized void rotate(URI failed) {
    if (!base.equals(failed)) {
      return; // another call moved on already
    }
    int at = servers.indexOf(failed);
    // A leader a redirect named that stopped answering: back to the configured list, after the
    // server that named it (which may go on naming the dead leader until its lease expires).
    next = ((at >= 0 ? at : next) + 1) % servers.size();
    base = servers.get(next);
  }

  @Override
  public RegisterResponse register(RegisterRequest request) {
    return post("register", request, RegisterResponse.class, REQUEST_TIMEOUT);
  }

  @Override
  public PollResponse poll(PollRequest request) {
    return post(
        "poll",
        request,
        PollResponse.class,
        REQUEST_TIMEOUT.plus(Duration.ofMillis(request.waitMillis())));
  }

  @Override
  public HeartbeatResponse heartbeat(HeartbeatRequest request) {
    return post("heartbeat", request, HeartbeatResponse.class, REQUEST_TIMEOUT);
  }

  @Override
  public Ack complete(CompleteRequest request) {
    return post("complete", request, Ack.class, REQUEST_TIMEOUT);
  }

  @Override
  public Ack fail(FailRequest request) {
    return post("fail", request, Ack.class, REQUEST_TIMEOUT);
  }

  private <T> T post(String message, Object body, Class<T> type, Duration timeout) {
    URI server = base;
    for (int redirects = 0; ; redirects++) {
      URI uri = server.resolve("api/v1/worker/" + message);
      HttpResponse<String> response = send(uri, body, timeout, server);
      int status = response.statusCode();
      if ((status == 307 || status == 308) && redirects < MAX_REDIRECTS) {
        URI leader = leaderOf(uri, response);
        if (leader != null) {
          server = leader;
          base = leader;
          continue;
        }
      }
      if (status == 503 || status == 502 || status == 504) {
        rotate(server);
      }
      return answer(uri, response, body, type);
    }
  }

  /** The leader's base URL from a redirect's {@code Location}, or null without one. */
  private static @Nullable URI leaderOf(URI uri, HttpResponse<String> response) {
    String location = response.headers().firstValue("Location").orElse(null);
    if (location == null) {
      return null;
    }
    String target = uri.resolve(location).toString();
    int at = target.indexOf("api/v1/worker/");
    return at < 0 ? null : URI.create(target.substring(0, at));
  }

  private HttpResponse<String> send(URI uri, Object body, Duration timeout, URI server) {
    try {
      HttpRequest request =
          HttpRequest.newBuilder(uri)
              .timeout(timeout)
              .header("Content-Type", "application/json")
              .header("Accept", "application/json")
              .header("Authorization", "Bearer " + token)
              .POST(HttpRequest.BodyPublishers.ofString(json.writeValueAsString(body)))
              .build();
      return client.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      rotate(server);
      throw new WorkerUnavailableException(
          "POST " + uri + " failed: " + e.getClass().getSimpleName() + " " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new WorkerUnavailableException("interrupted during POST " + uri, e);
    }
  }

  private <T> T answer(URI uri, HttpResponse<String> response, Object body, Class<T> type) {
    int status = response.statusCode();
    if (status == 200) {
      try {
        return json.readValue(response.body(), type);
      } catch (IOException e) {
        throw new ProtocolException(
            "POST " + uri + ": the answer is not a " + type.getSimpleName() + ": " + e, e);
      }
    }
    String detail = errorMessage(response.body());
    if (status == 410) {
      throw new UnknownWorkerException(workerId(body));
    }
    if (status == 401 || status == 403) {
      throw new WorkerNotAuthorizedException(
          "the optimizer server refuses this worker (POST "
              + uri
              + " answered "
              + status
              + ": "
              + detail
              + "); set FIRN_WORKER_TOKEN (or --token) to the server's auth.workerToken");
    }
    if (status >= 400 && status < 500) {
      throw new ProtocolException("POST " + uri + " answered " + status + ": " + detail);
    }
    throw new WorkerUnavailableException("POST " + uri + " answered " + status + ": " + detail);
  }

  private String errorMessage(String body) {
    try {
      JsonNode node = json.readTree(body);
      if (node != null && node.hasNonNull("message")) {
        return node.get("message").asText();
      }
    } catch (IOException | UncheckedIOException e) {
      // Not JSON: show it as it is.
    }
    return body == null || body.length() < 500 ? String.valueOf(body) : body.substring(0, 500);
  }

  private static String workerId(Object body) {
    if (body instanceof PollRequest poll) {
      return poll.workerId();
    }
    if (body instanceof HeartbeatRequest heartbeat) {
      return heartbeat.workerId();
    }
    if (body instanceof CompleteRequest complete) {
      return complete.workerId();
    }
    if (body instanceof FailRequest fail) {
      return fail.workerId();
    }
    return "?";
  }
}
