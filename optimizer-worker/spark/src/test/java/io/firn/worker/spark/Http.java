/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.spark;

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
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient CLIENT =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  private Http() {}

  static Map<String, Object> map(String url) {
    return read(get(url), new TypeReference<>() {});
  }

  static List<Map<String, Object>> list(String url) {
    return read(get(url), new TypeReference<>() {});
  }

  private static String get(String url) {
    try {
      HttpResponse<String> response =
          CLIENT.send(
              HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60)).GET().build(),
              HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IllegalStateException(
            "GET " + url + " answered " + response.statusCode() + ": " + response.body());
      }
      return response.body();
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
