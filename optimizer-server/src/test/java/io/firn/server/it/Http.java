/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.it;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** A small JSON-over-HTTP client for the tests. */
final class Http {
  static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient CLIENT =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  /** A response: status and body. */
  record Answer(int status, String body, String contentType) {
    Map<String, Object> map() {
      return read(body, new TypeReference<>() {});
    }

    List<Map<String, Object>> list() {
      return read(body, new TypeReference<>() {});
    }
  }

  private Http() {}

  static Answer get(String url) {
    return send(HttpRequest.newBuilder(URI.create(url)).GET());
  }

  static Answer post(String url, String token, String body) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(url))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body == null ? "" : body));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return send(request);
  }

  private static Answer send(HttpRequest.Builder request) {
    try {
      HttpResponse<String> response =
          CLIENT.send(
              request.timeout(Duration.ofSeconds(60)).build(),
              HttpResponse.BodyHandlers.ofString());
      return new Answer(
          response.statusCode(),
          response.body(),
          response.headers().firstValue("Content-Type").orElse(""));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static <T> T read(String body, TypeReference<T> type) {
    try {
      return JSON.readValue(body, type);
    } catch (IOException e) {
      throw new UncheckedIOException("not the JSON expected: " + body, e);
    }
  }
}
