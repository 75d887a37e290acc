package io.firn.server.it;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;

/**
 * Counts the HTTP requests every AWS SDK client of this JVM sends (retries included), by the part
 * of Firn that sent them (the thread's name) and the S3 operation. Registered for all clients
 * through the SDK's global interceptor list ({@code software/amazon/awssdk/global/handlers/
 * execution.interceptors} in the test resources).
 */
public final class S3Requests implements ExecutionInterceptor {
  private static final Map<String, Map<String, LongAdder>> COUNTS = new ConcurrentHashMap<>();

  public S3Requests() {}

  @Override
  public void beforeTransmission(
      Context.BeforeTransmission context, ExecutionAttributes attributes) {
    String operation = attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME);
    COUNTS
        .computeIfAbsent(part(Thread.currentThread().getName()), p -> new ConcurrentHashMap<>())
        .computeIfAbsent(operation == null ? "?" : operation, o -> new LongAdder())
        .increment();
  }

  /** Requests so far: part → operation → count, sorted. */
  static Map<String, Map<String, Long>> snapshot() {
    Map<String, Map<String, Long>> copy = new TreeMap<>();
    COUNTS.forEach(
        (part, operations) -> {
          Map<String, Long> counts = new TreeMap<>();
          operations.forEach((operation, n) -> counts.put(operation, n.sum()));
          copy.put(part, counts);
        });
    return copy;
  }

  static long total(String part) {
    Map<String, LongAdder> operations = COUNTS.get(part);
    return operations == null ? 0 : operations.values().stream().mapToLong(LongAdder::sum).sum();
  }

  static void reset() {
    COUNTS.clear();
  }

  /**
   * The part of Firn a thread belongs to: a Dropwizard request thread by its request ({@code POST
   * /api/v1/worker/complete}), others by their name without trailing numbers ({@code
   * firn-worker-slot}, {@code firn-maintenance}).
   */
  static String part(String thread) {
    int request = thread.indexOf(" - ");
    if (thread.startsWith("dw-") && request > 0) {
      String line = thread.substring(request + 3);
      int query = line.indexOf('?');
      return "server " + (query > 0 ? line.substring(0, query) : line);
    }
    return thread.replaceAll("[-#]?\\d+$", "").replaceAll("-\\d+-thread$", "");
  }
}
