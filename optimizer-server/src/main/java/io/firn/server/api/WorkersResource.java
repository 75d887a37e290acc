/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.api;

import io.firn.server.optimizing.OptimizingService;
import io.firn.server.optimizing.WorkerRecord;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.List;

/** {@code GET /api/v1/workers}: registered workers with their slots, engine and running tasks. */
@Path("/api/v1/workers")
@Produces(MediaType.APPLICATION_JSON)
public class WorkersResource {
  private final OptimizingService service;

  public WorkersResource(OptimizingService service) {
    this.service = service;
  }

  @GET
  public List<WorkerRecord> list() {
    return service.workers();
  }
}
