/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import java.util.List;

/**
 * Turns one raw event into what to write: usually one {@link Routing}, two for a CDC update that
 * changes the key (delete the old key, upsert the new row), none for a tombstone.
 *
 * <p>Implementations are not thread-safe: one instance per Flink subtask.
 */
public interface EventRouter {

  List<Routing> route(String payload);

  /** What to write for {@code event}; routers that care where it came from override this. */
  default List<Routing> route(IngestEvent event) {
    return route(event.payload());
  }
}
