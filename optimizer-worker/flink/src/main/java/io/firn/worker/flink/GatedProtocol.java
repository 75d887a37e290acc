/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.flink;

import io.firn.core.protocol.Ack;
import io.firn.core.protocol.CompleteRequest;
import io.firn.core.protocol.FailRequest;
import io.firn.core.protocol.HeartbeatRequest;
import io.firn.core.protocol.HeartbeatResponse;
import io.firn.core.protocol.PollRequest;
import io.firn.core.protocol.PollResponse;
import io.firn.core.protocol.RegisterRequest;
import io.firn.core.protocol.RegisterResponse;
import io.firn.core.protocol.WorkerNotAuthorizedException;
import io.firn.core.protocol.WorkerProtocol;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The server as one slot sees it, with a gate that closes when the slot's Flink subtask ends.
 *
 * <p>Why: a cancelled Flink task leaves its threads behind in a TaskManager that keeps running. A
 * rewrite still running after the drain time must not be handed in later, when nobody heartbeats
 * its lease any more: after {@link #close()} completions are rejected here, so the worker loop
 * deletes their output, and polls lease nothing. The server's lease expires and it redoes the task.
 */
final class GatedProtocol implements WorkerProtocol, AutoCloseable {
  private final WorkerProtocol server;
  private final Consumer<CompleteRequest> accepted;
  private final Consumer<String> refused;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicInteger pollsInFlight = new AtomicInteger();
  private volatile boolean leasing = true;
  private volatile boolean draining;
  private volatile long deadline;

  /**
   * @param accepted called with every completion the server accepted
   */
  GatedProtocol(WorkerProtocol server, Consumer<CompleteRequest> accepted) {
    this(server, accepted, reason -> {});
  }

  /**
   * @param refused called with the server's reason when it refuses this worker (401/403: a wrong
   *     token), which retrying cannot fix
   */
  GatedProtocol(
      WorkerProtocol server, Consumer<CompleteRequest> accepted, Consumer<String> refused) {
    this.server = server;
    this.accepted = accepted;
    this.refused = refused;
  }

  @Override
  public RegisterResponse register(RegisterRequest request) {
    try {
      return server.register(request);
    } catch (WorkerNotAuthorizedException e) {
      refused.accept(e.getMessage());
      throw e;
    }
  }

  @Override
  public PollResponse poll(PollRequest request) {
    if (!leasing || closed()) {
      // The worker loop polls again at once; do not let it spin.
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return PollResponse.empty();
    }
    pollsInFlight.incrementAndGet();
    try {
      return server.poll(request);
    } catch (WorkerNotAuthorizedException e) {
      refused.accept(e.getMessage());
      throw e;
    } finally {
      pollsInFlight.decrementAndGet();
    }
  }

  @Override
  public HeartbeatResponse heartbeat(HeartbeatRequest request) {
    return server.heartbeat(request);
  }

  @Override
  public Ack complete(CompleteRequest request) {
    if (closed()) {
      return Ack.rejected(
          "the Flink subtask ended before attempt "
              + request.attemptId()
              + " was handed in; its lease expires and the server redoes the task");
    }
    Ack ack = server.complete(request);
    if (ack.accepted()) {
      accepted.accept(request);
    }
    return ack;
  }

  @Override
  public Ack fail(FailRequest request) {
    return server.fail(request);
  }

  /** No more polls reach the server; polls under way finish (and may lease a task). */
  void stopLeasing() {
    leasing = false;
  }

  /** Polls sent to the server and not answered yet. */
  int pollsInFlight() {
    return pollsInFlight.get();
  }

  /**
   * Closes the gate once {@code drain} has passed: before the worker loop interrupts what still
   * runs, so an interrupted rewrite cannot slip its completion through.
   */
  void closeAfter(Duration drain) {
    deadline = System.nanoTime() + drain.toNanos();
    draining = true;
  }

  /** From now on nothing is handed in and nothing is leased. */
  @Override
  public void close() {
    closed.set(true);
  }

  private boolean closed() {
    return closed.get() || (draining && System.nanoTime() - deadline >= 0);
  }
}
