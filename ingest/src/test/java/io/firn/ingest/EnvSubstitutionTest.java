/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class EnvSubstitutionTest {
  @Test
  void variablesDefaultsAndEscapesAreReplaced() {
    String text = "a: ${PASS}\nb: ${USER:-firn}\nc: ${HOST:-}\nd: $${PASS}\n";
    assertThat(EnvSubstitution.substitute(text, Map.of("PASS", "s3cr$t\\x"), "f.yaml"))
        .isEqualTo("a: s3cr$t\\x\nb: firn\nc: \nd: ${PASS}\n");
  }

  @Test
  void anUnsetVariableWithoutDefaultNamesItsLine() {
    assertThatThrownBy(
            () ->
                EnvSubstitution.substitute(
                    "namespace: events\nuri: ${DB_URI}\n", Map.of(), "f.yaml"))
        .isInstanceOf(InvalidIngestConfigException.class)
        .hasMessage(
            "f.yaml line 2: environment variable DB_URI is not set (write ${DB_URI:-default} for"
                + " a default)");
  }
}
