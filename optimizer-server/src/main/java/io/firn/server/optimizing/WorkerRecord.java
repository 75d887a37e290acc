/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import java.time.Instant;

/**
 * A registered worker.
 *
 * @param workerId assigned at registration
 * @param name what the worker calls itself (host, process)
 * @param group the optimizer group it serves
 * @param slots tasks it runs at once
 * @param engine local, flink or spark
 * @param engineVersion the engine's version
 * @param runningTasks attempts leased to it now
 */
public record WorkerRecord(
    String workerId,
    String name,
    String group,
    int slots,
    String engine,
    String engineVersion,
    Instant registeredAt,
    Instant lastSeenAt,
    int runningTasks) {}
