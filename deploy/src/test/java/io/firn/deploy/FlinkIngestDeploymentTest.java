/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.firn.ingest.IngestConfig;
import io.firn.ingest.IngestConfigParser;
import io.firn.ingest.IngestJob;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** deploy/flink/ingest-deployment.yaml: the ingest job's ConfigMap and FlinkDeployment. */
class FlinkIngestDeploymentTest {
  private static final Map<String, JsonNode> objects = new HashMap<>();

  @BeforeAll
  static void read() throws Exception {
    for (JsonNode doc : DeployFilesParseTest.parse(Kit.deploy("flink/ingest-deployment.yaml"))) {
      objects.put(
          doc.path("kind").asText() + "/" + doc.path("metadata").path("name").asText(), doc);
    }
    assertThat(objects).containsOnlyKeys("ConfigMap/firn-ingest", "FlinkDeployment/firn-ingest");
  }

  @Test
  void theConfigMapHoldsAValidIngestConfiguration() {
    String yaml = objects.get("ConfigMap/firn-ingest").path("data").path("ingest.yaml").asText();
    IngestConfig config = IngestConfigParser.parse(yaml, "ingest-deployment.yaml ingest.yaml");
    assertThat(config.source()).isInstanceOf(IngestConfig.KafkaSource.class);
    assertThat(config.catalog().uri()).startsWith("jdbc:postgresql://firn-postgres:5432/");
    assertThat(config.catalog().properties())
        .containsEntry("jdbc.password", "${FIRN_CATALOG_PASSWORD}");
    assertThat(config.settings().table("order_events").partitionCandidates()).isNotEmpty();
  }

  @Test
  void theJobRunsTheJarWithTheMountedConfigurationAndExportsMetricsWhereThePrometheusKitLooks()
      throws Exception {
    JsonNode spec = objects.get("FlinkDeployment/firn-ingest").path("spec");
    JsonNode job = spec.path("job");
    assertThat(job.path("entryClass").asText()).isEqualTo(IngestJob.class.getName());
    assertThat(job.path("upgradeMode").asText())
        .as("Kafka offsets and pending commits are state")
        .isEqualTo("savepoint");
    List<String> args = new ArrayList<>();
    job.path("args").forEach(a -> args.add(a.asText()));
    assertThat(args).hasSize(2).first().isEqualTo("--config");
    JsonNode pod = spec.path("podTemplate").path("spec");
    String mount =
        pod.path("containers").get(0).path("volumeMounts").get(0).path("mountPath").asText();
    assertThat(args.get(1)).isEqualTo(mount + "/ingest.yaml");
    assertThat(pod.path("volumes").get(0).path("configMap").path("name").asText())
        .isEqualTo("firn-ingest");

    JsonNode flink = spec.path("flinkConfiguration");
    assertThat(flink.path("metrics.reporter.prom.factory.class").asText())
        .isEqualTo("org.apache.flink.metrics.prometheus.PrometheusReporterFactory");
    assertThat(flink.path("execution.checkpointing.unaligned.enabled").asText()).isEqualTo("false");
    assertThat(flink.path("execution.checkpointing.externalized-checkpoint-retention").asText())
        .isEqualTo("RETAIN_ON_CANCELLATION");
    String port = flink.path("metrics.reporter.prom.port").asText();
    List<String> targets = new ArrayList<>();
    for (JsonNode scrape :
        Kit.YAML
            .readTree(Kit.deploy("prometheus/prometheus.yml").toFile())
            .path("scrape_configs")) {
      if (scrape.path("job_name").asText().equals("flink")) {
        scrape.findValues("targets").forEach(t -> t.forEach(x -> targets.add(x.asText())));
      }
    }
    assertThat(targets)
        .as("the kit's flink scrape job")
        .isNotEmpty()
        .allSatisfy(t -> assertThat(t).endsWith(":" + port));
  }
}
