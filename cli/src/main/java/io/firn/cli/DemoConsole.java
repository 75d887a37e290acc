/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.cli;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * {@code firn demo-console --server URL --duration SECONDS}: the live view of {@code bin/firn
 * demo}. Every few seconds it prints each table's state, health, data and delete files (with the
 * most seen so far) and its last process, read from the server's REST API. At the end it prints a
 * summary and exits 0 when the server optimized at least one table, 1 when it did not.
 */
final class DemoConsole {
  private static final Set<String> OPTIONS = Set.of("server", "metrics", "duration", "every");
  private static final TypeReference<List<Map<String, Object>>> LIST = new TypeReference<>() {};

  private final PrintStream out;
  private final HttpClient client =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final ObjectMapper json = new ObjectMapper();
  private final Map<String, Long> mostFiles = new HashMap<>();

  private DemoConsole(PrintStream out) {
    this.out = out;
  }

  static int run(String[] args, PrintStream out, PrintStream err) {
    Arguments arguments;
    try {
      arguments = new Arguments(args, 1, OPTIONS, Set.of());
      String server = arguments.require("server");
      int duration = arguments.intValue("duration", 180);
      int every = arguments.intValue("every", 5);
      return new DemoConsole(out)
          .watch(URI.create(server), arguments.get("metrics"), duration, every);
    } catch (IllegalArgumentException e) {
      err.println("error: " + e.getMessage());
      return FirnCli.BAD_INPUT;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return FirnCli.OK;
    }
  }

  private int watch(URI server, @Nullable String metrics, int durationSeconds, int everySeconds)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(durationSeconds).toNanos();
    out.printf(
        "firn demo: REST %s/api/v1/tables, metrics %s, running for %d s (Ctrl-C stops)%n",
        server, metrics == null ? "-" : metrics, durationSeconds);
    List<Map<String, Object>> tables = List.of();
    while (System.nanoTime() < deadline) {
      try {
        tables = get(server.resolve("/api/v1/tables"));
        print(tables);
      } catch (IOException e) {
        out.printf(
            "%s  waiting for the server to start (%s)%n", now(), e.getClass().getSimpleName());
      }
      Thread.sleep(Duration.ofSeconds(everySeconds).toMillis());
    }
    return summary(server, tables);
  }

  private void print(List<Map<String, Object>> tables) {
    out.printf("%n%s  %d table(s)%n", now(), tables.size());
    out.printf(
        Locale.ROOT,
        "  %-34s %-11s %6s %12s %10s %10s  %s%n",
        "table",
        "state",
        "health",
        "data (max)",
        "eq-del",
        "pos-del",
        "last process / why");
    for (Map<String, Object> t : tables) {
      String name = t.get("catalog") + "." + t.get("namespace") + "." + t.get("table");
      long data = number(t.get("dataFiles"));
      long eq = number(t.get("equalityDeleteFiles"));
      long pos = number(t.get("positionDeleteFiles"));
      long most = mostFiles.merge(name, data + eq + pos, Math::max);
      String reason = String.valueOf(t.get("reason"));
      out.printf(
          Locale.ROOT,
          "  %-34s %-11s %6s %12s %10d %10d  %s%n",
          abbreviate(name, 34),
          t.get("status"),
          t.get("health"),
          data + " (" + most + ")",
          eq,
          pos,
          abbreviate(reason, 70));
    }
  }

  private int summary(URI server, List<Map<String, Object>> tables) {
    long succeeded = 0;
    long optimizedTables = 0;
    try {
      List<Map<String, Object>> processes = get(server.resolve("/api/v1/processes?limit=1000"));
      Set<String> types = Set.of("minor", "major", "full");
      Map<String, Long> perTable = new HashMap<>();
      for (Map<String, Object> p : processes) {
        if ("succeeded".equals(p.get("status")) && types.contains(String.valueOf(p.get("type")))) {
          succeeded++;
          perTable.merge(p.get("namespace") + "." + p.get("table"), 1L, Long::sum);
        }
      }
      optimizedTables = perTable.size();
    } catch (IOException | InterruptedException e) {
      out.println("firn demo: cannot read the process history: " + e.getMessage());
    }
    out.printf(
        "%nfirn demo: %d table(s) created by the ingest job, %d optimized by %d successful"
            + " process(es)%n",
        tables.size(), optimizedTables, succeeded);
    if (succeeded == 0) {
      out.println(
          "firn demo: nothing was optimized; see the server and ingest logs in the demo directory");
      return 1;
    }
    return FirnCli.OK;
  }

  private List<Map<String, Object>> get(URI uri) throws IOException, InterruptedException {
    HttpResponse<String> response =
        client.send(
            HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException("GET " + uri + " answered " + response.statusCode());
    }
    return json.readValue(response.body(), LIST);
  }

  private static long number(@Nullable Object value) {
    return value instanceof Number n ? n.longValue() : 0;
  }

  private static String abbreviate(String text, int max) {
    return text.length() <= max ? text : text.substring(0, max - 1) + "…";
  }

  private static String now() {
    return LocalTime.now().truncatedTo(ChronoUnit.SECONDS).toString();
  }
}
