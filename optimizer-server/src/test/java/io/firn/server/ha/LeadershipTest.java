/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dropwizard.lifecycle.Managed;
import io.firn.server.TableRuntime;
import io.firn.server.TableSummary;
import io.firn.server.optimizing.ProcessRecord;
import io.firn.server.optimizing.ProcessStatus;
import io.firn.server.store.StateStore;
import io.firn.server.store.StateStoreException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Leader election on the lease row (ADR 0021), two replicas in one JVM on one H2 store, rounds
 * driven by the test. What the kill -9 failover between server JVMs shows end to end is in {@code
 * FailoverIT}.
 */
class LeadershipTest {
  private static final Duration TTL = Duration.ofSeconds(10);
  private static final Duration RENEW = Duration.ofSeconds(2);

  private StateStore store;
  private final List<String> events = new ArrayList<>();

  @BeforeEach
  void open() {
    store = StateStore.open("jdbc:h2:mem:" + UUID.randomUUID(), null, null);
  }

  @AfterEach
  void close() {
    store.close();
  }

  private Leadership replica(String name, AtomicInteger exits) {
    Managed side =
        new Managed() {
          @Override
          public void start() {
            events.add(name + " starts");
          }

          @Override
          public void stop() {
            events.add(name + " stops");
          }
        };
    return new Leadership(
        new LeaderLease(store.dataSource()),
        "http://" + name + ":8080",
        TTL,
        RENEW,
        List.of(side),
        exits::incrementAndGet,
        new SimpleMeterRegistry());
  }

  @Test
  void oneReplicaLeadsTheOtherFollowsAndTakesOverWhenTheLeaderStops() throws Exception {
    AtomicInteger exits = new AtomicInteger();
    Leadership a = replica("a", exits);
    Leadership b = replica("b", exits);
    a.round();
    b.round();
    assertThat(a.role()).isEqualTo(Leadership.Role.LEADER);
    assertThat(a.epoch()).isEqualTo(1);
    assertThat(a.mayCommit()).isTrue();
    assertThat(b.role()).isEqualTo(Leadership.Role.FOLLOWER);
    assertThat(b.mayCommit()).isFalse();
    assertThat(b.last().holder()).isEqualTo(a.holder());
    assertThat(b.last().url()).isEqualTo("http://a:8080");
    assertThat(events).containsExactly("a starts");

    // Renewal keeps the epoch; the follower keeps following.
    a.round();
    b.round();
    assertThat(a.epoch()).isEqualTo(1);
    assertThat(b.role()).isEqualTo(Leadership.Role.FOLLOWER);

    a.stop(); // gives the lease up
    b.round();
    assertThat(b.role()).isEqualTo(Leadership.Role.LEADER);
    assertThat(b.epoch()).isEqualTo(2);
    assertThat(events).containsExactly("a starts", "a stops", "b starts");
    assertThat(exits).hasValue(0);
  }

  @Test
  void aLeaderWhoseLeaseWasTakenWritesNothingMoreAndStops() throws Exception {
    AtomicInteger aExits = new AtomicInteger();
    Leadership a = replica("a", aExits);
    Leadership b = replica("b", new AtomicInteger());
    store.fence(a.fence());
    a.round();
    store.save(runtime("before"));
    assertThat(store.loadAll()).extracting(TableRuntime::table).containsExactly("before");

    // a pauses past its lease (a long GC, a frozen VM): the lease expires and b takes it.
    expireLease();
    b.round();
    assertThat(b.role()).isEqualTo(Leadership.Role.LEADER);
    assertThat(b.epoch()).isEqualTo(2);

    // a wakes up and writes before its next round: the write (behind, on the store's writer
    // thread, ADR 0023) is refused and dropped, and a stops.
    store.save(runtime("after"));
    assertThat(store.flush(Duration.ofSeconds(10))).isTrue();
    assertThat(aExits).hasValue(1);
    assertThat(a.mayCommit()).isFalse();
    assertThat(store.loadAll()).extracting(TableRuntime::table).containsExactly("before");
  }

  @Test
  void aLeaderThatSeesAnotherHolderAtItsNextRoundStops() throws Exception {
    AtomicInteger aExits = new AtomicInteger();
    Leadership a = replica("a", aExits);
    Leadership b = replica("b", new AtomicInteger());
    a.round();
    expireLease();
    b.round();
    a.round();
    assertThat(aExits).hasValue(1);
    assertThat(a.role()).isEqualTo(Leadership.Role.FOLLOWER);
    assertThat(b.role()).isEqualTo(Leadership.Role.LEADER);
  }

  @Test
  void aFollowerDoesNotWriteTheStore() {
    Leadership a = replica("a", new AtomicInteger());
    Leadership b = replica("b", new AtomicInteger());
    a.round();
    b.round();
    store.saveProcess(running("p1"));
    assertThat(store.flush(Duration.ofSeconds(10))).isTrue();
    store.fence(b.fence());
    // Refused on the store's writer thread and dropped (ADR 0023).
    store.save(runtime("from-follower"));
    assertThat(store.flush(Duration.ofSeconds(10))).isTrue();
    assertThat(store.loadAll()).isEmpty();
    // Nor the start-up write that fails the processes left running: they are the leader's.
    assertThatThrownBy(() -> store.failRunningProcesses("restarted", Instant.now()))
        .isInstanceOf(StateStoreException.class)
        .hasMessageContaining("does not hold the leader lease");
    assertThat(store.process("p1").status()).isEqualTo(ProcessStatus.RUNNING);
  }

  private void expireLease() throws Exception {
    try (Connection c = store.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.executeUpdate("UPDATE firn_leader SET expires_at_ms = 0 WHERE id = 1");
    }
  }

  private static ProcessRecord running(String id) {
    return new ProcessRecord(
        id,
        "lake",
        "db",
        "t",
        "minor",
        "auto",
        ProcessStatus.RUNNING,
        1L,
        1,
        1,
        10,
        Instant.now(),
        null,
        "running",
        0,
        0,
        0,
        0,
        0);
  }

  private static TableRuntime runtime(String table) {
    return new TableRuntime(
        "lake", "db", table, 1L, false, "fine", Instant.now(), 100, 1, 0, 0, TableSummary.EMPTY);
  }
}
