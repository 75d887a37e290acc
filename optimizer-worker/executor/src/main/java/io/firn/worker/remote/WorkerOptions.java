/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.remote;

import java.io.Serializable;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a worker runtime hosted by an engine (the Flink job, the Spark application) needs: the
 * server, its worker token, the optimizer group and how many slots. {@link Serializable}: the Flink
 * job carries it inside its job graph.
 *
 * @param server the optimizer server's application URL, e.g. {@code http://firn:8080}
 * @param token the server's {@code auth.workerToken}
 * @param group the optimizer group whose tasks the slots take
 * @param slots executor slots (Flink: parallel subtasks; Spark: tasks leased at once); 0 means the
 *     engine's default parallelism
 * @param name the name (Flink: the prefix of the names) the slots register under
 * @param drain how long stopping waits for running tasks to be handed in
 * @param pollWait how long one poll may wait on the server
 */
public record WorkerOptions(
    String server,
    String token,
    String group,
    int slots,
    String name,
    Duration drain,
    Duration pollWait)
    implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The options {@link #parse} accepts, without their {@code --}. */
  public static final Set<String> KNOWN =
      Set.of("server", "token", "group", "slots", "name", "drain-seconds", "poll-seconds");

  /** The options part of a usage text, after the engine's submit command. */
  public static final String USAGE_OPTIONS =
      "--server URL [--slots N] [--group G] [--name NAME] [--drain-seconds S] [--poll-seconds S]"
          + " [--token T]\n"
          + "  the token comes from --token or the environment variable FIRN_WORKER_TOKEN";

  public WorkerOptions {
    if (slots < 0) {
      throw new IllegalArgumentException("option --slots = " + slots + ": must be at least 1");
    }
    if (group == null || group.isBlank()) {
      throw new IllegalArgumentException("option --group must not be empty");
    }
  }

  /**
   * For a runtime's {@code main}: parses the arguments from the process environment, or prints
   * {@code error: ...} and the usage to standard error and exits with status 1.
   *
   * @param usage the runtime's usage line
   */
  public static WorkerOptions parseOrExit(String[] args, String defaultName, String usage) {
    try {
      return parse(args, System.getenv(), defaultName);
    } catch (IllegalArgumentException e) {
      System.err.println("error: " + e.getMessage());
      System.err.println(usage);
      System.exit(1);
      throw e; // not reached
    }
  }

  /**
   * Parses {@code --key value} / {@code --key=value} arguments.
   *
   * @param environment where {@code FIRN_WORKER_TOKEN} is looked up when {@code --token} is absent
   * @param defaultName the name when {@code --name} is absent (the engine's, e.g. {@code flink})
   * @throws IllegalArgumentException naming the option, its value and the rule
   */
  public static WorkerOptions parse(
      String[] args, Map<String, String> environment, String defaultName) {
    Map<String, String> values = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (!arg.startsWith("--")) {
        throw new IllegalArgumentException("unexpected argument '" + arg + "'");
      }
      String key = arg.substring(2);
      String value;
      int eq = key.indexOf('=');
      if (eq >= 0) {
        value = key.substring(eq + 1);
        key = key.substring(0, eq);
      } else if (i + 1 < args.length) {
        value = args[++i];
      } else {
        throw new IllegalArgumentException("option --" + key + " needs a value");
      }
      if (!KNOWN.contains(key)) {
        throw new IllegalArgumentException(
            "unknown option --"
                + key
                + "; known options: --"
                + String.join(", --", new TreeSet<>(KNOWN)));
      }
      values.put(key, value);
    }
    String server = values.get("server");
    if (server == null) {
      throw new IllegalArgumentException("option --server is required");
    }
    URI uri = URI.create(server);
    if (uri.getScheme() == null || !uri.getScheme().startsWith("http")) {
      throw new IllegalArgumentException(
          "option --server = '" + server + "' must be an http(s) URL of the optimizer server");
    }
    String token = values.getOrDefault("token", environment.get("FIRN_WORKER_TOKEN"));
    if (token == null || token.isBlank()) {
      throw new IllegalArgumentException(
          "no worker token: set FIRN_WORKER_TOKEN (or --token) to the server's auth.workerToken");
    }
    return new WorkerOptions(
        server,
        token,
        values.getOrDefault("group", "default"),
        number(values, "slots", 0),
        values.getOrDefault("name", defaultName),
        Duration.ofSeconds(number(values, "drain-seconds", 120)),
        Duration.ofSeconds(number(values, "poll-seconds", 20)));
  }

  private static int number(Map<String, String> values, String key, int fallback) {
    String value = values.get(key);
    if (value == null) {
      return fallback;
    }
    try {
      int number = Integer.parseInt(value);
      if (number < 0) {
        throw new NumberFormatException();
      }
      return number;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "option --" + key + " = '" + value + "' must be a whole number >= 0", e);
    }
  }

  /** Hides the token from logs and the Flink UI. */
  @Override
  public String toString() {
    return "WorkerOptions[server="
        + server
        + ", group="
        + group
        + ", slots="
        + slots
        + ", name="
        + name
        + ", drain="
        + drain
        + ", pollWait="
        + pollWait
        + "]";
  }
}
