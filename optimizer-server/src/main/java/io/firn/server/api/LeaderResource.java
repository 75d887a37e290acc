/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.api;

import io.firn.server.ha.LeaderLease;
import io.firn.server.ha.Leadership;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * {@code GET /api/v1/leader}: which replica leads (ADR 0021), answered by every replica. Without
 * {@code ha.enabled} the one server always leads.
 */
@Path("/api/v1/leader")
@Produces(MediaType.APPLICATION_JSON)
public class LeaderResource {
  /** What a replica knows of the lease. */
  public record LeaderView(
      boolean ha,
      String role,
      @Nullable String self,
      @Nullable String leader,
      @Nullable String leaderUrl,
      long epoch,
      @Nullable Instant expiresAt) {}

  private final @Nullable Leadership leadership;

  /**
   * @param leadership null without {@code ha.enabled}
   */
  public LeaderResource(@Nullable Leadership leadership) {
    this.leadership = leadership;
  }

  @GET
  public LeaderView get() {
    if (leadership == null) {
      return new LeaderView(false, "leader", null, null, null, 0, null);
    }
    LeaderLease.Row row = leadership.last();
    String role = leadership.role().name().toLowerCase(java.util.Locale.ROOT);
    if (row == null || !row.live()) {
      return new LeaderView(true, role, leadership.holder(), null, null, 0, null);
    }
    return new LeaderView(
        true, role, leadership.holder(), row.holder(), row.url(), row.epoch(), row.expiresAt());
  }
}
