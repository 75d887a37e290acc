/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.api;

import io.firn.server.optimizing.ProcessRecord;
import io.firn.server.optimizing.TaskRecord;
import io.firn.server.store.StateStore;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;

/** {@code /api/v1/processes}: optimizing history, newest first, and the tasks of one process. */
@Path("/api/v1/processes")
@Produces(MediaType.APPLICATION_JSON)
public class ProcessesResource {
  /** A process with its tasks. */
  public record ProcessDetail(ProcessRecord process, List<TaskRecord> tasks) {}

  private final StateStore store;

  public ProcessesResource(StateStore store) {
    this.store = store;
  }

  /**
   * @param table {@code catalog.namespace.table} to show one table's processes; all when absent
   */
  @GET
  public List<ProcessRecord> list(
      @QueryParam("table") String table, @QueryParam("limit") Integer limit) {
    int max = TablesResource.limit(limit, 100);
    if (table == null || table.isBlank()) {
      return store.processes(null, null, null, max);
    }
    int first = table.indexOf('.');
    int last = table.lastIndexOf('.');
    if (first <= 0 || last == first || last == table.length() - 1) {
      throw new IllegalArgumentException(
          "table = '" + table + "': expected catalog.namespace.table");
    }
    return store.processes(
        table.substring(0, first),
        table.substring(first + 1, last),
        table.substring(last + 1),
        max);
  }

  @GET
  @Path("{processId}")
  public ProcessDetail process(@PathParam("processId") String processId) {
    ProcessRecord process = store.process(processId);
    if (process == null) {
      throw Tokens.error(Response.Status.NOT_FOUND, "no process with id '" + processId + "'");
    }
    return new ProcessDetail(process, store.tasks(processId));
  }
}
