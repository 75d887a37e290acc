/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every YAML and JSON file under {@code deploy/} parses (YAML files may hold several documents),
 * whoever wrote it; a failure names the file. Kubernetes manifests name their kind, and systemd
 * units have the sections and keys systemd needs.
 */
class DeployFilesParseTest {
  @Test
  void everyYamlAndJsonFileUnderDeployParses() throws IOException {
    List<Path> files = files(".yml", ".yaml", ".json");
    assertThat(files).as("files found under %s", Kit.deployDir()).hasSizeGreaterThan(15);
    assertThat(parseFailures(files)).as("files that do not parse").isEmpty();
  }

  @Test
  void aFileThatDoesNotParseIsNamed() throws IOException {
    Path dir = Kit.scratch("broken");
    Path yaml = dir.resolve("broken.yaml");
    Files.writeString(yaml, "a: 1\n---\nb: [unclosed\n");
    Path json = dir.resolve("broken.json");
    Files.writeString(json, "{\"a\": }");
    List<String> failures = parseFailures(List.of(yaml, json));
    assertThat(failures).hasSize(2);
    assertThat(failures.get(0)).startsWith(relative(yaml) + ": ");
    assertThat(failures.get(1)).startsWith(relative(json) + ": ");
  }

  /** One line per file that does not parse: the file, then the parser's first message line. */
  static List<String> parseFailures(List<Path> files) {
    List<String> failures = new ArrayList<>();
    for (Path file : files) {
      try {
        if (parse(file).isEmpty()) {
          failures.add(relative(file) + ": no document");
        }
      } catch (IOException | RuntimeException e) {
        failures.add(relative(file) + ": " + e.getMessage().lines().findFirst().orElse(""));
      }
    }
    return failures;
  }

  @Test
  void everyKubernetesManifestHasApiVersionKindAndName() throws IOException {
    List<String> problems = new ArrayList<>();
    List<Path> manifests =
        files(".yml", ".yaml").stream()
            .filter(f -> f.startsWith(Kit.deploy("kubernetes")))
            .toList();
    assertThat(manifests).isNotEmpty();
    for (Path file : manifests) {
      for (JsonNode doc : parse(file)) {
        if (doc == null
            || doc.isNull()
            || doc.isEmpty()
            || doc.path("kind").asText().equals("Kustomization")) {
          continue;
        }
        if (doc.path("apiVersion").asText().isBlank()
            || doc.path("kind").asText().isBlank()
            || doc.path("metadata").path("name").asText().isBlank()) {
          problems.add(relative(file) + ": a document without apiVersion, kind or metadata.name");
        }
      }
    }
    assertThat(problems).isEmpty();
  }

  @Test
  void systemdUnitsHaveUnitServiceAndInstallSections() throws IOException {
    List<Path> units = files(".service");
    assertThat(units)
        .extracting(p -> p.getFileName().toString())
        .contains("firn-server.service", "firn-worker@.service");
    for (Path unit : units) {
      String text = Kit.read(unit);
      for (String needed :
          List.of(
              "[Unit]",
              "[Service]",
              "[Install]",
              "\nExecStart=/",
              "\nUser=",
              "\nRestart=",
              "\nWantedBy=")) {
        assertThat(text).as("%s has %s", relative(unit), needed.trim()).contains(needed);
      }
    }
  }

  static List<JsonNode> parse(Path file) throws IOException {
    if (file.toString().endsWith(".json")) {
      return List.of(Kit.JSON.readTree(file.toFile()));
    }
    List<JsonNode> documents = new ArrayList<>();
    try (MappingIterator<JsonNode> it =
        Kit.YAML.readerFor(JsonNode.class).readValues(file.toFile())) {
      while (it.hasNextValue()) {
        documents.add(it.nextValue());
      }
    }
    return documents;
  }

  /** Files under deploy/ with one of the extensions, outside the module's own build and sources. */
  static List<Path> files(String... extensions) throws IOException {
    Path root = Kit.deployDir();
    try (Stream<Path> walk = Files.walk(root)) {
      return walk.filter(Files::isRegularFile)
          .filter(f -> !f.startsWith(root.resolve("target")) && !f.startsWith(root.resolve("src")))
          .filter(f -> Stream.of(extensions).anyMatch(ext -> f.toString().endsWith(ext)))
          .sorted()
          .toList();
    }
  }

  private static String relative(Path file) {
    return "deploy/" + Kit.deployDir().relativize(file);
  }
}
