/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

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

  /**
   * The states this one may move to. A restart is the one other move: every table that was busy
   * starts idle again ({@link OptimizingService#start()}).
   */
  Set<TableStatus> next() {
    return switch (this) {
      case IDLE -> EnumSet.of(PENDING, PLANNING);
      case PENDING -> EnumSet.of(PLANNING);
      case PLANNING -> EnumSet.of(IDLE, OPTIMIZING, PARKED);
      case OPTIMIZING -> EnumSet.of(COMMITTING, IDLE, PARKED);
      case COMMITTING -> EnumSet.of(OPTIMIZING, IDLE, PARKED);
      case PARKED -> EnumSet.of(IDLE);
    };
  }

  /**
   * Checks a move of the state machine.
   *
   * @throws IllegalStateException when {@code to} is not a state this one may move to
   */
  void checkMove(TableStatus to, String table) {
    if (to != this && !next().contains(to)) {
      throw new IllegalStateException(
          table
              + ": the optimizing state machine has no move from "
              + label()
              + " to "
              + to.label()
              + "; a bug in Firn, please report it with the server log");
    }
  }

  /** The lower-case name: what the API shows, the metrics' label and the stored value. */
  @JsonValue
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
