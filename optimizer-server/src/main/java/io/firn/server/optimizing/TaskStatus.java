/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** How a rewrite task stands; labels are the lower-case names. */
public enum TaskStatus {
  /** Waiting for a worker (possibly backing off after a failed attempt). */
  PENDING,
  /** Leased to a worker; the lease expires without heartbeats. */
  LEASED,
  /** Handed in; waiting for the other tasks of its partition, then committed. */
  SUCCEEDED,
  /** Part of a committed group. */
  COMMITTED,
  /** Gave up after its attempts, or its group's commit failed. */
  FAILED,
  /** Dropped: process cancelled, or another task of its partition failed. */
  CANCELLED;

  /** The lower-case name: what the API shows, the metrics' label and the stored value. */
  @JsonValue
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
