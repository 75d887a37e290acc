/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import java.util.Locale;

/** How the events' payloads are read. */
public enum EventFormat {
  /** One JSON object per event; each event upserts its row (see {@link JsonEventRouter}). */
  JSON,
  /**
   * Debezium-style change events: {@code op} c/r/u/d with {@code before}/{@code after} images,
   * optionally inside Kafka Connect's {@code payload} envelope (see {@link DebeziumEventRouter}).
   */
  DEBEZIUM;

  /** The name used in configuration ({@code json}, {@code debezium}). */
  public String configName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
