/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.api;

import io.firn.core.plan.OptimizingPlan;
import io.firn.core.plan.OptimizingType;
import io.firn.core.plan.PartitionPlan;
import io.firn.server.optimizing.OptimizingService;
import io.firn.server.optimizing.ProcessRecord;
import io.firn.server.optimizing.TableHistory;
import io.firn.server.optimizing.TableStateRecord;
import io.firn.server.optimizing.UnknownTableException;
import io.firn.server.store.StateStore;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * {@code /api/v1/tables}: what the server knows about each table, its plan preview, its processes,
 * and the operator actions (trigger, cancel, pause, resume; admin token). A thin shell over {@link
 * OptimizingService}.
 */
@Path("/api/v1/tables")
@Produces(MediaType.APPLICATION_JSON)
public class TablesResource {
  /** A table with its last processes. */
  public record TableDetail(TableStateRecord table, List<ProcessRecord> processes) {}

  /** The dry run: what would be optimized now and why. */
  public record PlanView(
      String table,
      long snapshotId,
      String type,
      String note,
      long rewriteFiles,
      long rewriteBytes,
      long convertFiles,
      long estimatedOutputFiles,
      int tasks,
      List<PartitionView> partitions) {}

  /** One partition of a plan preview. */
  public record PartitionView(
      String partition,
      String type,
      String reason,
      int tasks,
      long rewriteFiles,
      long rewriteBytes,
      long convertFiles,
      long estimatedOutputFiles,
      int deleteFilesToRemove) {}

  /** The answer to an action. */
  public record ActionResult(String table, String action, String message) {}

  private static final int MAX_LIMIT = 1000;

  private final OptimizingService service;
  private final StateStore store;
  private final Tokens tokens;

  public TablesResource(OptimizingService service, StateStore store, Tokens tokens) {
    this.service = service;
    this.store = store;
    this.tokens = tokens;
  }

  @GET
  public List<TableStateRecord> list() {
    return service.tables();
  }

  @GET
  @Path("{catalog}/{namespace}/{table}")
  public TableDetail table(
      @PathParam("catalog") String catalog,
      @PathParam("namespace") String namespace,
      @PathParam("table") String table,
      @QueryParam("limit") Integer limit) {
    TableStateRecord state = known(catalog, namespace, table);
    return new TableDetail(state, store.processes(catalog, namespace, table, limit(limit, 20)));
  }

  @GET
  @Path("{catalog}/{namespace}/{table}/plan")
  public PlanView plan(
      @PathParam("catalog") String catalog,
      @PathParam("namespace") String namespace,
      @PathParam("table") String table,
      @QueryParam("type") String type) {
    known(catalog, namespace, table);
    OptimizingPlan plan = service.preview(catalog, namespace, table, optionalType(type));
    List<PartitionView> partitions =
        plan.partitions().stream()
            .map(
                p ->
                    new PartitionView(
                        p.key().toString(),
                        label(p.type()),
                        p.reason(),
                        p.tasks().size(),
                        p.rewriteFiles(),
                        p.rewriteBytes(),
                        p.convertFiles(),
                        p.estimatedOutputFiles(),
                        p.deletesToRemove().size()))
            .toList();
    List<PartitionPlan> due = plan.duePartitions();
    return new PlanView(
        catalog + "." + namespace + "." + table,
        plan.snapshotId(),
        label(plan.type()),
        plan.note(),
        due.stream().mapToLong(PartitionPlan::rewriteFiles).sum(),
        due.stream().mapToLong(PartitionPlan::rewriteBytes).sum(),
        due.stream().mapToLong(PartitionPlan::convertFiles).sum(),
        due.stream().mapToLong(PartitionPlan::estimatedOutputFiles).sum(),
        plan.tasks().size(),
        partitions);
  }

  /** The table's recent evaluations (in memory, bounded); {@code kept} false when none are kept. */
  public record HistoryView(String table, boolean kept, List<TableHistory.Point> points) {}

  @GET
  @Path("{catalog}/{namespace}/{table}/partitions")
  public TableContents.PartitionsView partitions(
      @PathParam("catalog") String catalog,
      @PathParam("namespace") String namespace,
      @PathParam("table") String table,
      @QueryParam("limit") Integer limit) {
    int max = limit(limit, 100);
    return TableContents.partitions(
        catalog + "." + namespace + "." + table, service.load(catalog, namespace, table), max);
  }

