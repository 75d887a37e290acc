/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.core.catalog.CatalogSettings;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.client.program.PackagedProgram;
import org.apache.flink.client.program.PackagedProgramUtils;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shaded job jar ({@code target/firn-ingest-*-job.jar}) submitted the way {@code flink run}
 * does it: {@link PackagedProgram} over the jar (its own child-first class loader, the manifest's
 * entry class, {@code --config FILE}), the job graph built by running its {@code main}, then
 * submitted to a cluster that uploads the jar. Proves the jar is complete (Kafka connector, thin
 * Iceberg jars, Hadoop client, JDBC drivers) without Flink's own classes on its path.
 */
class JobJarIT {

  @RegisterExtension
  static final MiniClusterExtension CLUSTER =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(4)
              .build());

  @TempDir Path dir;

  @Test
  void theJobJarRunsOnAClusterAndWritesVersionTwoTables(@InjectMiniCluster MiniCluster cluster)
      throws Exception {
    File jar = jobJar();
    Path config = dir.resolve("ingest.yaml");
    Files.writeString(
        config,
        String.join(
            "\n",
            "source: {type: generator, events: 300, rate: 600}",
            "catalog:",
            "  name: lake",
            "  uri: 'jdbc:sqlite:" + dir.resolve("catalog.db") + "'",
            "  warehouse: '" + dir.resolve("warehouse") + "'",
            "namespace: jarred",
            "checkpoint-interval: 200ms",
            ""));

    PackagedProgram program =
        PackagedProgram.newBuilder()
            .setJarFile(jar)
            .setArguments("--config", config.toString())
            .setConfiguration(new Configuration())
            .build();
    assertThat(program.getMainClassName()).isEqualTo(IngestJob.class.getName());
    assertThat(program.getUserCodeClassLoader().loadClass(IngestJob.class.getName()))
        .as("job classes come from the jar, not from the test class path")
        .isNotSameAs(IngestJob.class);
    JobGraph graph = PackagedProgramUtils.createJobGraph(program, new Configuration(), 2, false);
    graph.addJar(new org.apache.flink.core.fs.Path(jar.toURI()));

    cluster.submitJob(graph).get(1, TimeUnit.MINUTES);
    JobResult result = cluster.requestJobResult(graph.getJobID()).get(3, TimeUnit.MINUTES);
    assertThat(result.getSerializedThrowable()).as("the job ended without failure").isEmpty();
    program.close();

    Catalog catalog =
        IngestJob.catalogLoader(
                new CatalogSettings(
                    "lake",
                    "jdbc",
                    "jdbc:sqlite:" + dir.resolve("catalog.db"),
                    dir.resolve("warehouse").toString(),
                    Map.of()))
            .loadCatalog();
    List<TableIdentifier> tables = catalog.listTables(Namespace.of("jarred"));
    assertThat(tables).as("routed tables and the dead-letter table").hasSizeGreaterThan(1);
    List<String> written = new ArrayList<>();
    for (TableIdentifier id : tables) {
      Table table = catalog.loadTable(id);
      assertThat(TableUtil.formatVersion(table)).as(id.toString()).isEqualTo(2);
      if (table.currentSnapshot() != null) {
        written.add(id.name());
      }
    }
    assertThat(written).as("tables with committed rows").isNotEmpty();
  }

  private static File jobJar() throws Exception {
    try (var files = Files.list(Path.of("target"))) {
      return files
          .filter(p -> p.getFileName().toString().matches("firn-ingest-.*-job\\.jar"))
          .findFirst()
          .orElseThrow(
              () ->
                  new AssertionError(
                      "no target/firn-ingest-*-job.jar: the package phase builds it (mvn verify)"))
          .toFile();
    }
  }
}
