/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.policy;

import io.dropwizard.lifecycle.Managed;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Polls the policy file (or the policy files of a directory) and calls {@link
 * PolicyRegistry#reload()} when their names or contents change. Polling, rather than a {@code
 * WatchService}, also sees files replaced by rename (editors, ConfigMaps) and works on every file
 * system; the files are small, so each poll hashes their contents, which also catches edits within
 * one modification-time tick.
 *
 * <p>One daemon thread; {@link #check()} may also be called directly (tests, a REST "reload now").
 */
public final class PolicyWatcher implements Managed {
  private static final Logger LOG = LoggerFactory.getLogger(PolicyWatcher.class);

  private final PolicyRegistry registry;
  private final Duration interval;
  private @Nullable ScheduledExecutorService executor;
  private byte[] fingerprint;

  /**
   * @param interval how often to look at the files, > 0
   */
  public PolicyWatcher(PolicyRegistry registry, Duration interval) {
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("policy watch interval must be > 0, was " + interval);
    }
    this.registry = registry;
    this.interval = interval;
    this.fingerprint = fingerprint(registry.path());
  }

  @Override
  public synchronized void start() {
    if (executor != null) {
      return;
    }
    fingerprint = fingerprint(registry.path());
    executor =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "firn-policy-watcher");
              t.setDaemon(true);
              return t;
            });
    long millis = interval.toMillis();
    // checkSafely logs failures; an Error ends the polling, as it should
    var unused =
        executor.scheduleWithFixedDelay(this::checkSafely, millis, millis, TimeUnit.MILLISECONDS);
  }

  @Override
  public synchronized void stop() throws InterruptedException {
    if (executor == null) {
      return;
    }
    executor.shutdownNow();
    executor.awaitTermination(10, TimeUnit.SECONDS);
    executor = null;
  }

  /**
   * Reloads when the files changed since the last check.
   *
   * @return whether they changed (and a reload ran)
   */
  public synchronized boolean check() {
    byte[] now = fingerprint(registry.path());
    if (Arrays.equals(now, fingerprint)) {
      return false;
    }
    fingerprint = now;
    registry.reload();
    return true;
  }

  private void checkSafely() {
    try {
      check();
    } catch (RuntimeException e) {
      LOG.error("Checking policy {} for changes failed", registry.path(), e);
    }
  }

  /** A hash of the policy files' names and contents; a missing file hashes as such. */
  static byte[] fingerprint(Path path) {
    MessageDigest digest;
    try {
      digest = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    List<Path> files;
    if (Files.isDirectory(path)) {
      try (Stream<Path> list = Files.list(path)) {
        files =
            list.filter(
                    p -> {
                      String n = p.getFileName().toString();
                      return n.endsWith(".yaml") || n.endsWith(".yml");
                    })
                .sorted()
                .toList();
      } catch (IOException e) {
        files = List.of();
      }
    } else {
      files = List.of(path);
    }
    for (Path file : files) {
      digest.update(file.toString().getBytes(StandardCharsets.UTF_8));
      digest.update((byte) 0);
      try {
        digest.update(Files.readAllBytes(file));
      } catch (IOException e) {
        digest.update(("unreadable: " + e.getMessage()).getBytes(StandardCharsets.UTF_8));
      }
      digest.update((byte) 0);
    }
    return digest.digest();
  }
}
