/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.policy;

import io.firn.core.policy.InvalidPolicyException;
import io.firn.core.policy.PolicyFile;
import io.firn.core.policy.PolicyParser;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The policy in force, read from a policy file or a directory of them (see {@link
 * PolicyParser#parse(Path)}), with cron expressions checked by Quartz.
 *
 * <p>{@link #reload()} parses again: a valid policy replaces the current one and is passed to the
 * listeners when it differs; an invalid one is rejected with the parser's message (file, line, key,
 * rule), logged, and the previous policy stays in force. {@link #lastReload()} tells REST how the
 * last attempt went.
 *
 * <p>Thread-safe: reads are lock-free, reloads are serialized; listeners run on the reloading
 * thread, after the new policy is in force.
 */
public final class PolicyRegistry {
  private static final Logger LOG = LoggerFactory.getLogger(PolicyRegistry.class);

  private final Path path;
  private final Clock clock;
  private final List<Consumer<LoadedPolicy>> listeners = new CopyOnWriteArrayList<>();
  private volatile LoadedPolicy current;
  private volatile ReloadStatus lastReload;

  /**
   * A policy in force.
   *
   * @param policy the parsed policy
   * @param calendar its windows
   * @param loadedAt when it was loaded
   */
  public record LoadedPolicy(PolicyFile policy, WindowCalendar calendar, Instant loadedAt) {}

  /** How a reload ended. */
  public enum Outcome {
    /** A changed, valid policy is now in force. */
    LOADED,
    /** The policy is valid and equal to the one in force. */
    UNCHANGED,
    /** The policy is invalid; the previous one stays in force. */
    REJECTED
  }

  /**
   * The last reload attempt, for REST.
   *
   * @param at when it ran
   * @param outcome how it ended
   * @param error the parser's message when rejected, else null
   * @param inForceSince when the policy now in force was loaded
   */
  public record ReloadStatus(
      Instant at, Outcome outcome, @Nullable String error, Instant inForceSince) {
    /** Whether the file as it is now is valid. */
    public boolean ok() {
      return outcome != Outcome.REJECTED;
    }
  }

  /**
   * Loads the policy at {@code path}.
   *
   * @param path a policy file or a directory of them
   * @throws InvalidPolicyException when the policy is invalid: a server does not start without one
   */
  public PolicyRegistry(Path path, Clock clock) {
    this.path = path;
    this.clock = clock;
    Instant now = clock.instant();
    this.current = load(now);
    this.lastReload = new ReloadStatus(now, Outcome.LOADED, null, now);
    LOG.info("Policy {} loaded: {}", path, summary(current.policy()));
  }

  /** Parses {@code path} as the registry does (Quartz checks cron expressions). */
  public static PolicyFile parse(Path path) {
    return PolicyParser.parse(path);
  }

  /** The policy file or directory. */
  public Path path() {
    return path;
  }

  /** The policy in force with its calendar. */
  public LoadedPolicy current() {
    return current;
  }

  /** The policy in force. */
  public PolicyFile policy() {
    return current.policy();
  }

  /** The windows of the policy in force. */
  public WindowCalendar calendar() {
    return current.calendar();
  }

  /** The last reload attempt (initially, the first load). */
  public ReloadStatus lastReload() {
    return lastReload;
  }

  /**
   * Calls {@code listener} with every policy that a reload puts in force (not with the current
   * one). A listener that throws is logged and does not stop the others.
   */
  public void addListener(Consumer<LoadedPolicy> listener) {
    listeners.add(listener);
  }

  /** Parses the policy again; see the class comment. Never throws for an invalid policy. */
  public synchronized ReloadStatus reload() {
    Instant now = clock.instant();
    LoadedPolicy loaded;
    try {
      loaded = load(now);
    } catch (InvalidPolicyException e) {
      LOG.warn("Policy {} rejected, the previous one stays in force: {}", path, e.getMessage());
      lastReload = new ReloadStatus(now, Outcome.REJECTED, e.getMessage(), current.loadedAt());
      return lastReload;
    } catch (RuntimeException e) {
      String message = path + ": cannot load: " + e;
      LOG.warn("Policy {} rejected, the previous one stays in force", path, e);
      lastReload = new ReloadStatus(now, Outcome.REJECTED, message, current.loadedAt());
      return lastReload;
    }
    if (loaded.policy().equals(current.policy())) {
      lastReload = new ReloadStatus(now, Outcome.UNCHANGED, null, current.loadedAt());
      return lastReload;
    }
    current = loaded;
    lastReload = new ReloadStatus(now, Outcome.LOADED, null, now);
    LOG.info("Policy {} reloaded: {}", path, summary(loaded.policy()));
    for (Consumer<LoadedPolicy> listener : listeners) {
      try {
        listener.accept(loaded);
      } catch (RuntimeException e) {
        LOG.error("Policy listener {} failed", listener, e);
      }
    }
    return lastReload;
  }

  private LoadedPolicy load(Instant now) {
    PolicyFile policy = parse(path);
    return new LoadedPolicy(policy, WindowCalendar.of(policy), now);
  }

  private static String summary(PolicyFile policy) {
    return policy.windows().size()
        + " windows, "
        + policy.groups().size()
        + " groups, "
        + policy.rules().size()
        + " rules";
  }
}
