/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.remote;

import java.time.Duration;

/**
 * How a worker presents itself and paces its polling.
 *
 * @param name for people, e.g. {@code local@host}
 * @param group the optimizer group whose tasks it takes
 * @param slots tasks run at once (threads)
 * @param engine {@code local}, {@code flink} or {@code spark}
 * @param engineVersion the engine's version
 * @param pollWait how long one poll may wait on the server
 * @param drain how long {@link Worker#close()} waits for running tasks
 */
public record WorkerSettings(
    String name,
    String group,
    int slots,
    String engine,
    String engineVersion,
    Duration pollWait,
    Duration drain) {
  public WorkerSettings {
    if (slots < 1) {
      throw new IllegalArgumentException("slots = " + slots + ": must be at least 1");
    }
    if (group == null || group.isBlank()) {
      throw new IllegalArgumentException("group must not be empty");
    }
  }

  /** A local worker in the default group. */
  public static WorkerSettings local(String name, int slots) {
    return new WorkerSettings(
        name, "default", slots, "local", version(), Duration.ofSeconds(10), Duration.ofMinutes(5));
  }

  /** Firn's version from the jar manifest, or {@code dev} when run from classes. */
  public static String version() {
    String version = WorkerSettings.class.getPackage().getImplementationVersion();
    return version == null ? "dev" : version;
  }
}
