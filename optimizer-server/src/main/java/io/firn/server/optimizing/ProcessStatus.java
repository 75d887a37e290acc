/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** How an optimizing process stands; labels are the lower-case names (metric values too). */
public enum ProcessStatus {
  RUNNING,
  /** Every partition committed. */
  SUCCEEDED,
  /** Some partitions committed, others failed or conflicted (planned again later). */
  PARTIAL,
  /** Nothing committed. */
  FAILED,
  /** Stopped by an operator or because the table went away. */
  CANCELLED;

  /** The lower-case name: what the API shows, the metrics' label and the stored value. */
  @JsonValue
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
