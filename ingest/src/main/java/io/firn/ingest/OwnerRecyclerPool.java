/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.util.BufferRecycler;
import com.fasterxml.jackson.core.util.RecyclerPool;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.jspecify.annotations.Nullable;

/**
 * Jackson's buffer-recycler pool for a parser owned by one thread (an {@link EventRouter} lives in
 * one Flink subtask): it keeps the one recycler between parses. Jackson's default pool is a {@code
 * ThreadLocal}; in a Flink task thread, whose thread-local map Flink, Iceberg and Parquet fill, its
 * lookups missed their slot and cost about a tenth of the routing thread's parse time (JFR, {@code
 * bench/run-ingest.sh}).
 */
final class OwnerRecyclerPool implements RecyclerPool<BufferRecycler> {
  private static final long serialVersionUID = 1L;

  private transient @Nullable BufferRecycler pooled;

  /** A mapper whose parsers and generators use a pool of their own: one thread only. */
  static ObjectMapper mapper() {
    return new ObjectMapper(JsonFactory.builder().recyclerPool(new OwnerRecyclerPool()).build());
  }

  @Override
  public BufferRecycler acquirePooled() {
    BufferRecycler recycler = pooled;
    if (recycler == null) {
      return new BufferRecycler();
    }
    pooled = null;
    return recycler;
  }

  @Override
  public void releasePooled(BufferRecycler recycler) {
    pooled = recycler;
  }
}
