/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import io.firn.core.protocol.UnknownWorkerException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The registered workers: who they are, the secret each proves itself with, when each was last
 * seen, and which are gone. Persists nothing; not thread-safe (called under the service lock).
 */
final class WorkerRegistry {
  private static final Logger LOG = LoggerFactory.getLogger(WorkerRegistry.class);

  private final Map<String, WorkerState> workers = new LinkedHashMap<>();

  void add(WorkerState worker) {
    workers.put(worker.id, worker);
  }

  /** A registered worker, or null (also for a message that names none). */
  @Nullable WorkerState get(@Nullable String workerId) {
    return workerId == null ? null : workers.get(workerId);
  }

  /**
   * The registered worker that sent a message, proven by its secret.
   *
   * @throws UnknownWorkerException when no such worker is registered (it registers again)
   * @throws WorkerRefusedException when the secret does not match: a forged message
   */
  WorkerState authenticated(@Nullable String workerId, @Nullable String secret, String call) {
    WorkerState worker = get(workerId);
    if (worker == null) {
      throw new UnknownWorkerException(String.valueOf(workerId));
    }
    if (!WorkerLimits.sameSecret(worker.secret, secret)) {
      LOG.warn(
          "refused a {} message for worker {} ({}): its worker secret does not match (a forged"
              + " message from a holder of the worker token, or a worker that lost its"
              + " registration)",
          call,
          worker.id,
          worker.name);
      throw new WorkerRefusedException(
          call + ": the worker secret of " + worker.id + " does not match; register again");
    }
    return worker;
  }

  /** Forgets the workers not seen since {@code now - timeout}; returns them. */
  List<WorkerState> expire(Instant now, Duration timeout) {
    List<WorkerState> gone = new ArrayList<>();
    for (Iterator<WorkerState> it = workers.values().iterator(); it.hasNext(); ) {
      WorkerState worker = it.next();
      if (worker.lastSeen.plus(timeout).isBefore(now)) {
        LOG.info("worker {} ({}) not seen for {}; forgotten", worker.id, worker.name, timeout);
        it.remove();
        gone.add(worker);
      }
    }
    return gone;
  }

  List<WorkerState> all() {
    return List.copyOf(workers.values());
  }

  int count(String group) {
    return (int) workers.values().stream().filter(w -> w.group.equals(group)).count();
  }

  int slots(String group) {
    return workers.values().stream()
        .filter(w -> w.group.equals(group))
        .mapToInt(w -> w.slots)
        .sum();
  }
}
