/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.cli;

import io.firn.worker.remote.HttpWorkerProtocol;
import io.firn.worker.remote.Worker;
import io.firn.worker.remote.WorkerSettings;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code firn worker local --server URL[,URL...]}: a standalone worker JVM (several URLs: the
 * replicas of ADR 0021). Runs until stopped (SIGTERM or Ctrl-C), then stops polling and drains
 * running tasks for up to {@code --drain} before exiting. The worker token comes from {@code
 * --token} or the environment variable {@code FIRN_WORKER_TOKEN} (preferred: command lines are
 * visible to other users).
 */
final class WorkerCommand {
  private static final Set<String> OPTIONS =
      Set.of("server", "token", "slots", "group", "name", "drain-seconds");

  private WorkerCommand() {}

  static int run(String[] args, PrintStream out, PrintStream err) {
    if (args.length < 2 || !args[1].equals("local")) {
      err.println(
          "usage: firn worker local --server URL[,URL...] [--slots N] [--group G] [--name NAME]"
              + " [--drain-seconds S] [--token T]\n"
              + "  (Flink and Spark workers run as cluster jobs: bin/firn worker flink|spark --server"
              + " URL prints their submit line; docs/adr/0011)");
      return FirnCli.BAD_INPUT;
    }
    Worker worker;
    try {
      Arguments arguments = new Arguments(args, 2, OPTIONS, Set.of());
      String server = arguments.require("server");
      List<URI> servers;
      try {
        servers = HttpWorkerProtocol.servers(server);
      } catch (IllegalArgumentException e) {
        throw new Arguments.UsageException("option --server: " + e.getMessage());
      }
      String token = arguments.get("token");
      if (token == null) {
        token = System.getenv("FIRN_WORKER_TOKEN");
      }
      if (token == null || token.isBlank()) {
        throw new Arguments.UsageException(
            "no worker token: set FIRN_WORKER_TOKEN (or --token) to the server's auth.workerToken");
      }
      int slots = arguments.intValue("slots", Runtime.getRuntime().availableProcessors());
      String group = arguments.get("group", "default");
      String name = arguments.get("name");
      if (name == null) {
        name = defaultName();
      }
      int drain = arguments.intValue("drain-seconds", 300);
      WorkerSettings settings =
          new WorkerSettings(
              name,
              group,
              slots,
              "local",
              WorkerSettings.version(),
              Duration.ofSeconds(20),
              Duration.ofSeconds(drain));
      worker = new Worker(new HttpWorkerProtocol(servers, token), settings);
      out.printf("firn worker %s: %d slot(s), group %s, server %s%n", name, slots, group, server);
    } catch (IllegalArgumentException e) {
      err.println("error: " + e.getMessage());
      return FirnCli.BAD_INPUT;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Thread hook =
        new Thread(
            () -> {
              out.println("firn worker: stopping; draining running tasks");
              try {
                worker.close();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              out.printf(
                  "firn worker: stopped (%d completed, %d failed, %d abandoned)%n",
                  worker.completed(), worker.failed(), worker.abandoned());
              stopped.countDown();
            },
            "firn-worker-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    worker.start();
    try {
      while (!stopped.await(500, TimeUnit.MILLISECONDS)) {
        if (worker.refusal() != null) {
          Runtime.getRuntime().removeShutdownHook(hook);
          worker.close();
          err.println("error: " + worker.refusal());
          return FirnCli.BAD_INPUT;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return FirnCli.OK;
  }

  private static String defaultName() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      host = "localhost";
    }
    return "local@" + host + ":" + ManagementFactory.getRuntimeMXBean().getPid();
  }
}
