/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The one reader of Firn's YAML formats: lines, paths and typed values with precise messages. */
class ConfigDocumentTest {
  private static final String YAML =
      """
      name: firn
      limits:
        workers: 4
        rate: 2.5
        timeout: 30s
        size: 128MiB
        strict: true
      topics: [a, b]
      one-topic: c
      properties:
        acks: all
        retries: 3
      empty:
      """;

  private static ConfigNode root() {
    return ConfigDocument.parse("f.yaml", YAML);
  }

  @Test
  void readsTypedValuesAndKeepsEveryKeysLine() {
    ConfigNode root = root();
    ConfigNode limits = root.value("limits").orElseThrow();
    assertThat(limits.line()).isEqualTo(2);
    assertThat(limits.path()).isEqualTo("limits");
    assertThat(limits.value("workers").orElseThrow().integer(1, 8)).isEqualTo(4);
    assertThat(limits.value("workers").orElseThrow().line()).isEqualTo(3);
    assertThat(limits.value("rate").orElseThrow().positive()).isEqualTo(2.5);
    assertThat(limits.value("timeout").orElseThrow().duration()).isEqualTo(Duration.ofSeconds(30));
    assertThat(limits.value("size").orElseThrow().size()).isEqualTo(128L << 20);
    assertThat(limits.value("strict").orElseThrow().bool()).isTrue();
    assertThat(root.value("topics").orElseThrow().names()).containsExactly("a", "b");
    assertThat(root.value("topics").orElseThrow().items("topics").get(1).path())
        .isEqualTo("topics[1]");
    assertThat(root.value("one-topic").orElseThrow().names()).containsExactly("c");
    assertThat(root.value("properties").orElseThrow().stringMap())
        .isEqualTo(Map.of("acks", "all", "retries", "3"));
    assertThat(root.get("empty")).hasValueSatisfying(n -> assertThat(n.isNull()).isTrue());
    assertThat(root.value("empty")).isEmpty();
    assertThat(root.value("absent")).isEmpty();
  }

  @Test
  void everyMessageNamesFileLinePathValueAndRule() {
    ConfigNode limits = root().value("limits").orElseThrow();
    assertThatThrownBy(() -> limits.value("workers").orElseThrow().integer(5, 8))
        .isInstanceOf(ConfigException.class)
        .hasMessage("f.yaml line 3: limits.workers = '4': must be a whole number from 5 to 8");
    assertThatThrownBy(() -> limits.value("timeout").orElseThrow().bool())
        .hasMessage("f.yaml line 5: limits.timeout = '30s': must be true or false");
    assertThatThrownBy(() -> limits.value("strict").orElseThrow().duration())
        .hasMessage(
            "f.yaml line 7: limits.strict = 'true': must be a duration such as 30s, 15m, 1h, 2d,"
                + " PT1H, or 'off'");
    assertThatThrownBy(() -> root().value("topics").orElseThrow().text())
        .hasMessage("f.yaml line 8: topics: must be a single value, not a list");
    assertThatThrownBy(() -> root().keys(List.of("name", "limits")))
        .hasMessage("f.yaml line 8: topics: unknown key; known keys here are [name, limits]");
    assertThatThrownBy(() -> limits.require("missing", "missing: required"))
        .hasMessage("f.yaml line 2: limits: missing: required");
    assertThatThrownBy(() -> root().value("name").orElseThrow().choice(List.of("a", "b")))
        .hasMessage("f.yaml line 1: name = 'firn': must be one of a, b");
    ConfigException e =
        (ConfigException) catchThrowable(() -> limits.value("rate").orElseThrow().integer());
    assertThat(e.origin()).isEqualTo("f.yaml");
    assertThat(e.line()).isEqualTo(4);
    assertThat(e.path()).isEqualTo("limits.rate");
    assertThat(e.value()).isEqualTo("2.5");
    assertThat(e.rule()).isEqualTo("must be a whole number");
  }

  @Test
  void durationsAndSizesTooLargeForJavaAreErrorsNotRawExceptions() {
    ConfigNode root = ConfigDocument.parse("f.yaml", "a: 200000000000000d\nb: 99999999TiB\n");
    assertThatThrownBy(() -> root.value("a").orElseThrow().duration())
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("f.yaml line 1: a = '200000000000000d': too long");
    assertThatThrownBy(() -> root.value("b").orElseThrow().size())
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("f.yaml line 2: b = '99999999TiB': too large");
  }

  @Test
  void duplicateKeysSyntaxErrorsAndSecondDocumentsAreRejected() {
    assertThatThrownBy(() -> ConfigDocument.parse("f.yaml", "a:\n  b: 1\n  b: 2\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessage("f.yaml line 3: a.b: duplicate key (first at line 2)");
    assertThatThrownBy(() -> ConfigDocument.parse("f.yaml", "a: {b: 1\nc: 2\n"))
        .hasMessageStartingWith("f.yaml line 2: YAML syntax error: ");
    assertThatThrownBy(() -> ConfigDocument.parse("f.yaml", "a: 1\n---\nb: 2\n"))
        .hasMessage("f.yaml line 3: only one YAML document per file");
    assertThat(ConfigDocument.parse("f.yaml", "# nothing\n").isNull()).isTrue();
  }
}
