/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.flink;

import io.firn.core.protocol.CompleteRequest;
import io.firn.worker.remote.HttpWorkerProtocol;
import io.firn.worker.remote.Worker;
import io.firn.worker.remote.WorkerOptions;
import io.firn.worker.remote.WorkerSettings;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.util.EnvironmentInformation;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One executor slot: a {@link Worker} with one slot, registered as engine {@code flink}, running
 * its tasks in its own thread (the loop's default {@code InThreadRunner}, ADR 0029). The worker
 * runs on its own threads, so the subtask's mailbox thread stays free (checkpoints, cancellation);
 * it only emits the lines of accepted attempts.
 *
 * <p>{@link #close()} (job stopped, cancelled or failed over) stops leasing and waits up to the
 * drain time for the running task to be handed in; whatever finishes later is dropped (see {@link
 * GatedProtocol}). Keep the drain time below Flink's {@code task.cancellation.timeout}.
 */
final class SlotReader implements SourceReader<String, WorkerSource.NoSplit> {
  private static final Logger LOG = LoggerFactory.getLogger(SlotReader.class);

  private final WorkerOptions options;
  private final SourceReaderContext context;
  private final ConcurrentLinkedQueue<String> accepted = new ConcurrentLinkedQueue<>();
  private CompletableFuture<Void> available = new CompletableFuture<>();
  // Made by start(); null before (Flink may close a reader it never started).
  private @Nullable GatedProtocol protocol;
  private @Nullable Worker worker;

  /** Why the server refused this worker; null while it has not. */
  private volatile @Nullable String refusal;

  SlotReader(WorkerOptions options, SourceReaderContext context) {
    this.options = options;
    this.context = context;
  }

  @Override
  public void start() {
    GatedProtocol protocol =
        new GatedProtocol(
            new HttpWorkerProtocol(HttpWorkerProtocol.servers(options.server()), options.token()),
            this::accepted,
            this::refused);
    String name =
        options.name()
            + "@"
            + host()
            + "#"
            + context.getIndexOfSubtask()
            + "/"
            + context.currentParallelism();
    WorkerSettings settings =
        new WorkerSettings(
            name,
            options.group(),
            1,
            "flink",
            EnvironmentInformation.getVersion(),
            options.pollWait(),
            // The drain happens in close() below, which keeps waiting when Flink interrupts it.
            Duration.ZERO);
    Worker worker = new Worker(protocol, settings);
    this.protocol = protocol;
    this.worker = worker;
    MetricGroup metrics = context.metricGroup().addGroup("firn");
    metrics.gauge("completedAttempts", worker::completed);
    metrics.gauge("failedAttempts", worker::failed);
    metrics.gauge("abandonedAttempts", worker::abandoned);
    metrics.gauge("runningAttempts", () -> worker.runningAttempts().size());
    LOG.info("starting Firn worker slot {} ({})", name, options);
    worker.start();
  }

  private String host() {
    String host = context.getLocalHostName();
    if (host != null && !host.isBlank()) {
      return host;
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "localhost";
    }
  }

  private void accepted(CompleteRequest request) {
    accepted.add(
        request.attemptId()
            + " accepted: "
            + request.dataFiles().size()
            + " data file(s), "
            + request.deleteFiles().size()
            + " delete file(s), "
            + (request.counts() == null ? 0 : request.counts().rowsWritten())
            + " row(s) written");
    wake();
  }

  /** The server refused this worker: the next {@link #pollNext} fails the subtask with why. */
  private void refused(String reason) {
    refusal = reason;
    wake();
  }

  /** Completes the future Flink waits on, so that it calls {@link #pollNext} again. */
  private void wake() {
    CompletableFuture<Void> future;
    synchronized (this) {
      future = available;
    }
    future.complete(null);
  }

  @Override
  public InputStatus pollNext(ReaderOutput<String> output) {
    String reason = refusal;
    if (reason != null) {
      throw new IllegalStateException(reason);
    }
    String line = accepted.poll();
    if (line == null) {
      return InputStatus.NOTHING_AVAILABLE;
    }
    output.collect(line);
    return accepted.isEmpty() ? InputStatus.NOTHING_AVAILABLE : InputStatus.MORE_AVAILABLE;
  }

  @Override
  public synchronized CompletableFuture<Void> isAvailable() {
    if (!accepted.isEmpty() || refusal != null) {
      return CompletableFuture.completedFuture(null);
    }
    if (available.isDone()) {
      available = new CompletableFuture<>();
    }
    return available;
  }

  @Override
  public List<WorkerSource.NoSplit> snapshotState(long checkpointId) {
    return List.of();
  }

  @Override
  public void addSplits(List<WorkerSource.NoSplit> splits) {}

  @Override
  public void notifyNoMoreSplits() {}

  /**
   * Stops leasing, waits up to the drain time for the running task (and a poll under way) to be
   * handed in, then stops the worker; what still runs is dropped. Flink interrupts the thread of a
   * cancelled task (first at once, then every {@code task.cancellation.interval}); the drain time
   * is kept anyway, and the interrupt is restored afterwards.
   */
  @Override
  public void close() {
    Worker worker = this.worker;
    GatedProtocol protocol = this.protocol;
    if (worker == null || protocol == null) {
      return;
    }
    LOG.info("stopping Firn worker slot; draining for up to {}", options.drain());
    protocol.stopLeasing();
    protocol.closeAfter(options.drain());
    long deadline = System.nanoTime() + options.drain().toNanos();
    boolean interrupted = false;
    while ((!worker.runningAttempts().isEmpty() || protocol.pollsInFlight() > 0)
        && System.nanoTime() - deadline < 0) {
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    List<String> dropped = worker.runningAttempts();
    try {
      worker.close();
    } catch (InterruptedException e) {
      interrupted = true;
    } finally {
      protocol.close();
      LOG.info(
          "Firn worker slot stopped: {} completed, {} failed, {} abandoned, {} dropped {}",
          worker.completed(),
          worker.failed(),
          worker.abandoned(),
          dropped.size(),
          dropped);
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
