/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;

/** Serves the Prometheus scrape (text format 0.0.4) on the admin port's {@code /metrics}. */
public class PrometheusServlet extends HttpServlet {
  /** Hard-coded: the exposition-formats jar that defines the constant is runtime scope. */
  public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private static final long serialVersionUID = 1L;

  private final transient PrometheusMeterRegistry registry;

  public PrometheusServlet(PrometheusMeterRegistry registry) {
    this.registry = registry;
  }

  @Override
  protected void doGet(HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    response.setStatus(HttpServletResponse.SC_OK);
    response.setContentType(CONTENT_TYPE);
    response.setHeader("Cache-Control", "must-revalidate,no-cache,no-store");
    try (OutputStream out = response.getOutputStream()) {
      registry.scrape(out, CONTENT_TYPE);
    }
  }
}
