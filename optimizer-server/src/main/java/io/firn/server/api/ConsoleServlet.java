/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.api;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The operator's console: static files from the class path ({@code console/} in the server's
 * resources), served at {@code /} ({@code index.html}) and {@code /console/*} on the application
 * port. Only names of letters, digits, dots, dashes and underscores in known file types are served;
 * every answer carries a Content-Security-Policy that allows nothing but this server (no inline
 * script, no other origin), and the files are fetched from the server on every load.
 */
public final class ConsoleServlet extends HttpServlet {
  private static final long serialVersionUID = 1L;

  /** Where the files are on the class path. */
  static final String ROOT = "console/";

  private static final Pattern NAME = Pattern.compile("[a-z0-9_-]+(\\.[a-z0-9_-]+)*\\.[a-z]+");

  private static final Map<String, String> TYPES =
      Map.of(
          "html", "text/html; charset=utf-8",
          "js", "text/javascript; charset=utf-8",
          "css", "text/css; charset=utf-8",
          "svg", "image/svg+xml",
          "png", "image/png",
          "txt", "text/plain; charset=utf-8");

  static final String CSP =
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
          + " connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none';"
          + " frame-ancestors 'none'";

  private final transient Map<String, byte[]> cache = new ConcurrentHashMap<>();

  @Override
  protected void doGet(HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    String path = request.getPathInfo();
    String name = path == null || path.equals("/") ? "index.html" : path.substring(1);
    if (request.getServletPath().isEmpty() && path != null && !path.equals("/")) {
      // Mapped at the root: only "/" itself is the console.
      notFound(response, path);
      return;
    }
    String extension = name.substring(name.lastIndexOf('.') + 1);
    byte[] body = NAME.matcher(name).matches() && TYPES.containsKey(extension) ? read(name) : null;
    if (body == null) {
      notFound(response, "/console/" + name);
      return;
    }
    headers(response);
    response.setContentType(TYPES.get(extension));
    response.setContentLength(body.length);
    response.getOutputStream().write(body);
  }

  private byte @Nullable [] read(String name) throws IOException {
    byte[] cached = cache.get(name);
    if (cached != null) {
      return cached;
    }
    try (InputStream in = ConsoleServlet.class.getClassLoader().getResourceAsStream(ROOT + name)) {
      if (in == null) {
        return null;
      }
      byte[] body = in.readAllBytes();
      cache.put(name, body);
      return body;
    }
  }

  private static void headers(HttpServletResponse response) {
    response.setHeader("Content-Security-Policy", CSP);
    response.setHeader("X-Content-Type-Options", "nosniff");
    response.setHeader("Referrer-Policy", "no-referrer");
    response.setHeader("Cache-Control", "no-cache");
  }

  private static void notFound(HttpServletResponse response, String path) throws IOException {
    headers(response);
    response.setStatus(HttpServletResponse.SC_NOT_FOUND);
    response.setContentType("application/json");
    String message = "no console file at " + path.replaceAll("[^A-Za-z0-9/._-]", "?");
    response
        .getOutputStream()
        .write(("{\"code\":404,\"message\":\"" + message + "\"}").getBytes(StandardCharsets.UTF_8));
  }
}
