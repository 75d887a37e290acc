/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import org.jspecify.annotations.Nullable;

/**
 * The ingest job's configuration is invalid; the message names the file, the key and the rule. Fix
 * the file and start again.
 */
public final class InvalidIngestConfigException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public InvalidIngestConfigException(String message) {
    super(message);
  }

  public InvalidIngestConfigException(@Nullable String message, Throwable cause) {
    super(message, cause);
  }
}
