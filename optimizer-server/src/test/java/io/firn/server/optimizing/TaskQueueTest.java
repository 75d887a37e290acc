/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.core.plan.OptimizingPlan;
import io.firn.core.plan.OptimizingType;
import io.firn.core.plan.RewriteTask;
import io.firn.core.policy.PolicyFile;
import io.firn.core.table.PartitionKey;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The task queue on its own: who takes what, leases, expiry, retries and give-ups. */
class TaskQueueTest {
  private static final Instant T0 = Instant.parse("2026-06-01T00:00:00Z");
  private static final Duration LEASE = Duration.ofSeconds(60);
  private static final Duration BACKOFF = Duration.ofSeconds(10);
  private static final Map<String, PolicyFile.Group> GROUPS =
      Map.of("small", new PolicyFile.Group("small", 1), "big", new PolicyFile.Group("big", 8));

  private final OptimizingProcess process = process("p1");

  @Test
  void aWorkerTakesOnlyItsGroupsTasksAndTheAnyGroupTakesEvery() {
    TaskQueue queue = new TaskQueue();
    TaskState big = task(process, 0, "big");
    TaskState small = task(process, 1, "small");
    queue.addAll(List.of(big, small));

    assertThat(queue.take("other", GROUPS, T0)).isNull();
    assertThat(queue.take("small", GROUPS, T0)).isSameAs(small);
    assertThat(queue.take(TaskQueue.ANY_GROUP, GROUPS, T0)).isSameAs(big);
    assertThat(queue.hasPending()).isFalse();
  }

  @Test
  void aGroupAtCapacityGetsNoMoreLeasesUntilOneEnds() {
    TaskQueue queue = new TaskQueue();
    TaskState first = task(process, 0, "small");
    TaskState second = task(process, 1, "small");
    queue.addAll(List.of(first, second));
    queue.lease(queue.take("small", GROUPS, T0), "w1", T0, LEASE);

    assertThat(queue.take("small", GROUPS, T0)).as("capacity 1 is leased").isNull();
    assertThat(queue.load()).containsEntry("small", 2);
    first.status = TaskStatus.SUCCEEDED;
    assertThat(queue.take("small", GROUPS, T0)).isSameAs(second);
  }

  @Test
  void leasesNameTheAttemptAndExpireWithoutHeartbeats() {
    TaskQueue queue = new TaskQueue();
    TaskState task = task(process, 7, "big");
    queue.addAll(List.of(task));
    String attempt = queue.lease(queue.take("big", GROUPS, T0), "w1", T0, LEASE);

    assertThat(attempt).isEqualTo("p1-t7-a1");
    assertThat(queue.live(attempt)).isSameAs(task);
    assertThat(queue.runningOn("w1")).isEqualTo(1);
    assertThat(queue.runningOn("w2")).isZero();
    assertThat(queue.expired(T0.plus(LEASE))).isEmpty();
    assertThat(queue.expired(T0.plus(LEASE).plusMillis(1))).containsExactly(task);
  }

  @Test
  void aFailedAttemptIsRetriedAfterAGrowingBackOffThenGivesUp() {
    TaskQueue queue = new TaskQueue();
    TaskState task = task(process, 0, "big");
    queue.addAll(List.of(task));
    Instant now = T0;
    List<Duration> backoffs = new ArrayList<>();
    for (int attempt = 1; attempt <= 3; attempt++) {
      TaskState taken = queue.take("big", GROUPS, now);
      assertThat(taken).as("attempt %d may start at %s", attempt, now).isSameAs(task);
      String id = queue.lease(taken, "w1", now, LEASE);
      assertThat(queue.take("big", GROUPS, now)).isNull();
      backoffs.add(queue.attemptFailed(task, "boom " + attempt, 3, BACKOFF, now));
      assertThat(queue.live(id)).isNull();
      assertThat(queue.attempt(id)).as("a past attempt is still known").isSameAs(task);
      if (attempt < 3) {
        assertThat(queue.take("big", GROUPS, now)).as("backing off").isNull();
        now = now.plus(backoffs.get(attempt - 1));
      }
    }
    assertThat(backoffs).containsExactly(BACKOFF, BACKOFF.multipliedBy(2), null);
    assertThat(task.status).isEqualTo(TaskStatus.FAILED);
    assertThat(task.message).isEqualTo("boom 3");
    assertThat(queue.hasPending()).isFalse();
  }

