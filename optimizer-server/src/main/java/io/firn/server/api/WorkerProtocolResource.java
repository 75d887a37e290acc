/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.api;

import io.firn.core.protocol.Ack;
import io.firn.core.protocol.CompleteRequest;
import io.firn.core.protocol.FailRequest;
import io.firn.core.protocol.HeartbeatRequest;
import io.firn.core.protocol.HeartbeatResponse;
import io.firn.core.protocol.PollRequest;
import io.firn.core.protocol.PollResponse;
import io.firn.core.protocol.ProtocolException;
import io.firn.core.protocol.RegisterRequest;
import io.firn.core.protocol.RegisterResponse;
import io.firn.core.protocol.WorkerProtocol;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;

/**
 * The worker protocol over HTTP (ADR 0009): a thin shell over {@link WorkerProtocol}. Every call
 * needs the worker token.
 */
@Path("/api/v1/worker")
@Consumes(MediaType.APPLICATION_JSON)
@Produces(MediaType.APPLICATION_JSON)
public class WorkerProtocolResource {
  private final WorkerProtocol protocol;
  private final Tokens tokens;

  public WorkerProtocolResource(WorkerProtocol protocol, Tokens tokens) {
    this.protocol = protocol;
    this.tokens = tokens;
  }

  @POST
  @Path("register")
  public RegisterResponse register(
      @HeaderParam(HttpHeaders.AUTHORIZATION) String auth, RegisterRequest request) {
    tokens.requireWorker(auth);
    return protocol.register(body(request, "register"));
  }

  @POST
  @Path("poll")
  public PollResponse poll(
      @HeaderParam(HttpHeaders.AUTHORIZATION) String auth, PollRequest request) {
    tokens.requireWorker(auth);
    return protocol.poll(body(request, "poll"));
  }

  @POST
  @Path("heartbeat")
  public HeartbeatResponse heartbeat(
      @HeaderParam(HttpHeaders.AUTHORIZATION) String auth, HeartbeatRequest request) {
    tokens.requireWorker(auth);
    return protocol.heartbeat(body(request, "heartbeat"));
  }

  @POST
  @Path("complete")
  public Ack complete(
      @HeaderParam(HttpHeaders.AUTHORIZATION) String auth, CompleteRequest request) {
    tokens.requireWorker(auth);
    return protocol.complete(body(request, "complete"));
  }

  @POST
  @Path("fail")
  public Ack fail(@HeaderParam(HttpHeaders.AUTHORIZATION) String auth, FailRequest request) {
    tokens.requireWorker(auth);
    return protocol.fail(body(request, "fail"));
  }

  private static <T> T body(T request, String message) {
    if (request == null) {
      throw new ProtocolException(message + ": the request body is missing (JSON expected)");
    }
    return request;
  }
}
