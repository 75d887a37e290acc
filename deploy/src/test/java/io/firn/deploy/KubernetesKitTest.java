/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.firn.core.policy.PolicyFile;
import io.firn.core.policy.PolicyParser;
import io.firn.server.FirnServerConfiguration;
import io.firn.server.testing.ConfigurationFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code deploy/kubernetes} is wired together: the ConfigMap's server configuration is accepted by
 * the server's own configuration factory (unknown keys are errors) once the Deployment's
 * environment is substituted, every variable it needs is set, the policy parses, the mounts match
 * the paths the configuration names, and every Secret key referenced (also by the Flink and Spark
 * worker manifests) is in the Secret template.
 */
class KubernetesKitTest {
  private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Z0-9_]+)(?::-([^}]*))?}");

  private final Map<String, JsonNode> objects = new HashMap<>();

  KubernetesKitTest() throws Exception {
    for (Path file : DeployFilesParseTest.files(".yaml", ".yml")) {
      if (!file.startsWith(Kit.deploy("kubernetes"))) {
        continue;
      }
      for (JsonNode doc : DeployFilesParseTest.parse(file)) {
        if (doc != null && doc.has("kind")) {
          objects.put(
              doc.path("kind").asText() + "/" + doc.path("metadata").path("name").asText(), doc);
        }
      }
    }
  }

  /** A dependent environment variable reference, {@code $(NAME)}, as the kubelet expands it. */
  private static final Pattern DEPENDENT = Pattern.compile("\\$\\(([A-Z_][A-Z0-9_]*)\\)");

  private JsonNode serverContainer() {
    return objects
        .get("StatefulSet/firn-server")
        .path("spec")
        .path("template")
        .path("spec")
        .path("containers")
        .get(0);
  }

  @Test
  void kustomizationListsExistingFilesButNotTheSecretTemplate() {
    JsonNode resources = objects.get("Kustomization/").path("resources");
    assertThat(resources).isNotEmpty();
    List<String> names = new ArrayList<>();
    resources.forEach(r -> names.add(r.asText()));
    for (String name : names) {
      assertThat(Kit.deploy("kubernetes/" + name)).as("listed in kustomization.yaml").exists();
    }
    assertThat(names).doesNotContain("secret.example.yaml").contains("server.yaml");
  }

  @Test
  void configMapServerConfigurationIsAcceptedByTheServer() throws Exception {
    String yaml =
        objects.get("ConfigMap/firn-server").path("data").path("firn-server.yaml").asText();
    Map<String, String> env = new HashMap<>();
    for (JsonNode e : serverContainer().path("env")) {
      String value;
      if (e.has("value")) {
        // The kubelet expands $(NAME) from variables listed before.
        Matcher dependent = DEPENDENT.matcher(e.path("value").asText());
        StringBuilder expanded = new StringBuilder();
        while (dependent.find()) {
          assertThat(env)
              .as("$(" + dependent.group(1) + ") is defined before use")
              .containsKey(dependent.group(1));
          dependent.appendReplacement(
              expanded, Matcher.quoteReplacement(env.get(dependent.group(1))));
        }
        value = dependent.appendTail(expanded).toString();
      } else if (e.path("valueFrom").has("fieldRef")) {
        value = "firn-server-0"; // metadata.name of the first pod
      } else {
        value = "secret";
      }
      env.put(e.path("name").asText(), value);
    }
    List<String> unset = new ArrayList<>();
    Matcher m = VARIABLE.matcher(yaml);
    StringBuilder substituted = new StringBuilder();
    while (m.find()) {
      String value = env.get(m.group(1));
      if (value == null) {
        value = m.group(2);
      }
      if (value == null) {
        unset.add(m.group(1));
        value = "";
      }
      m.appendReplacement(substituted, Matcher.quoteReplacement(value));
    }
    m.appendTail(substituted);
    assertThat(unset).as("variables without a default that server.yaml does not set").isEmpty();

    Path scratch = Kit.scratch("k8s-config");
    Path file = scratch.resolve("firn-server.yaml");
    // The server checks that the policy it names exists: the ConfigMap's default.yaml is mounted
    // at /etc/firn/policies/ in the pod; here it lies in the scratch directory instead.
    String mountedPolicy = "/etc/firn/policies/default.yaml";
    assertThat(substituted.toString()).contains("path: " + mountedPolicy);
    Path policyCopy = Files.createDirectories(scratch.resolve("policies")).resolve("default.yaml");
    Files.writeString(
        policyCopy,
        objects.get("ConfigMap/firn-server").path("data").path("default.yaml").asText());
    Files.writeString(file, substituted.toString().replace(mountedPolicy, policyCopy.toString()));
    FirnServerConfiguration config = ConfigurationFiles.read(file);

    assertThat(config.getStateStore().getUrl()).startsWith("jdbc:postgresql://firn-postgres:5432/");
    assertThat(config.getCatalogs().get(0).settings().uri())
        .startsWith("jdbc:postgresql://firn-postgres:5432/");
    assertThat(config.getMetrics().getTableSeriesLimit()).isPositive();
    // Several replicas, one leader: each advertises its own pod under the headless service.
    assertThat(config.getHa().isEnabled()).isTrue();
    assertThat(config.getHa().getAdvertisedUrl())
        .isEqualTo("http://firn-server-0.firn-server-peers.firn.svc:8080");
    // The configuration and the policy it names are where the Deployment mounts them.
    List<String> args = new ArrayList<>();
    serverContainer().path("args").forEach(a -> args.add(a.asText()));
    Set<String> mounts = new HashSet<>();
    serverContainer().path("volumeMounts").forEach(v -> mounts.add(v.path("mountPath").asText()));
    assertThat(args).endsWith("server", "/etc/firn/firn-server.yaml");
    assertThat(mounts).contains("/etc/firn/firn-server.yaml");
    assertThat(config.getPolicies().getPath()).isEqualTo(policyCopy.toString());
    assertThat(Path.of(mountedPolicy).getParent().toString()).isIn(mounts);
  }

  @Test
  void configMapPolicyParses() {
    String policy = objects.get("ConfigMap/firn-server").path("data").path("default.yaml").asText();
    PolicyFile parsed = PolicyParser.parse("deploy/kubernetes default.yaml", policy);
    assertThat(parsed.groups()).containsKey("default");
  }

  @Test
  void everyReferencedSecretKeyIsInTheTemplate() throws Exception {
    Map<String, Set<String>> template = new HashMap<>();
    for (JsonNode doc : DeployFilesParseTest.parse(Kit.deploy("kubernetes/secret.example.yaml"))) {
      Set<String> keys = new HashSet<>();
      doc.path("stringData").fieldNames().forEachRemaining(keys::add);
      template.put(doc.path("metadata").path("name").asText(), keys);
    }
    List<String> missing = new ArrayList<>();
    for (Path file : DeployFilesParseTest.files(".yaml", ".yml")) {
      if (!file.startsWith(Kit.deploy("kubernetes"))
          && !file.startsWith(Kit.deploy("flink"))
          && !file.startsWith(Kit.deploy("spark"))) {
        continue;
      }
      for (JsonNode doc : DeployFilesParseTest.parse(file)) {
        if (doc == null) {
          continue;
        }
        for (JsonNode ref : doc.findValues("secretKeyRef")) {
          String name = ref.path("name").asText();
          String key = ref.path("key").asText();
          if (!template.getOrDefault(name, Set.of()).contains(key)) {
            missing.add(Kit.deployDir().relativize(file) + ": secret " + name + " key " + key);
          }
        }
      }
    }
    assertThat(missing).isEmpty();
  }

  @Test
  void twoServerReplicasWithStableNamesUnderAHeadlessServiceAndABudgetThatKeepsOne() {
    JsonNode set = objects.get("StatefulSet/firn-server").path("spec");
    assertThat(set.path("replicas").asInt()).isEqualTo(2);
    JsonNode peers = objects.get("Service/firn-server-peers").path("spec");
    assertThat(set.path("serviceName").asText()).isEqualTo("firn-server-peers");
    assertThat(peers.path("clusterIP").asText()).isEqualTo("None");
    assertThat(peers.path("selector")).isEqualTo(set.path("selector").path("matchLabels"));
    assertThat(objects.get("Service/firn-server").path("spec").path("selector"))
        .isEqualTo(set.path("selector").path("matchLabels"));
    assertThat(
            objects
                .get("PodDisruptionBudget/firn-server")
                .path("spec")
                .path("minAvailable")
                .asInt())
        .isEqualTo(1);
    // The namespace in the advertised URL is the one kustomize puts everything in.
    assertThat(objects.get("Kustomization/").path("namespace").asText()).isEqualTo("firn");
  }

  @Test
  void serviceExposesTheApiAndTheAdminPortWithMetrics() {
    JsonNode ports = objects.get("Service/firn-server").path("spec").path("ports");
    Map<String, Integer> byName = new HashMap<>();
    ports.forEach(p -> byName.put(p.path("name").asText(), p.path("port").asInt()));
    assertThat(byName).containsEntry("http", 8080).containsEntry("admin", 8081);
    JsonNode annotations =
        objects
            .get("StatefulSet/firn-server")
            .path("spec")
            .path("template")
            .path("metadata")
            .path("annotations");
    assertThat(annotations.path("prometheus.io/port").asText()).isEqualTo("8081");
    assertThat(annotations.path("prometheus.io/path").asText()).isEqualTo("/metrics");
  }
}
