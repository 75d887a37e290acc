/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import java.time.Instant;

/** A registered worker; fields guarded by the service lock. */
final class WorkerState {
  final String id;
  final String name;
  final String group;
  final int slots;
  final String engine;
  final String engineVersion;
  final String secret;
  final Instant registered;
  Instant lastSeen;

  WorkerState(
      String id,
      String name,
      String group,
      int slots,
      String engine,
      String engineVersion,
      String secret,
      Instant now) {
    this.secret = secret;
    this.id = id;
    this.name = name;
    this.group = group;
    this.slots = slots;
    this.engine = engine;
    this.engineVersion = engineVersion;
    this.registered = now;
    this.lastSeen = now;
  }

  /**
   * @param running attempts leased to this worker now
   */
  WorkerRecord record(int running) {
    return new WorkerRecord(
        id, name, group, slots, engine, engineVersion, registered, lastSeen, running);
  }
}
