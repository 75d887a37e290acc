/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.testkit;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;
import software.amazon.awssdk.http.SdkHttpMethod;

/**
 * Counts the HTTP requests every AWS SDK client of this JVM sends (retries included), by the part
 * of Firn that sent them (the thread's name) and the S3 operation, and the bytes of their bodies:
 * sent (the request's {@code Content-Length}) and received (the response's {@code Content-Length},
 * not counted for a {@code HEAD}; a ranged read that Iceberg abandons early transfers less).
 * Registered for all clients through the SDK's global interceptor list ({@code
 * software/amazon/awssdk/global/handlers/ execution.interceptors} in the test resources of each
 * module that counts).
 */
public final class S3Requests implements ExecutionInterceptor {
  private static final Map<String, Map<String, LongAdder>> COUNTS = new ConcurrentHashMap<>();
  private static final Map<String, LongAdder> SENT = new ConcurrentHashMap<>();
  private static final Map<String, LongAdder> RECEIVED = new ConcurrentHashMap<>();

  public S3Requests() {}

  @Override
  public void beforeTransmission(
      Context.BeforeTransmission context, ExecutionAttributes attributes) {
    String operation = attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME);
    COUNTS
        .computeIfAbsent(part(Thread.currentThread().getName()), p -> new ConcurrentHashMap<>())
        .computeIfAbsent(operation == null ? "?" : operation, o -> new LongAdder())
        .increment();
    add(SENT, context.httpRequest().firstMatchingHeader("Content-Length"));
  }

  @Override
  public void afterTransmission(Context.AfterTransmission context, ExecutionAttributes attributes) {
    // A HEAD's Content-Length is the object's, not a body that was received.
    if (context.httpRequest().method() != SdkHttpMethod.HEAD) {
      add(RECEIVED, context.httpResponse().firstMatchingHeader("Content-Length"));
    }
  }

  private static void add(Map<String, LongAdder> bytes, Optional<String> length) {
    if (length.isPresent()) {
      bytes
          .computeIfAbsent(part(Thread.currentThread().getName()), p -> new LongAdder())
          .add(Long.parseLong(length.get()));
    }
  }

  /** Requests so far: part → operation → count, sorted. */
  public static Map<String, Map<String, Long>> snapshot() {
    Map<String, Map<String, Long>> copy = new TreeMap<>();
    COUNTS.forEach(
        (part, operations) -> {
          Map<String, Long> counts = new TreeMap<>();
          operations.forEach((operation, n) -> counts.put(operation, n.sum()));
          copy.put(part, counts);
        });
    return copy;
  }

  public static long total(String part) {
    Map<String, LongAdder> operations = COUNTS.get(part);
    return operations == null ? 0 : operations.values().stream().mapToLong(LongAdder::sum).sum();
  }

  /** Body bytes the part sent (uploads). */
  public static long sentBytes(String part) {
    LongAdder bytes = SENT.get(part);
    return bytes == null ? 0 : bytes.sum();
  }

  /** Body bytes the part received (downloads). */
  public static long receivedBytes(String part) {
    LongAdder bytes = RECEIVED.get(part);
    return bytes == null ? 0 : bytes.sum();
  }

  public static void reset() {
    COUNTS.clear();
    SENT.clear();
    RECEIVED.clear();
  }

  /**
   * The part of Firn a thread belongs to: a Dropwizard request thread by its request ({@code POST
   * /api/v1/worker/complete}), others by their name without trailing numbers ({@code
   * firn-worker-slot}, {@code firn-maintenance}).
   */
  public static String part(String thread) {
    int request = thread.indexOf(" - ");
    if (thread.startsWith("dw-") && request > 0) {
      String line = thread.substring(request + 3);
      int query = line.indexOf('?');
      return "server " + (query > 0 ? line.substring(0, query) : line);
    }
    return thread.replaceAll("[-#]?\\d+$", "").replaceAll("-\\d+-thread$", "");
  }
}
