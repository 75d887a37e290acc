/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The OpenAPI description lists exactly the endpoints the resources serve. */
class OpenApiTest {
  private static final List<Class<?>> RESOURCES =
      List.of(
          TablesResource.class,
          ProcessesResource.class,
          WorkersResource.class,
          PoliciesResource.class,
          OverviewResource.class,
          LeaderResource.class,
          WorkerProtocolResource.class);

  @Test
  void everyServedEndpointIsDocumentedAndNothingElse() throws Exception {
    JsonNode spec;
    try (InputStream in = OpenApiTest.class.getResourceAsStream("/openapi.yaml")) {
      assertThat(in).as("openapi.yaml on the classpath").isNotNull();
      spec = new ObjectMapper(new YAMLFactory()).readTree(in);
    }
    Set<String> documented = new TreeSet<>();
    Iterator<Map.Entry<String, JsonNode>> paths = spec.get("paths").fields();
    while (paths.hasNext()) {
      Map.Entry<String, JsonNode> path = paths.next();
      path.getValue()
          .fieldNames()
          .forEachRemaining(m -> documented.add(m.toUpperCase(Locale.ROOT) + " " + path.getKey()));
    }
    Set<String> served = new TreeSet<>();
    for (Class<?> resource : RESOURCES) {
      String base = resource.getAnnotation(Path.class).value();
      for (Method method : resource.getDeclaredMethods()) {
        String verb =
            method.isAnnotationPresent(GET.class)
                ? "GET"
                : method.isAnnotationPresent(POST.class) ? "POST" : null;
        if (verb == null) {
          continue;
        }
        Path sub = method.getAnnotation(Path.class);
        served.add(verb + " " + base + (sub == null ? "" : "/" + sub.value()));
      }
    }
    assertThat(documented).isEqualTo(served);
  }
}
