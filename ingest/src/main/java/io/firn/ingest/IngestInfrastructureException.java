/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

/**
 * The catalog or the table storage failed while an event was handled (ADR 0018): not the event's
 * fault, so it is not dead-lettered. The routing operator lets it fail the task and Flink restarts
 * the job from its last checkpoint, which replays the event.
 */
public final class IngestInfrastructureException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  IngestInfrastructureException(String message, Throwable cause) {
    super(message, cause);
  }
}
