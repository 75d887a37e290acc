/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.distribution;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.ingest.IngestConfig;
import io.firn.ingest.IngestConfigParser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The ingest examples shipped in conf/ingest are accepted by the job's own parser. */
class IngestExamplesTest {
  private static final Path EXAMPLES = Path.of("src/conf/ingest");

  @Test
  void everyExampleParses() throws IOException {
    List<Path> examples;
    try (Stream<Path> files = Files.list(EXAMPLES)) {
      examples = files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList();
    }
    assertThat(examples)
        .extracting(f -> f.getFileName().toString())
        .containsExactly("generator.yaml", "kafka-debezium.yaml", "kafka-json.yaml");
    IngestConfig generator = IngestConfigParser.parse(EXAMPLES.resolve("generator.yaml"));
    assertThat(generator.source()).isInstanceOf(IngestConfig.GeneratorSource.class);
    assertThat(generator.catalog().uri()).isEqualTo("jdbc:sqlite:firn-data/catalog.db");
    for (String kafka : List.of("kafka-debezium.yaml", "kafka-json.yaml")) {
      IngestConfig config = IngestConfigParser.parse(EXAMPLES.resolve(kafka));
      assertThat(config.source()).as(kafka).isInstanceOf(IngestConfig.KafkaSource.class);
      assertThat(config.catalog().name()).as(kafka).isEqualTo("lake");
    }
  }
}
