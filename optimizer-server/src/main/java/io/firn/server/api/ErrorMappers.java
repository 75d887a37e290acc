/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.api;

import io.dropwizard.jersey.errors.ErrorMessage;
import io.firn.core.protocol.ProtocolException;
import io.firn.core.protocol.UnknownWorkerException;
import io.firn.server.optimizing.UnknownTableException;
import io.firn.server.optimizing.WorkerRefusedException;
import io.firn.server.store.StateStoreException;
import io.firn.server.store.UnknownStoredValueException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import java.util.List;
import org.glassfish.jersey.server.ParamException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Maps the server's exceptions to JSON errors with the exception's message. */
public final class ErrorMappers {
  private ErrorMappers() {}

  /** All mappers, to register with Jersey. */
  public static List<Object> all() {
    return List.of(
        new UnknownWorker(),
        new RefusedWorker(),
        new Protocol(),
        new UnknownTable(),
        new IllegalState(),
        new IllegalArgument(),
        new BadParameter(),
        new StateStoreUnavailable(),
        new UnknownStoredValue());
  }

  static Response json(int status, @Nullable String message) {
    return Response.status(status)
        .type(MediaType.APPLICATION_JSON_TYPE)
        .entity(new ErrorMessage(status, message))
        .build();
  }

  /** 410: the worker must register again. */
  public static final class UnknownWorker implements ExceptionMapper<UnknownWorkerException> {
    @Override
    public Response toResponse(UnknownWorkerException e) {
      return json(410, e.getMessage());
    }
  }

  /** 410 as for an unknown worker: a message without its worker's secret; register again. */
  public static final class RefusedWorker implements ExceptionMapper<WorkerRefusedException> {
    @Override
    public Response toResponse(WorkerRefusedException e) {
      return json(410, e.getMessage());
    }
  }

  /** 400: a protocol message the server cannot accept. */
  public static final class Protocol implements ExceptionMapper<ProtocolException> {
    @Override
    public Response toResponse(ProtocolException e) {
      return json(400, e.getMessage());
    }
  }

  /** 404: no such table. */
  public static final class UnknownTable implements ExceptionMapper<UnknownTableException> {
    @Override
    public Response toResponse(UnknownTableException e) {
      return json(404, e.getMessage());
    }
  }

  /** 409: the request does not fit the table's current state. */
  public static final class IllegalState implements ExceptionMapper<IllegalStateException> {
    @Override
    public Response toResponse(IllegalStateException e) {
      return json(409, e.getMessage());
    }
  }

  /** 400: a bad parameter. */
  public static final class IllegalArgument implements ExceptionMapper<IllegalArgumentException> {
    @Override
    public Response toResponse(IllegalArgumentException e) {
      return json(400, e.getMessage());
    }
  }

  /** 400 instead of Jersey's 404 for a path or query value of the wrong type. */
  public static final class BadParameter implements ExceptionMapper<ParamException> {
    @Override
    public Response toResponse(ParamException e) {
      String kind =
          e instanceof ParamException.QueryParamException
              ? "query parameter"
              : e instanceof ParamException.PathParamException ? "path segment" : "parameter";
      return json(
          400, kind + " '" + e.getParameterName() + "' is not valid (a number is expected)");
    }
  }

  /**
   * 503: the request needs the state store (the process history) and it fails; the in-memory
   * endpoints keep serving (ADR 0016). The database's message, which names its URL, goes to the log
   * only.
   */
  public static final class StateStoreUnavailable implements ExceptionMapper<StateStoreException> {
    private static final Logger LOG = LoggerFactory.getLogger(StateStoreUnavailable.class);

    @Override
    public Response toResponse(StateStoreException e) {
      LOG.warn("answering 503: {}", e.getMessage());
      return json(
          503,
          "the state store does not answer; the process history is back when it does (the"
              + " server's log and its state-store health check say more)");
    }
  }

  /**
   * 500: a stored row holds a value this version does not know (a newer version's status, or an
   * edited row); the message names the row and the value, and the database answers, so the 503 of
   * {@link StateStoreUnavailable} would mislead.
   */
  public static final class UnknownStoredValue
      implements ExceptionMapper<UnknownStoredValueException> {
    private static final Logger LOG = LoggerFactory.getLogger(UnknownStoredValue.class);

    @Override
    public Response toResponse(UnknownStoredValueException e) {
      LOG.error("answering 500: {}", e.getMessage());
      return json(500, e.getMessage());
    }
  }
}
