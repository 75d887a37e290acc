/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import org.jspecify.annotations.Nullable;

/**
 * One event cannot be written, for a reason that lies in the event itself (ADR 0018): thrown while
 * the event is handled, it sends that event to the dead-letter table and nothing else. The routers
 * turn it into {@link Routing.Rejected}.
 */
final class RefusedRecordException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient Routing.Rejected rejected;

  RefusedRecordException(DeadLetterReason reason, String detail) {
    this(reason, detail, null);
  }

  RefusedRecordException(DeadLetterReason reason, String detail, @Nullable Throwable cause) {
    super(reason.code() + ": " + detail, cause, false, false);
    this.rejected = new Routing.Rejected(reason, detail);
  }

  /** The dead letter's reason and detail. */
  Routing.Rejected rejected() {
    return rejected;
  }
}
