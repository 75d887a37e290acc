/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.protocol;

/**
 * The server's answer to a completion or failure.
 *
 * @param protocolVersion {@link WorkerProtocol#VERSION}
 * @param accepted false when the attempt is stale (the worker then deletes its output)
 * @param message why, when not accepted
 */
public record Ack(int protocolVersion, boolean accepted, String message) {
  public static Ack ok() {
    return new Ack(WorkerProtocol.VERSION, true, "accepted");
  }

  public static Ack rejected(String message) {
    return new Ack(WorkerProtocol.VERSION, false, message);
  }
}
