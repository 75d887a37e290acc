/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.jersey.errors.ErrorMessage;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.ws.rs.WebApplicationException;
import java.io.IOException;
import java.util.Set;

/**
 * Guards the admin connector: {@code GET /metrics}, {@code /healthcheck} and {@code /ping} stay
 * open (Prometheus and probes need no credentials); everything else Dropwizard serves there (the
 * tasks {@code POST /tasks/gc}, {@code /tasks/log-level}, thread dumps, the menu) needs the admin
 * token, and answers 403 while none is configured.
 */
public final class AdminGuard implements Filter {
  private static final Set<String> OPEN = Set.of("/metrics", "/healthcheck", "/ping");

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Tokens tokens;

  public AdminGuard(Tokens tokens) {
    this.tokens = tokens;
  }

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    HttpServletRequest http = (HttpServletRequest) request;
    String path = http.getRequestURI().substring(http.getContextPath().length());
    boolean read = "GET".equals(http.getMethod()) || "HEAD".equals(http.getMethod());
    if (read && OPEN.contains(path)) {
      chain.doFilter(request, response);
      return;
    }
    try {
      tokens.requireAdmin(http.getHeader("Authorization"));
    } catch (WebApplicationException e) {
      HttpServletResponse out = (HttpServletResponse) response;
      int status = e.getResponse().getStatus();
      out.setStatus(status);
      out.setContentType("application/json");
      out.getOutputStream().write(JSON.writeValueAsBytes(new ErrorMessage(status, e.getMessage())));
      return;
    }
    chain.doFilter(request, response);
  }
}
