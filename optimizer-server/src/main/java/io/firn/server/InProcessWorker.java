/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server;

import io.dropwizard.lifecycle.Managed;
import io.firn.core.protocol.WorkerProtocol;
import io.firn.server.optimizing.OptimizingService;
import io.firn.worker.remote.Worker;
import io.firn.worker.remote.WorkerSettings;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;

/**
 * The local worker inside the server process ({@code optimizing.localWorkerThreads}): the same
 * worker loop as a standalone worker, calling the protocol directly instead of over HTTP. It takes
 * tasks of every optimizer group.
 */
final class InProcessWorker implements Managed {
  private final Worker worker;

  InProcessWorker(WorkerProtocol protocol, int threads) {
    this.worker =
        new Worker(
            protocol,
            new WorkerSettings(
                "in-process@" + host(),
                OptimizingService.ANY_GROUP,
                threads,
                "local",
                WorkerSettings.version(),
                Duration.ofSeconds(2),
                Duration.ofSeconds(30)));
  }

  @Override
  public void start() {
    worker.start();
  }

  @Override
  public void stop() throws InterruptedException {
    worker.close();
  }

  private static String host() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "localhost";
    }
  }
}
