/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.protocol;

/**
 * A worker introduces itself.
 *
 * @param protocolVersion {@link WorkerProtocol#VERSION}
 * @param name for people: host and process, e.g. {@code local@host:1234}
 * @param group the optimizer group whose tasks this worker takes
 * @param slots how many tasks it runs at once
 * @param engine {@code local}, {@code flink} or {@code spark}
 * @param engineVersion the engine's version, or Firn's for the local worker
 */
public record RegisterRequest(
    int protocolVersion,
    String name,
    String group,
    int slots,
    String engine,
    String engineVersion) {}