  @GET
  @Path("{catalog}/{namespace}/{table}/snapshots")
  public List<TableContents.SnapshotRow> snapshots(
      @PathParam("catalog") String catalog,
      @PathParam("namespace") String namespace,
      @PathParam("table") String table,
      @QueryParam("limit") Integer limit) {
    int max = limit(limit, 50);
    return TableContents.snapshots(service.load(catalog, namespace, table), max);
  }

  @GET
  @Path("{catalog}/{namespace}/{table}/history")
  public HistoryView history(
      @PathParam("catalog") String catalog,
      @PathParam("namespace") String namespace,
      @PathParam("table") String table) {
    Optional<List<TableHistory.Point>> points = service.history(catalog, namespace, table);
    return new HistoryView(
        catalog + "." + namespace + "." + table, points.isPresent(), points.orElse(List.of()));
  }

  @POST
  @Path("{catalog}/{namespace}/{table}/optimize")
  public ActionResult optimize(
      @HeaderParam(HttpHeaders.AUTHORIZATION) String auth,
      @PathParam("catalog") String catalog,
      @PathParam("namespace") String namespace,
      @PathParam("table") String table,
      @QueryParam("type") String type) {
    tokens.requireAdmin(auth);
    OptimizingType requested = requiredType(type);
    service.trigger(catalog, namespace, table, requested);
    return new ActionResult(
        catalog + "." + namespace + "." + table,
        "optimize",
        label(requested) + " optimizing requested; it starts when a process slot is free");
  }

  @POST
  @Path("{catalog}/{namespace}/{table}/cancel")
  public ActionResult cancel(
      @HeaderParam(HttpHeaders.AUTHORIZATION) String auth,
      @PathParam("catalog") String catalog,
      @PathParam("namespace") String namespace,
      @PathParam("table") String table) {
    tokens.requireAdmin(auth);
    String process = service.cancel(catalog, namespace, table);
    return new ActionResult(
        catalog + "." + namespace + "." + table,
        "cancel",
        "process " + process + " cancelled; committed partitions stay committed");
  }

  @POST
  @Path("{catalog}/{namespace}/{table}/pause")
  public ActionResult pause(
      @HeaderParam(HttpHeaders.AUTHORIZATION) String auth,
      @PathParam("catalog") String catalog,
      @PathParam("namespace") String namespace,
      @PathParam("table") String table) {
    tokens.requireAdmin(auth);
    service.pause(catalog, namespace, table, true);
    return new ActionResult(
        catalog + "." + namespace + "." + table,
        "pause",
        "paused: no new process starts until resumed");
  }

  @POST
  @Path("{catalog}/{namespace}/{table}/resume")
  public ActionResult resume(
      @HeaderParam(HttpHeaders.AUTHORIZATION) String auth,
      @PathParam("catalog") String catalog,
      @PathParam("namespace") String namespace,
      @PathParam("table") String table) {
    tokens.requireAdmin(auth);
    service.pause(catalog, namespace, table, false);
    return new ActionResult(catalog + "." + namespace + "." + table, "resume", "resumed");
  }

  private TableStateRecord known(String catalog, String namespace, String table) {
    return service
        .table(catalog, namespace, table)
        .orElseThrow(() -> new UnknownTableException(catalog + "." + namespace + "." + table));
  }

  static int limit(Integer limit, int fallback) {
    if (limit == null) {
      return fallback;
    }
    if (limit < 1 || limit > MAX_LIMIT) {
      throw new IllegalArgumentException(
          "limit = " + limit + ": must be between 1 and " + MAX_LIMIT);
    }
    return limit;
  }

  /** The type asked for, or null when none is (the triggers decide). */
  private static @Nullable OptimizingType optionalType(@Nullable String type) {
    return type == null || type.isBlank() ? null : requiredType(type);
  }

  private static OptimizingType requiredType(@Nullable String type) {
    if (type == null || type.isBlank()) {
      throw new IllegalArgumentException("type is missing: one of minor, major, full");
    }
    OptimizingType parsed = OptimizingType.parse(type);
    if (parsed == OptimizingType.NONE) {
      throw new IllegalArgumentException("type = none: must be one of minor, major, full");
    }
    return parsed;
  }

  private static String label(OptimizingType type) {
    return type.name().toLowerCase(Locale.ROOT);
  }
}
