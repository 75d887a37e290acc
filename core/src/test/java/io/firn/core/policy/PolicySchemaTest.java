/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.policy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code policies/firn-policy.schema.json} (for editors) accepts every shipped policy, rejects what
 * the parser rejects for shape, and names exactly the keys the parser knows.
 */
class PolicySchemaTest {
  private static final Path POLICIES = Path.of("..", "policies");
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private static Schema schema() throws IOException {
    return SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12)
        .getSchema(Files.readString(POLICIES.resolve("firn-policy.schema.json")), InputFormat.JSON);
  }

  @Test
  void everyShippedPolicyValidates() throws IOException {
    Schema schema = schema();
    List<Path> files = new ArrayList<>();
    try (Stream<Path> all = Files.walk(POLICIES)) {
      all.filter(p -> p.toString().endsWith(".yaml")).sorted().forEach(files::add);
    }
    assertThat(files).hasSizeGreaterThanOrEqualTo(4);
    for (Path file : files) {
      List<Error> errors = schema.validate(YAML.readTree(file.toFile()));
      assertThat(errors).as("%s", file).isEmpty();
      // The parser agrees.
      PolicyParser.parse(file);
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "version: 1\nwindow: {}\n",
        "version: 2\n",
        "version: 1\ngroups: {g: {capacity: 0}}\n",
        "version: 1\ngroups: {g: {capacity: 1, size: 2}}\n",
        "version: 1\nwindows: {w: {time-zone: UTC, start: '25:00', end: '01:00'}}\n",
        "version: 1\nwindows: {w: {time-zone: UTC, start: '01:00'}}\n",
        "version: 1\nwindows: {w: {time-zone: UTC, start: '01:00', end: '02:00', cron: '0 0 1 * * ?'}}\n",
        "version: 1\ndefaults: {thresholds: {target-size: 1, no-such-key: 2}}\n",
        "version: 1\ndefaults: {on-window-close: stop}\n",
        "version: 1\ndefaults: {minor: {enabled: true, interval: 1d}}\n",
        "version: 1\ndefaults: {colour: blue}\n",
        "version: 1\nrules: [{name: r, match: '*', prioritty: 1}]\n",
        "version: 1\nrules: [{match: '*'}]\n",
        "version: 1\nrules: [{name: r, match: '*', max-delay: soon}]\n"
      })
  void rejectsWhatIsWrongInShape(String yaml) throws IOException {
    assertThat(schema().validate(YAML.readTree(yaml))).as(yaml).isNotEmpty();
  }

  @Test
  void namesExactlyTheKeysTheParserKnows() throws IOException {
    JsonNode schema =
        new ObjectMapper().readTree(POLICIES.resolve("firn-policy.schema.json").toFile());
    JsonNode defs = schema.get("$defs");
    assertThat(names(schema.get("properties"))).isEqualTo(new TreeSet<>(PolicyParser.ROOT_KEYS));
    assertThat(names(defs.get("window").get("properties")))
        .isEqualTo(new TreeSet<>(PolicyParser.WINDOW_KEYS));
    assertThat(names(defs.get("settings").get("properties")))
        .isEqualTo(new TreeSet<>(PolicyParser.SETTINGS_KEYS));
    assertThat(
            names(
                schema
                    .get("properties")
                    .get("groups")
                    .get("additionalProperties")
                    .get("properties")))
        .isEqualTo(new TreeSet<>(PolicyParser.GROUP_KEYS));
    assertThat(names(defs.get("thresholds").get("properties")))
        .isEqualTo(new TreeSet<>(OptimizingPolicy.KEYS));
  }

  private static Set<String> names(JsonNode properties) {
    Set<String> names = new TreeSet<>();
    properties.fieldNames().forEachRemaining(names::add);
    return names;
  }
}
