/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.api;

import io.firn.server.ha.LeaderLease;
import io.firn.server.ha.Leadership;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.Response;
import java.net.URI;

/**
 * On a follower replica (ADR 0021), sends every API request to the leader with a {@code 307}
 * (method and body kept), or answers {@code 503} with {@code Retry-After} while no replica leads.
 * Runs before authentication and before any body is read; {@code GET /api/v1/leader} is answered by
 * every replica.
 */
@PreMatching
@Priority(Priorities.AUTHENTICATION - 100)
public final class LeaderRedirect implements ContainerRequestFilter {
  private final Leadership leadership;

  public LeaderRedirect(Leadership leadership) {
    this.leadership = leadership;
  }

  @Override
  public void filter(ContainerRequestContext request) {
    if (leadership.role() == Leadership.Role.LEADER) {
      return;
    }
    String path = request.getUriInfo().getPath(false);
    String relative = path.startsWith("/") ? path.substring(1) : path;
    if (!relative.startsWith("api/") || relative.equals("api/v1/leader")) {
      return;
    }
    LeaderLease.Row row = leadership.last();
    if (row == null || !row.live() || row.url() == null || row.heldBy(leadership.holder())) {
      request.abortWith(
          Response.fromResponse(
                  ErrorMappers.json(
                      503,
                      "no replica leads right now (a leader is being chosen); try again in a few"
                          + " seconds"))
              .header("Retry-After", "5")
              .build());
      return;
    }
    URI requested = request.getUriInfo().getRequestUri();
    String base = row.url().endsWith("/") ? row.url() : row.url() + "/";
    String query = requested.getRawQuery();
    URI location = URI.create(base + relative + (query == null ? "" : "?" + query));
    request.abortWith(
        Response.status(Response.Status.TEMPORARY_REDIRECT)
            .location(location)
            .header("Connection", request.hasEntity() ? "close" : null)
            .build());
  }
}
