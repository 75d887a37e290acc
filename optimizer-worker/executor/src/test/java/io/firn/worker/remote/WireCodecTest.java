/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.firn.core.commit.CommitOutcome;
import io.firn.core.commit.Committer;
import io.firn.core.commit.TaskResult;
import io.firn.core.plan.BinPackPlanner;
import io.firn.core.plan.OptimizingPlan;
import io.firn.core.plan.OptimizingType;
import io.firn.core.plan.RewriteTask;
import io.firn.core.policy.OptimizingPolicy;
import io.firn.core.protocol.CompleteRequest;
import io.firn.core.protocol.FileCodec;
import io.firn.core.protocol.ProtocolException;
import io.firn.core.protocol.TaskAssignment;
import io.firn.core.protocol.TaskCodec;
import io.firn.core.protocol.WireFile;
import io.firn.core.table.DataFileEntry;
import io.firn.testkit.CdcTableGenerator;
import io.firn.testkit.CdcTableSpec;
import io.firn.testkit.RowSets;
import io.firn.worker.executor.RewriteExecutor;
import io.firn.worker.local.LocalOptimizer;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tasks and results travel as JSON (Iceberg's parsers plus sequence numbers) and arrive as the same
 * files: a table optimized from decoded tasks and decoded results keeps its rows.
 */
class WireCodecTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final OptimizingPolicy POLICY =
      OptimizingPolicy.DEFAULTS.withOverrides(Map.of("target-size", "64KiB"));

  @TempDir Path warehouse;

  @Test
  void tasksAndResultsSurviveJsonAndOptimizeTheTableWithRowsUnchanged() throws Exception {
    HadoopCatalog catalog = new HadoopCatalog();
    catalog.setConf(new Configuration());
    catalog.initialize("test", Map.of("warehouse", warehouse.toUri().toString()));
    // Spec change: files of two specs, an unpartitioned spec's equality deletes among them.
    CdcTableGenerator.generate(catalog, TableIdentifier.of("db", "cdc"), CdcTableSpec.small(4));
    Table table = catalog.loadTable(TableIdentifier.of("db", "cdc"));
    Map<String, Long> before = RowSets.read(table);

    OptimizingPlan plan =
        new LocalOptimizer(POLICY, new BinPackPlanner(), 1, line -> {})
            .plan(table, OptimizingType.MAJOR, Instant.now());
    assertThat(plan.tasks()).isNotEmpty();
    List<TaskResult> results = new ArrayList<>();
    int deletesSeen = 0;
    for (RewriteTask task : plan.tasks()) {
      TaskAssignment sent =
          TaskCodec.encode(
              task,
              table,
              "test",
              "db.cdc",
              "p/" + task.id(),
              "p",
              plan.snapshotId(),
              plan.sequenceNumber(),
              POLICY.equalityDeleteBloomThreshold());
      TaskAssignment received =
          JSON.readValue(JSON.writeValueAsString(sent.withLease("p-a1", 1)), TaskAssignment.class);
      RewriteTask decoded = TaskCodec.decode(received, task.id());

      assertThat(decoded.partition()).isEqualTo(task.partition());
      assertThat(decoded.type()).isEqualTo(task.type());
      assertThat(decoded.targetSize()).isEqualTo(task.targetSize());
      assertSameEntries(decoded.rewrite(), task.rewrite());
      assertSameEntries(decoded.convert(), task.convert());
      deletesSeen += received.deletes().size();

      TaskResult result =
          new RewriteExecutor(POLICY.equalityDeleteBloomThreshold())
              .execute(table, decoded, "p-a1");
      CompleteRequest completion =
          JSON.readValue(
              JSON.writeValueAsString(ResultCodec.encode("w", "s", "p-a1", table, result)),
              CompleteRequest.class);
      TaskResult back = ResultCodec.decode(completion, task.id());
      assertThat(back.dataFiles())
          .extracting(ContentFile::location)
          .isEqualTo(result.dataFiles().stream().map(ContentFile::location).toList());
      assertThat(back.positionDeletes())
          .extracting(ContentFile::location)
          .isEqualTo(result.positionDeletes().stream().map(ContentFile::location).toList());
      assertThat(back.rowsWritten()).isEqualTo(result.rowsWritten());
      results.add(back);
    }
    assertThat(deletesSeen).as("the tasks carried delete files").isPositive();

    List<CommitOutcome> outcomes =
        new Committer().commitPartitions(table, plan, plan.duePartitions(), results, "p");
    assertThat(outcomes).allMatch(CommitOutcome::committed);
    table.refresh();
    assertThat(RowSets.read(table)).isEqualTo(before);
  }

  @Test
  void malformedFileJsonIsAProtocolErrorNamingTheProblem() {
    assertThatThrownBy(() -> FileCodec.decodeDataFile(new WireFile("{\"x\":1}", 1, 1, List.of())))
        .isInstanceOf(ProtocolException.class)
        .hasMessageStartingWith("file JSON is not an Iceberg file scan task (");
    assertThatThrownBy(() -> FileCodec.decodeDataFile(new WireFile(" ", 1, 1, List.of())))
        .isInstanceOf(ProtocolException.class)
        .hasMessage("file JSON is missing");
  }

  private static void assertSameEntries(List<DataFileEntry> decoded, List<DataFileEntry> planned) {
    assertThat(decoded).hasSameSizeAs(planned);
    for (int i = 0; i < planned.size(); i++) {
      DataFileEntry d = decoded.get(i);
      DataFileEntry p = planned.get(i);
      assertThat(d.path()).isEqualTo(p.path());
      assertThat(d.recordCount()).isEqualTo(p.recordCount());
      assertThat(d.sizeInBytes()).isEqualTo(p.sizeInBytes());
      assertThat(d.file().specId()).isEqualTo(p.file().specId());
      assertThat(d.file().partition().size()).isEqualTo(p.file().partition().size());
      assertThat(d.file().dataSequenceNumber()).isEqualTo(p.file().dataSequenceNumber());
      assertThat(d.file().fileSequenceNumber()).isEqualTo(p.file().fileSequenceNumber());
      assertThat(d.deletes()).hasSameSizeAs(p.deletes());
      for (int j = 0; j < p.deletes().size(); j++) {
        DeleteFile dd = d.deletes().get(j);
        DeleteFile pd = p.deletes().get(j);
        assertThat(dd.location()).isEqualTo(pd.location());
        assertThat(dd.content()).isEqualTo(pd.content());
        assertThat(dd.specId()).isEqualTo(pd.specId());
        assertThat(dd.dataSequenceNumber()).isEqualTo(pd.dataSequenceNumber());
        assertThat(dd.equalityFieldIds()).isEqualTo(pd.equalityFieldIds());
        assertThat(dd.referencedDataFile()).isEqualTo(pd.referencedDataFile());
      }
    }
  }
}