  @Test
  void anEndedProcessLeavesNoTaskNorAttemptBehind() {
    TaskQueue queue = new TaskQueue();
    OptimizingProcess other = process("p2");
    TaskState leased = task(process, 0, "big");
    TaskState failed = task(process, 1, "big");
    TaskState waiting = task(process, 2, "big");
    TaskState kept = task(other, 0, "big");
    queue.addAll(List.of(leased, failed, waiting, kept));
    String leaseId = queue.lease(queue.take("big", GROUPS, T0), "w1", T0, LEASE);
    String failedId = queue.lease(queue.take("big", GROUPS, T0), "w1", T0, LEASE);
    queue.attemptFailed(failed, "x", 1, BACKOFF, T0);

    queue.ended(process);

    assertThat(queue.attempt(leaseId)).isNull();
    assertThat(queue.attempt(failedId)).isNull();
    assertThat(queue.pendingCount()).isEqualTo(1);
    assertThat(queue.take("big", GROUPS, T0)).isSameAs(kept);
  }

  /**
   * Random schedules of take, lease, fail, succeed, expire and end against a model: a task is in at
   * most one place (pending or one live attempt), counts agree, nothing is taken before its
   * back-off, and no group ever holds more leases than its capacity.
   */
  @Test
  void randomSchedulesKeepEveryTaskInExactlyOnePlace() {
    for (long seed = 1; seed <= 200; seed++) {
      // Spread: java.util.Random's first draws under neighbouring small seeds agree.
      Random random = new Random(new SplittableRandom(seed).nextLong());
      TaskQueue queue = new TaskQueue();
      List<TaskState> all = new ArrayList<>();
      OptimizingProcess p = process("s" + seed);
      for (int i = 0; i < 12; i++) {
        all.add(task(p, i, random.nextBoolean() ? "small" : "big"));
      }
      queue.addAll(all);
      Instant now = T0;
      for (int step = 0; step < 100; step++) {
        now = now.plusSeconds(random.nextInt(30));
        switch (random.nextInt(4)) {
          case 0 -> {
            TaskState taken = queue.take(random.nextBoolean() ? "small" : "big", GROUPS, now);
            if (taken != null) {
              assertThat(taken.notBefore == null || !taken.notBefore.isAfter(now))
                  .as("seed %d: taken during its back-off", seed)
                  .isTrue();
              queue.lease(taken, "w" + random.nextInt(3), now, LEASE);
            }
          }
          case 1 -> {
            List<TaskState> leased =
                all.stream().filter(t -> t.status == TaskStatus.LEASED).toList();
            if (!leased.isEmpty()) {
              queue.attemptFailed(leased.get(random.nextInt(leased.size())), "f", 3, BACKOFF, now);
            }
          }
          case 2 -> {
            List<TaskState> leased =
                all.stream().filter(t -> t.status == TaskStatus.LEASED).toList();
            if (!leased.isEmpty()) {
              leased.get(random.nextInt(leased.size())).status = TaskStatus.SUCCEEDED;
            }
          }
          default -> {
            for (TaskState t : queue.expired(now)) {
              queue.attemptFailed(t, "e", 3, BACKOFF, now);
            }
          }
        }
        long pending = all.stream().filter(t -> t.status == TaskStatus.PENDING).count();
        long leased = all.stream().filter(t -> t.status == TaskStatus.LEASED).count();
        assertThat(queue.pendingCount()).as("seed %d step %d", seed, step).isEqualTo(pending);
        assertThat(queue.leasedCount()).as("seed %d step %d", seed, step).isEqualTo(leased);
        long smallLeased =
            all.stream()
                .filter(t -> t.status == TaskStatus.LEASED && t.group.equals("small"))
                .count();
        assertThat(smallLeased)
            .as("seed %d: group small over capacity", seed)
            .isLessThanOrEqualTo(1);
        for (TaskState t : all) {
          if (t.status == TaskStatus.LEASED || t.status == TaskStatus.SUCCEEDED) {
            assertThat(queue.live(t.attemptId)).as("seed %d", seed).isSameAs(t);
          }
        }
      }
      queue.ended(p);
      assertThat(queue.pendingCount()).isZero();
      assertThat(queue.leasedCount()).isZero();
    }
  }

  private static OptimizingProcess process(String id) {
    TableState table = new TableState("lake", "db", "t", T0);
    OptimizingPlan plan = new OptimizingPlan("lake.db.t", 1, 1, List.of(), List.of(), "");
    return new OptimizingProcess(id, table, null, plan, T0, null);
  }

  private static TaskState task(OptimizingProcess process, int id, String group) {
    RewriteTask task =
        new RewriteTask(
            id, new PartitionKey(0, "p=" + id), OptimizingType.MINOR, List.of(), List.of(), 1);
    TaskState state = new TaskState(process, task, null, group);
    process.tasks.put(id, state);
    return state;
  }
}
