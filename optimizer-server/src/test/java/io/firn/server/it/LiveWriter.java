/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.it;

import io.firn.testkit.GeneratedTable;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/** A streaming writer: upserts into a generated table on a thread of its own while a test runs. */
final class LiveWriter {
  private final AtomicBoolean writing = new AtomicBoolean(true);
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final Thread thread;

  /**
   * Starts writing.
   *
   * @param upserts upserts per commit
   * @param deletes deletes per commit
   * @param pause between commits
   * @param commits commits at most; 0 for as many as until {@link #stop()}
   */
  LiveWriter(GeneratedTable table, int upserts, int deletes, Duration pause, int commits) {
    this.thread =
        new Thread(
            () -> {
              try {
                for (int i = 0; writing.get() && (commits == 0 || i < commits); i++) {
                  table.writer().commit(upserts, deletes);
                  Thread.sleep(pause.toMillis());
                }
              } catch (Throwable t) {
                failure.set(t);
              }
            },
            "live-writer");
    thread.setDaemon(true);
    thread.start();
  }

  /**
   * Stops after the commit under way and waits for it (30 s at most).
   *
   * @return what made the writer fail; null when nothing did
   */
  @Nullable Throwable stop() throws InterruptedException {
    writing.set(false);
    thread.join(30_000);
    return failure.get();
  }
}
