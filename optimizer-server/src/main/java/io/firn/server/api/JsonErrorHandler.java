/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.jersey.errors.ErrorMessage;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.Charset;
import java.util.List;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Errors Jetty answers itself, before a request reaches the API (an encoded slash in a path, a
 * malformed URI, a path nothing serves): the API's JSON error body instead of an HTML page, and
 * never a stack trace or a class name.
 */
public final class JsonErrorHandler extends ErrorHandler {
  private static final ObjectMapper JSON = new ObjectMapper();

  public JsonErrorHandler() {
    setShowStacks(false);
    setShowCauses(false);
    setDefaultResponseMimeType("application/json");
  }

  @Override
  protected boolean generateAcceptableResponse(
      Request request,
      Response response,
      Callback callback,
      String contentType,
      List<Charset> charsets,
      int code,
      String message,
      Throwable cause)
      throws IOException {
    return super.generateAcceptableResponse(
        request, response, callback, "application/json", charsets, code, message, cause);
  }

  @Override
  protected void writeErrorJson(
      Request request, PrintWriter writer, int code, String message, Throwable cause) {
    try {
      writer.write(JSON.writeValueAsString(new ErrorMessage(code, text(code, message))));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String text(int code, String message) {
    if (message == null || message.isBlank()) {
      return code == 404 ? "nothing is served at this path" : "the request was refused";
    }
    if (message.contains("Ambiguous") || message.contains("ambiguous")) {
      return "the path has an encoded '/' or '.' segment ("
          + message
          + "); name namespaces with '.' instead (db.sub)";
    }
    return message;
  }
}
