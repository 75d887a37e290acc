package io.firn.server.optimizing;

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

  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
