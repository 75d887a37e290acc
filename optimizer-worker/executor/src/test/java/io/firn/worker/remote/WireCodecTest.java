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
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.types.Types;
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
    Set<Integer> specIds = new TreeSet<>();
    TaskCodec.Encoder encoder = TaskCodec.forTable(table);
    Map<String, String> schemas = new java.util.HashMap<>();
    int deletesSeen = 0;
    for (RewriteTask task : plan.tasks()) {
      TaskAssignment sent =
          encoder.encode(
              task,
              "test",
              "db.cdc",
              "p/" + task.id(),
              "p",
              plan.snapshotId(),
              plan.sequenceNumber(),
              POLICY.equalityDeleteBloomThreshold());
      assertThat(sent.schema())
          .as("one copy of the schema for all assignments of a plan")
          .isSameAs(schemas.computeIfAbsent("first", k -> sent.schema()));
      TaskAssignment received =
          JSON.readValue(JSON.writeValueAsString(sent.withLease("p-a1", 1)), TaskAssignment.class);
      RewriteTask decoded = TaskCodec.decode(received, task.id());
      specIds.addAll(
          received.specs().stream()
              .map(spec -> PartitionSpecParser.fromJson(table.schema(), spec).specId())
              .toList());
      assertThat(received.specs()).as("each spec once").doesNotHaveDuplicates();

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
      TaskResult back = ResultCodec.decode(completion, received, task.id());
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
    assertThat(specIds).as("the assignments carried both specs of the table").hasSize(2);

    List<CommitOutcome> outcomes =
        new Committer().commitPartitions(table, plan, plan.duePartitions(), results, "p");
    assertThat(outcomes).allMatch(CommitOutcome::committed);
    table.refresh();
    assertThat(RowSets.read(table)).isEqualTo(before);
  }

  @Test
  void malformedFileJsonIsAProtocolErrorNamingTheProblem() {
    FileCodec.Decoder decoder = unpartitionedDecoder();
    assertThatThrownBy(() -> decoder.dataFile(new WireFile("{\"x\":1}", 1, 1, List.of())))
        .isInstanceOf(ProtocolException.class)
        .hasMessageStartingWith("expected a data file, got content ''");
    assertThatThrownBy(
            () -> decoder.dataFile(new WireFile("{\"content\":\"data\"}", 1, 1, List.of())))
        .isInstanceOf(ProtocolException.class)
        .hasMessageStartingWith("file JSON has no spec-id: ");
    assertThatThrownBy(
            () ->
                decoder.dataFile(
                    new WireFile("{\"content\":\"data\",\"spec-id\":0}", 1, 1, List.of())))
        .isInstanceOf(ProtocolException.class)
        .hasMessageStartingWith("file JSON is not an Iceberg content file (");
    assertThatThrownBy(() -> decoder.dataFile(new WireFile(" ", 1, 1, List.of())))
        .isInstanceOf(ProtocolException.class)
        .hasMessage("data file JSON is missing");
    assertThatThrownBy(() -> decoder.dataFile(new WireFile("[1]", 1, 1, List.of())))
        .isInstanceOf(ProtocolException.class)
        .hasMessage("a data file is not a JSON object: [1]");
  }

  @Test
  void aFileCannotBringASpecOrSchemaOfItsOwn() {
    FileCodec.Decoder decoder = unpartitionedDecoder();
    String file = FileCodec.encode(dataFile(), PartitionSpec.unpartitioned()).json();
    assertThat(decoder.dataFile(new WireFile(file, 3, 3, List.of())).dataSequenceNumber())
        .isEqualTo(3);

    // Spliced into the task JSON unchecked, this would have replaced the carried spec.
    String smuggled = file + ",\"spec\":{\"spec-id\":0,\"fields\":[]}";
    assertThatThrownBy(() -> decoder.dataFile(new WireFile(smuggled, 1, 1, List.of())))
        .isInstanceOf(ProtocolException.class)
        .hasMessageStartingWith("a data file is not JSON: ");

    String otherSpec = file.replace("\"spec-id\":0", "\"spec-id\":7");
    assertThatThrownBy(() -> decoder.dataFile(new WireFile(otherSpec, 1, 1, List.of())))
        .isInstanceOf(ProtocolException.class)
        .hasMessageStartingWith(
            "file names partition spec 7, which the message does not carry (it carries [0]): ");
  }

  @Test
  void aDeleteFileIsNotAcceptedAsDataNorDataAsDelete() {
    FileCodec.Decoder decoder = unpartitionedDecoder();
    String data = FileCodec.encode(dataFile(), PartitionSpec.unpartitioned()).json();
    DeleteFile delete =
        FileMetadata.deleteFileBuilder(PartitionSpec.unpartitioned())
            .ofPositionDeletes()
            .withPath("/tmp/deletes.parquet")
            .withFormat("parquet")
            .withFileSizeInBytes(10)
            .withRecordCount(1)
            .build();
    String deletes = FileCodec.encode(delete, PartitionSpec.unpartitioned()).json();

    assertThatThrownBy(() -> decoder.deleteFile(new WireFile(data, 1, 1, List.of())))
        .isInstanceOf(ProtocolException.class)
        .hasMessageStartingWith("expected a delete file, got content 'data': ");
    assertThatThrownBy(() -> decoder.dataFile(new WireFile(deletes, 1, 1, List.of())))
        .isInstanceOf(ProtocolException.class)
        .hasMessageStartingWith("expected a data file, got content 'position-deletes': ");
    assertThat(decoder.deleteFile(new WireFile(deletes, 2, 2, List.of())).location())
        .isEqualTo("/tmp/deletes.parquet");
  }

  @Test
  void anAssignmentCarryingASpecTwiceOrNoneWithoutIdIsRefused() {
    String schema = FileCodec.schemaJson(SCHEMA);
    String spec = FileCodec.specJsons(List.of(PartitionSpec.unpartitioned())).get(0);
    assertThatThrownBy(() -> FileCodec.decoder(schema, List.of(spec, spec)))
        .isInstanceOf(ProtocolException.class)
        .hasMessage("partition spec 0 is carried twice");
    assertThatThrownBy(() -> FileCodec.decoder(schema, List.of("{\"fields\":[]}")))
        .isInstanceOf(ProtocolException.class)
        .hasMessage("a partition spec has no spec-id: {\"fields\":[]}");
    assertThatThrownBy(() -> FileCodec.decoder("not json", List.of(spec)))
        .isInstanceOf(ProtocolException.class)
        .hasMessage("the schema is not JSON: not json");
  }

  private static final Schema SCHEMA =
      new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));

  private static FileCodec.Decoder unpartitionedDecoder() {
    return FileCodec.decoder(
        FileCodec.schemaJson(SCHEMA), FileCodec.specJsons(List.of(PartitionSpec.unpartitioned())));
  }

  private static DataFile dataFile() {
    return DataFiles.builder(PartitionSpec.unpartitioned())
        .withPath("/tmp/data.parquet")
        .withFormat("parquet")
        .withFileSizeInBytes(10)
        .withRecordCount(1)
        .build();
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
