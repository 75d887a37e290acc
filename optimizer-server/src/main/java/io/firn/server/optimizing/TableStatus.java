package io.firn.server.optimizing;

import java.util.Locale;

/** Where a table is in the optimizing state machine; labels are the lower-case names. */
public enum TableStatus {
  /** Nothing running; due or not. */
  IDLE,
  /** Due, waiting for a process slot. */
  PENDING,
  /** Its files are being read and a plan made. */
  PLANNING,
  /** A process runs: tasks are pending or leased to workers. */
  OPTIMIZING,
  /** A process is committing finished groups. */
  COMMITTING,
  /** Failed repeatedly; tried again after its parked time, with the reason shown. */
  PARKED;

  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses a stored label; unknown labels (a newer version's) read as idle. */
  static TableStatus parse(String label) {
    for (TableStatus status : values()) {
      if (status.label().equals(label)) {
        return status;
      }
    }
    return IDLE;
  }
}
