/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.api;

import io.firn.core.plan.OptimizingType;
import io.firn.core.policy.OptimizingPolicy;
import io.firn.core.policy.PolicyFile;
import io.firn.core.policy.PolicyFile.EffectivePolicy;
import io.firn.server.optimizing.OptimizingService;
import io.firn.server.optimizing.TableStateRecord;
import io.firn.server.optimizing.UnknownTableException;
import io.firn.server.policy.PolicyDecisions;
import io.firn.server.policy.PolicyRegistry;
import io.firn.server.policy.WindowCalendar;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * {@code /api/v1/policies}: the policy in force, its last reload, its windows (open now, closing,
 * next opening), groups and rules; and per table the effective policy, the rule that gave it, and
 * whether each kind of work may start now and why not.
 */
@Path("/api/v1/policies")
@Produces(MediaType.APPLICATION_JSON)
public class PoliciesResource {
  /** The policy in force. */
  public record PolicyView(
      String name,
      @Nullable String path,
      Instant loadedAt,
      PolicyRegistry.@Nullable ReloadStatus lastReload,
      List<WindowView> windows,
      List<PolicyFile.Group> groups,
      List<RuleView> rules) {}

  /** A window now. */
  public record WindowView(
      String name,
      String timeZone,
      boolean open,
      @Nullable Instant closesAt,
      @Nullable Instant nextOpening) {}

  /** A rule. */
  public record RuleView(String name, String match, int priority, String group) {}

  /** A table's effective policy and what it allows now. */
  public record TablePolicyView(
      String table,
      String rule,
      int priority,
      String group,
      int groupCapacity,
      OptimizingPolicy thresholds,
      String onWindowClose,
      String maxDelay,
      List<KindView> kinds) {}

  /** One kind of work for a table now. */
  public record KindView(
      String kind, boolean enabled, List<String> windows, boolean mayStart, String reason) {}

  private final Supplier<PolicyRegistry.LoadedPolicy> policies;
  private final @Nullable PolicyRegistry registry;
  private final OptimizingService service;
  private final Clock clock;

  /**
   * @param registry the file-backed registry, or null when the built-in defaults apply
   */
  public PoliciesResource(
      Supplier<PolicyRegistry.LoadedPolicy> policies,
      @Nullable PolicyRegistry registry,
      OptimizingService service,
      Clock clock) {
    this.policies = policies;
    this.registry = registry;
    this.service = service;
    this.clock = clock;
  }

  @GET
  public PolicyView policy() {
    PolicyRegistry.LoadedPolicy loaded = policies.get();
    Instant now = clock.instant();
    WindowCalendar calendar = loaded.calendar();
    List<WindowView> windows = new ArrayList<>();
    for (PolicyFile.Window window : calendar.windows().values()) {
      windows.add(
          new WindowView(
              window.name(),
              window.timeZone().getId(),
              calendar.isOpen(window.name(), now),
              calendar.closesAt(window.name(), now).orElse(null),
              calendar.nextOpensAt(window.name(), now).orElse(null)));
    }
    List<RuleView> rules =
        loaded.policy().rules().stream()
            .map(r -> new RuleView(r.name(), r.match(), r.priority(), r.effective().group().name()))
            .toList();
    return new PolicyView(
        loaded.policy().name(),
        registry == null ? null : registry.path().toString(),
        loaded.loadedAt(),
        registry == null ? null : registry.lastReload(),
        windows,
        List.copyOf(loaded.policy().groups().values()),
        rules);
  }

  @GET
  @Path("tables/{catalog}/{namespace}/{table}")
  public TablePolicyView table(
      @PathParam("catalog") String catalog,
      @PathParam("namespace") String namespace,
      @PathParam("table") String table) {
    TableStateRecord state =
        service
            .table(catalog, namespace, table)
            .orElseThrow(() -> new UnknownTableException(catalog + "." + namespace + "." + table));
    PolicyRegistry.LoadedPolicy loaded = policies.get();
    String qualified = catalog + "." + namespace + "." + table;
    EffectivePolicy effective = loaded.policy().resolve(qualified);
    Instant now = clock.instant();
    PolicyDecisions.TableState tableState =
        new PolicyDecisions.TableState(
            state.health() < OptimizingService.CRITICAL_HEALTH,
            state.needsPlan() ? state.evaluatedAt() : null);
    List<KindView> kinds = new ArrayList<>();
    for (PolicyFile.WorkKind kind : PolicyFile.WorkKind.values()) {
      PolicyFile.WorkPolicy work = effective.work(kind);
      PolicyDecisions.Decision decision =
          PolicyDecisions.mayStart(effective, kind, loaded.calendar(), now, tableState);
      kinds.add(
          new KindView(
              kind.key(),
              work.enabled(),
              work.windows().stream().map(PolicyFile.Window::name).toList(),
              decision.mayStart(),
              decision.reason()));
    }
    return new TablePolicyView(
        qualified,
        effective.rule() == null ? "defaults" : effective.rule(),
        effective.priority(),
        effective.group().name(),
        effective.group().capacity(),
        effective.thresholds(),
        effective.onWindowClose().name().toLowerCase(Locale.ROOT),
        effective.maxDelay().isNegative() ? "off" : effective.maxDelay().toString(),
        kinds);
  }

  static String label(OptimizingType type) {
    return type.name().toLowerCase(Locale.ROOT);
  }
}
