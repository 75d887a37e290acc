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

/**
 * The worker protocol over HTTP: {@code POST <server>/api/v1/worker/<message>} with a JSON body and
 * {@code Authorization: Bearer <token>}. Status 410 means the server forgot this worker; other 4xx
 * answers are {@link ProtocolException}s carrying the server's message; connection failures and 5xx
 * answers are {@link WorkerUnavailableException}s the worker retries.
 */
public final class HttpWorkerProtocol implements WorkerProtocol {
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(60);

  private final URI base;
  private final String token;
  private final HttpClient client;
  private final ObjectMapper json =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  /**
   * @param server the server's application URL, e.g. {@code http://firn:8080}
   * @param token the worker token configured on the server
   */
  public HttpWorkerProtocol(URI server, String token) {
    String text = server.toString();
    this.base = URI.create(text.endsWith("/") ? text : text + "/");
    this.token = token;
    this.client = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).build();
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
    URI uri = base.resolve("api/v1/worker/" + message);
    HttpResponse<String> response;
    try {
      HttpRequest request =
          HttpRequest.newBuilder(uri)
              .timeout(timeout)
              .header("Content-Type", "application/json")
              .header("Accept", "application/json")
              .header("Authorization", "Bearer " + token)
              .POST(HttpRequest.BodyPublishers.ofString(json.writeValueAsString(body)))
              .build();
      response = client.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new WorkerUnavailableException(
          "POST " + uri + " failed: " + e.getClass().getSimpleName() + " " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new WorkerUnavailableException("interrupted during POST " + uri, e);
    }
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
