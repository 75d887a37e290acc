/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.testkit;

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

/** A small JSON-over-HTTP client for tests that talk to a running server. */
public final class Http {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient CLIENT =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  /** A response: status, body and content type ({@code ""} when there is none). */
  public record Answer(int status, String body, String contentType) {
    /** The body as a JSON object. */
    public Map<String, Object> map() {
      return read(body, new TypeReference<>() {});
    }

    /** The body as a JSON array of objects. */
    public List<Map<String, Object>> list() {
      return read(body, new TypeReference<>() {});
    }
  }

  private Http() {}

  public static Answer get(String url) {
    return send("GET " + url, HttpRequest.newBuilder(URI.create(url)).GET());
  }

  /** POSTs a JSON body ({@code null}: empty), with the bearer token unless it is {@code null}. */
  public static Answer post(String url, String token, String body) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(url))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body == null ? "" : body));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return send("POST " + url, request);
  }

  /** GETs a JSON object; any status but 200 is an error naming it and the body. */
  public static Map<String, Object> map(String url) {
    return ok(url, get(url)).map();
  }

  /** GETs a JSON array of objects; any status but 200 is an error naming it and the body. */
  public static List<Map<String, Object>> list(String url) {
    return ok(url, get(url)).list();
  }

  private static Answer ok(String url, Answer answer) {
    if (answer.status() != 200) {
      throw new IllegalStateException(
          "GET " + url + " answered " + answer.status() + ": " + answer.body());
    }
    return answer;
  }

  private static Answer send(String what, HttpRequest.Builder request) {
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
      throw new UncheckedIOException(what, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(what + ": interrupted", e);
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
