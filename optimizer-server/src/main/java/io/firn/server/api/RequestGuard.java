/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.api;

import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Runs before any resource and before any body is read: the worker protocol's token is checked
 * first, and bodies are bounded ({@link #MAX_WORKER_BODY} for the worker protocol, whose
 * completions list files with their schema; {@link #MAX_OTHER_BODY} elsewhere, where no endpoint
 * takes a body). A body over the limit is refused with 413, by its declared length or while it is
 * read.
 */
@PreMatching
@Priority(Priorities.AUTHENTICATION)
public final class RequestGuard implements ContainerRequestFilter {
  /** Largest worker-protocol body. */
  public static final long MAX_WORKER_BODY = 64L << 20;

  /** Largest body elsewhere. */
  public static final long MAX_OTHER_BODY = 64L << 10;

  private static final String WORKER_PATH = "api/v1/worker/";

  /** Most bytes of a refused request's body read (and dropped) to keep the connection in step. */
  private static final long DRAIN = 64L << 10;

  private final Tokens tokens;

  public RequestGuard(Tokens tokens) {
    this.tokens = tokens;
  }

  @Override
  public void filter(ContainerRequestContext request) {
    String path = request.getUriInfo().getPath(false);
    boolean worker = path.startsWith(WORKER_PATH) || path.startsWith("/" + WORKER_PATH);
    if (worker) {
      try {
        tokens.requireWorker(request.getHeaderString(HttpHeaders.AUTHORIZATION));
      } catch (WebApplicationException e) {
        throw refused(request, e);
      }
    }
    long limit = worker ? MAX_WORKER_BODY : MAX_OTHER_BODY;
    if (request.getLength() > limit) {
      throw tooLarge(request.getLength() + " bytes", limit);
    }
    if (request.hasEntity()) {
      request.setEntityStream(new Bounded(request.getEntityStream(), limit));
    }
  }

  /**
   * A refusal before the body is read: a small body is drained unparsed (so the connection stays in
   * step for the client's next request), and the connection is closed after the answer.
   */
  private static WebApplicationException refused(
      ContainerRequestContext request, WebApplicationException e) {
    if (request.hasEntity()) {
      try (InputStream in = request.getEntityStream()) {
        in.skipNBytes(Math.max(0, Math.min(request.getLength(), DRAIN)));
      } catch (IOException | RuntimeException ignored) {
        // The connection closes after the answer anyway.
      }
    }
    return new WebApplicationException(
        e.getMessage(),
        Response.fromResponse(e.getResponse()).header("Connection", "close").build());
  }

  /** 413, and the connection closes after the answer (the rest of the body is never read). */
  private static WebApplicationException tooLarge(String size, long limit) {
    WebApplicationException e =
        Tokens.error(
            Response.Status.REQUEST_ENTITY_TOO_LARGE,
            "the request body ("
                + size
                + ") is larger than the "
                + limit
                + " bytes this endpoint takes");
    return new WebApplicationException(
        e.getMessage(),
        Response.fromResponse(e.getResponse()).header("Connection", "close").build());
  }

  /** Fails the read that passes the limit. */
  private static final class Bounded extends FilterInputStream {
    private final long limit;
    private long read;

    Bounded(InputStream in, long limit) {
      super(in);
      this.limit = limit;
    }

    @Override
    public int read() throws IOException {
      int b = super.read();
      if (b >= 0) {
        count(1);
      }
      return b;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      int n = super.read(buffer, offset, length);
      if (n > 0) {
        count(n);
      }
      return n;
    }

    private void count(long n) {
      read += n;
      if (read > limit) {
        throw tooLarge("more than " + limit + " bytes", limit);
      }
    }
  }
}
