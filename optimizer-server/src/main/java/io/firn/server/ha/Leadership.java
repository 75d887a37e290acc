/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.ha;

import io.dropwizard.lifecycle.Managed;
import io.firn.server.store.WriteFence;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.InetAddress;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One replica's part in leader election (ADR 0021). Every {@code renewInterval} it takes or renews
 * the lease row ({@link LeaderLease}); the replica that holds it starts the leader side (the
 * optimizing service, the snapshot watcher, the in-process worker) and is the only one whose
 * state-store writes and Iceberg commits go through. A leader that loses the lease, or cannot renew
 * it before it has less than one renewal interval left, stops the process at once (exit status
 * {@value #EXIT_LOST}) rather than unwinding state other replicas now own: the supervisor restarts
 * it, and it comes back as a follower.
 */
public final class Leadership implements Managed {
  private static final Logger LOG = LoggerFactory.getLogger(Leadership.class);

  /** The exit status of a leader that lost its lease (EX_TEMPFAIL: restart me). */
  public static final int EXIT_LOST = 75;

  /** What this replica is now. */
  public enum Role {
    FOLLOWER,
    LEADER
  }

  private final LeaderLease lease;
  private final String me;
  private final String url;
  private final Duration ttl;
  private final Duration renew;
  private final List<Managed> leaderSide;
  private final Runnable exit;
  private final List<Managed> started = new ArrayList<>();

  private volatile Role role = Role.FOLLOWER;
  private volatile long epoch = -1;
  private volatile long validUntilNanos;
  private volatile LeaderLease.@Nullable Row last;
  private volatile boolean stopping;
  private @Nullable ScheduledExecutorService loop;

  /**
   * @param leaderSide started in order when this replica becomes the leader, stopped in reverse
   *     order when it stops
   * @param exit what a leader that lost its lease does; {@link #halt()} in servers
   */
  public Leadership(
      LeaderLease lease,
      String url,
      Duration ttl,
      Duration renew,
      List<Managed> leaderSide,
      Runnable exit,
      MeterRegistry meters) {
    this.lease = lease;
    this.me = holderName();
    this.url = url;
    this.ttl = ttl;
    this.renew = renew;
    this.leaderSide = List.copyOf(leaderSide);
    this.exit = exit;
    Gauge.builder("firn.server.leader", this, l -> l.role == Role.LEADER ? 1 : 0)
        .description("1 on the replica that holds the leader lease and optimizes, else 0")
        .register(meters);
    Gauge.builder("firn.server.leader.epoch", this, l -> l.epoch)
        .description("The epoch of this replica's lease while it leads (-1 while it follows)")
        .register(meters);
  }

  /** Stops the process at once, skipping shutdown hooks that would wait for locks. */
  public static Runnable halt() {
    return () -> {
      System.err.println(
          "firn server: lost the leader lease; stopping (exit status " + EXIT_LOST + ")");
      Runtime.getRuntime().halt(EXIT_LOST);
    };
  }

  @Override
  public void start() {
    ScheduledExecutorService executor =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread thread = new Thread(r, "firn-leader-lease");
              thread.setDaemon(true);
              return thread;
            });
    loop = executor;
    LOG.info(
        "replica {} ({}): high availability on; lease {} renewed every {}", me, url, ttl, renew);
    executor.scheduleWithFixedDelay(this::round, 0, renew.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public void stop() throws Exception {
    stopping = true;
    ScheduledExecutorService executor = loop;
    if (executor != null) {
      executor.shutdown();
      executor.awaitTermination(30, TimeUnit.SECONDS);
    }
    synchronized (started) {
      for (int i = started.size() - 1; i >= 0; i--) {
        try {
          started.get(i).stop();
        } catch (Exception e) {
          LOG.warn("stopping {} failed", started.get(i).getClass().getSimpleName(), e);
        }
      }
      started.clear();
    }
    if (role == Role.LEADER) {
      try {
        lease.release(me, epoch);
        LOG.info("replica {}: gave up the leader lease (epoch {})", me, epoch);
      } catch (SQLException e) {
        LOG.warn("replica {}: could not give up the lease; it expires in {}", me, ttl, e);
      }
    }
  }

  /** One try: renew while leading, take the lease when it is free. On the lease thread. */
  void round() {
    if (stopping) {
      return;
    }
    long before = System.nanoTime();
    LeaderLease.Row row;
    try {
      row = lease.acquire(me, url, ttl);
    } catch (SQLException | RuntimeException e) {
      if (role == Role.LEADER) {
        if (System.nanoTime() > validUntilNanos - renew.toNanos()) {
          lost("the lease could not be renewed in time: " + e.getMessage());
        } else {
          LOG.warn(
              "replica {}: renewing the leader lease failed; trying again: {}", me, e.toString());
        }
      } else {
        LOG.warn("replica {}: reading the leader lease failed: {}", me, e.toString());
      }
      return;
    }
    LeaderLease.Row previous = last;
    last = row;
    if (row.heldBy(me)) {
      if (role == Role.LEADER && row.epoch() != epoch) {
        lost("the lease changed epoch from " + epoch + " to " + row.epoch());
        return;
      }
      validUntilNanos = before + ttl.toNanos();
      if (role == Role.FOLLOWER) {
        epoch = row.epoch();
        role = Role.LEADER;
        LOG.info(
            "replica {} ({}): took the leader lease, epoch {}{}; starting to optimize",
            me,
            url,
            epoch,
            previous != null && previous.holder() != null
                ? " (after " + previous.holder() + ")"
                : "");
        startLeaderSide();
      }
    } else if (role == Role.LEADER) {
      lost("the lease is held by " + row.holder() + " under epoch " + row.epoch());
    } else if (previous == null || !java.util.Objects.equals(previous.holder(), row.holder())) {
      LOG.info(
          "replica {}: following; the leader is {}",
          me,
          row.live() ? row.holder() + " at " + row.url() + " (epoch " + row.epoch() + ")" : "none");
    }
  }

  private void startLeaderSide() {
    synchronized (started) {
      for (Managed part : leaderSide) {
        try {
          part.start();
          started.add(part);
        } catch (Exception e) {
          LOG.error("replica {}: starting {} failed", me, part.getClass().getSimpleName(), e);
          lost("the leader side did not start");
          return;
        }
      }
    }
  }

  private void lost(String why) {
    role = Role.FOLLOWER;
    LOG.error(
        "replica {}: no longer the leader ({}); stopping at once with exit status {} so that"
            + " nothing more is written or committed by this replica; its supervisor restarts it as"
            + " a follower",
        me,
        why,
        EXIT_LOST);
    exit.run();
  }

  /**
   * Whether this replica may commit to a table now: it leads and its lease has more than one
   * renewal interval left by its own monotonic clock.
   */
  public boolean mayCommit() {
    return role == Role.LEADER && System.nanoTime() < validUntilNanos - renew.toNanos();
  }

  /** The fence every state-store write checks. */
  public WriteFence fence() {
    return new WriteFence() {
      @Override
      public boolean holds(Connection c) throws SQLException {
        return role == Role.LEADER && LeaderLease.holds(c, me, epoch);
      }

      @Override
      public void refused(String what) {
        if (role == Role.LEADER) {
          lost("a state-store write (" + what + ") found the lease held by another replica");
        } else {
          LOG.error("replica {}: a follower does not write the state store; refused {}", me, what);
        }
      }
    };
  }

  public Role role() {
    return role;
  }

  /** This replica's name in the lease row. */
  public String holder() {
    return me;
  }

  /** The lease row as last read (null before the first read). */
  public LeaderLease.@Nullable Row last() {
    return last;
  }

  public long epoch() {
    return epoch;
  }

  private static String holderName() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (Exception e) {
      host = "unknown-host";
    }
    return host
        + "-"
        + ProcessHandle.current().pid()
        + "-"
        + UUID.randomUUID().toString().substring(0, 8);
  }
}
