/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayDeque;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The table state machine's moves: explicit, and every state reachable and left again. */
class TableStatusTest {
  @Test
  void theMovesAreExactlyTheDocumentedOnes() {
    assertThat(TableStatus.IDLE.next())
        .containsExactlyInAnyOrder(TableStatus.PENDING, TableStatus.PLANNING);
    assertThat(TableStatus.PENDING.next()).containsExactly(TableStatus.PLANNING);
    assertThat(TableStatus.PLANNING.next())
        .containsExactlyInAnyOrder(TableStatus.IDLE, TableStatus.OPTIMIZING, TableStatus.PARKED);
    assertThat(TableStatus.OPTIMIZING.next())
        .containsExactlyInAnyOrder(TableStatus.COMMITTING, TableStatus.IDLE, TableStatus.PARKED);
    assertThat(TableStatus.COMMITTING.next())
        .containsExactlyInAnyOrder(TableStatus.OPTIMIZING, TableStatus.IDLE, TableStatus.PARKED);
    assertThat(TableStatus.PARKED.next()).containsExactly(TableStatus.IDLE);
  }

  @Test
  void everyStateIsReachableFromIdleAndLeadsBackToIt() {
    for (TableStatus start : TableStatus.values()) {
      assertThat(reachable(start)).as("from %s", start).contains(TableStatus.IDLE);
    }
    assertThat(reachable(TableStatus.IDLE)).containsExactlyInAnyOrder(TableStatus.values());
  }

  @Test
  void anIllegalMoveIsRefusedNamingTheTableAndBothStates() {
    assertThatThrownBy(() -> TableStatus.PARKED.checkMove(TableStatus.OPTIMIZING, "lake.db.t"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("lake.db.t")
        .hasMessageContaining("from parked to optimizing");
    TableStatus.IDLE.checkMove(TableStatus.IDLE, "lake.db.t");
  }

  private static Set<TableStatus> reachable(TableStatus start) {
    Set<TableStatus> seen = EnumSet.noneOf(TableStatus.class);
    ArrayDeque<TableStatus> todo = new ArrayDeque<>(start.next());
    while (!todo.isEmpty()) {
      TableStatus next = todo.poll();
      if (seen.add(next)) {
        todo.addAll(next.next());
      }
    }
    return seen;
  }
}
