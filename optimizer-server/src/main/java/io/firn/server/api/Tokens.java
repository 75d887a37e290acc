/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.api;

import io.dropwizard.jersey.errors.ErrorMessage;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import org.jspecify.annotations.Nullable;

/** Bearer-token checks for worker and admin endpoints (config {@code auth:}). */
public final class Tokens {
  private final @Nullable String workerToken;
  private final @Nullable String adminToken;

  /** A token that is null or blank disables the endpoints it guards. */
  public Tokens(@Nullable String workerToken, @Nullable String adminToken) {
    this.workerToken = blankToNull(workerToken);
    this.adminToken = blankToNull(adminToken);
  }

  /**
   * @throws WebApplicationException 401 or 403 with a JSON message
   */
  public void requireWorker(@Nullable String authorization) {
    require(workerToken, authorization, "auth.workerToken", "worker");
  }

  /**
   * @throws WebApplicationException 401 or 403 with a JSON message
   */
  public void requireAdmin(@Nullable String authorization) {
    require(adminToken, authorization, "auth.adminToken", "admin");
  }

  private static void require(
      @Nullable String expected, @Nullable String authorization, String key, String role) {
    if (expected == null) {
      throw error(
          Response.Status.FORBIDDEN,
          role + " endpoints are disabled: set " + key + " in the server configuration");
    }
    if (authorization == null || !authorization.startsWith("Bearer ")) {
      throw error(
          Response.Status.UNAUTHORIZED,
          role + " endpoints need the header 'Authorization: Bearer <" + key + ">'");
    }
    byte[] given = authorization.substring("Bearer ".length()).getBytes(StandardCharsets.UTF_8);
    if (!MessageDigest.isEqual(given, expected.getBytes(StandardCharsets.UTF_8))) {
      throw error(Response.Status.UNAUTHORIZED, "the " + role + " token is not valid");
    }
  }

  static WebApplicationException error(Response.Status status, String message) {
    return new WebApplicationException(
        message,
        Response.status(status)
            .type(MediaType.APPLICATION_JSON_TYPE)
            .entity(new ErrorMessage(status.getStatusCode(), message))
            .build());
  }

  private static @Nullable String blankToNull(@Nullable String token) {
    return token == null || token.isBlank() ? null : token;
  }
}
