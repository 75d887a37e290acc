/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.jspecify.annotations.Nullable;

/**
 * The built-in generator's realistic stream ({@code profile: stream}): {@link EventStream} as a
 * Flink generator function; event {@code i}'s source position is {@code generator/i}.
 */
public final class StreamEvents implements GeneratorFunction<Long, IngestEvent> {
  private static final long serialVersionUID = 1L;

  private final EventStream.Settings settings;
  private transient @Nullable EventStream stream;

  public StreamEvents(EventStream.Settings settings) {
    this.settings = settings;
  }

  @Override
  public IngestEvent map(Long index) {
    if (stream == null) {
      stream = new EventStream(settings);
    }
    return IngestEvent.of(stream.event(index), "generator/" + index);
  }
}
