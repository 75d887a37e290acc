/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.protocol;

import org.jspecify.annotations.Nullable;

/**
 * The answer to a poll.
 *
 * @param protocolVersion {@link WorkerProtocol#VERSION}
 * @param task the leased task, or null when none was ready within the wait
 */
public record PollResponse(int protocolVersion, @Nullable TaskAssignment task) {
  public static PollResponse empty() {
    return new PollResponse(WorkerProtocol.VERSION, null);
  }
}
