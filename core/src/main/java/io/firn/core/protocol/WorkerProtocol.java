/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.protocol;

/**
 * The server side of the worker protocol, as workers see it. The server implements it directly (for
 * its in-process worker) and over HTTP ({@code POST /api/v1/worker/...}); remote workers use an
 * HTTP client implementing the same interface, so every worker runs the same loop.
 *
 * <p>Implementations are thread-safe: every slot of a worker calls them concurrently.
 */
public interface WorkerProtocol {
  /** The protocol version this build speaks; every message carries it. */
  int VERSION = 3;

  /**
   * Registers a worker.
   *
   * @throws ProtocolException when the request is invalid (version, missing fields)
   */
  RegisterResponse register(RegisterRequest request);

  /**
   * Waits up to {@code request.waitMillis()} for a task and leases it to the caller.
   *
   * @throws UnknownWorkerException when the worker id is unknown (expired or server restarted): the
   *     worker registers again
   */
  PollResponse poll(PollRequest request);

  /**
   * Extends the leases of the given attempts and tells which of them the worker must abandon.
   *
   * @throws UnknownWorkerException when the worker id is unknown
   */
  HeartbeatResponse heartbeat(HeartbeatRequest request);

  /**
   * Hands in a finished attempt. A stale attempt (lease expired, task re-leased, process cancelled)
   * is rejected with {@link Ack#accepted()} false; the worker then deletes its output.
   */
  Ack complete(CompleteRequest request);

  /** Reports a failed attempt; the server retries the task with backoff or gives up. */
  Ack fail(FailRequest request);

  /** Checks the version of a message; the same rule on both sides. */
  static void checkVersion(int version, String message) {
    if (version != VERSION) {
      throw new ProtocolException(
          message
              + ": protocol version "
              + version
              + " is not supported; this build speaks version "
              + VERSION
              + " (upgrade the server and workers together)");
    }
  }
}
