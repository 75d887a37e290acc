/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.history;

/** A broken promise found by a history, with what kind it is (shrinking keeps the kind). */
final class HistoryFailure extends AssertionError {
  private static final long serialVersionUID = 1L;

  /** What went wrong; a shrunk schedule must fail with the same kind. */
  enum Kind {
    /** Right after a writer commit the table differs from the model: the writer is wrong. */
    WRITER_DIVERGED,
    /** After a Firn or maintenance step the table's rows differ from the model. */
    ROWS_CHANGED,
    /** A file-level rule broke: a needed delete removed, a row in the wrong partition, ... */
    FILE_INVARIANT,
    /** Firn reported an integrity failure (or an unknown commit) while the rows are intact. */
    INTEGRITY_ALARM,
    /** Firn refused a commit as FAILED for a reason that is not a conflict. */
    COMMIT_FAILED,
    /** A step threw where it must not. */
    EXCEPTION
  }

  private final Kind kind;
  private final int step;

  HistoryFailure(Kind kind, int step, String message, Throwable cause) {
    super(message, cause);
    this.kind = kind;
    this.step = step;
  }

  Kind kind() {
    return kind;
  }

  /** The 1-based index of the failing step in the schedule. */
  int step() {
    return step;
  }
}
