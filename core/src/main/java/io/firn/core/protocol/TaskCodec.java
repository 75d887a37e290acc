/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.protocol;

import io.firn.core.plan.OptimizingType;
import io.firn.core.plan.RewriteTask;
import io.firn.core.table.DataFileEntry;
import io.firn.core.table.PartitionKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;

/** Turns a planned {@link RewriteTask} into a {@link TaskAssignment} and back. Stateless. */
public final class TaskCodec {
  private TaskCodec() {}

  /**
   * An encoder for the tasks of one table (its schema and specs): every assignment it makes shares
   * one copy of the schema's and each spec's JSON, so a server holding a plan's assignments holds
   * them once.
   */
  public static Encoder forTable(Table table) {
    Map<Integer, String> specJsons = new HashMap<>();
    table
        .specs()
        .forEach((id, spec) -> specJsons.put(id, FileCodec.specJsons(List.of(spec)).get(0)));
    return new Encoder(table.specs(), FileCodec.schemaJson(table.schema()), specJsons);
  }

  /** Encodes the tasks of one table; see {@link #forTable}. Immutable and thread-safe. */
  public static final class Encoder {
    private final Map<Integer, PartitionSpec> specs;
    private final String schemaJson;
    private final Map<Integer, String> specJsons;

    private Encoder(
        Map<Integer, PartitionSpec> specs, String schemaJson, Map<Integer, String> specJsons) {
      this.specs = Map.copyOf(specs);
      this.schemaJson = schemaJson;
      this.specJsons = Map.copyOf(specJsons);
    }

    /**
     * Encodes a task of this encoder's table; the attempt id and lease are set when it is leased.
     *
     * @param catalog the catalog's configured name
     * @param identifier the table's identifier in the catalog ({@code namespace.table})
     */
    public TaskAssignment encode(
        RewriteTask task,
        String catalog,
        String identifier,
        String taskId,
        String processId,
        long snapshotId,
        long sequenceNumber,
        long bloomThreshold) {
      Map<Integer, PartitionSpec> carried = new TreeMap<>();
      Map<String, Integer> deleteIndex = new LinkedHashMap<>();
      List<WireFile> deletes = new ArrayList<>();
      List<WireFile> rewrite = new ArrayList<>();
      List<WireFile> convert = new ArrayList<>();
      for (int pass = 0; pass < 2; pass++) {
        List<DataFileEntry> entries = pass == 0 ? task.rewrite() : task.convert();
        List<WireFile> out = pass == 0 ? rewrite : convert;
        for (DataFileEntry entry : entries) {
          List<Integer> indexes = new ArrayList<>();
          for (DeleteFile delete : entry.deletes()) {
            Integer index = deleteIndex.get(delete.location());
            if (index == null) {
              index = deletes.size();
              deleteIndex.put(delete.location(), index);
              deletes.add(FileCodec.encode(delete, spec(specs, carried, delete.specId())));
            }
            indexes.add(index);
          }
          out.add(
              FileCodec.encode(entry.file(), spec(specs, carried, entry.file().specId()), indexes));
        }
      }
      return new TaskAssignment(
          taskId,
          "",
          processId,
          catalog,
          identifier,
          task.type().name().toLowerCase(Locale.ROOT),
          snapshotId,
          sequenceNumber,
          task.partition().specId(),
          task.partition().path(),
          task.targetSize(),
          task.minTargetSize(),
          bloomThreshold,
          schemaJson,
          carried.keySet().stream().map(specJsons::get).toList(),
          rewrite,
          convert,
          deletes,
          0);
    }
  }

  /**
   * Decodes the files of an assignment into a task the executor runs.
   *
   * @param id the task's number within its process
   * @throws ProtocolException when a file cannot be decoded or an index is out of range
   */
  public static RewriteTask decode(TaskAssignment assignment, int id) {
    FileCodec.Decoder decoder = decoder(assignment);
    List<DeleteFile> deletes = new ArrayList<>();
    for (WireFile wire : assignment.deletes()) {
      deletes.add(decoder.deleteFile(wire));
    }
    OptimizingType type;
    try {
      type = OptimizingType.parse(assignment.type());
    } catch (IllegalArgumentException e) {
      throw new ProtocolException("task " + assignment.taskId() + ": " + e.getMessage(), e);
    }
    return new RewriteTask(
        id,
        new PartitionKey(assignment.specId(), assignment.partition()),
        type,
        entries(assignment, decoder, assignment.rewrite(), deletes),
        entries(assignment, decoder, assignment.convert(), deletes),
        assignment.targetSize(),
        assignment.minTargetSize());
  }

  /**
   * The decoder for the files of an assignment and of its completion: both are read against the
   * schema and specs the assignment carries, so a worker's result cannot bring a spec of its own.
   *
   * @throws ProtocolException when the assignment's schema or specs are not Iceberg JSON
   */
  public static FileCodec.Decoder decoder(TaskAssignment assignment) {
    try {
      return FileCodec.decoder(assignment.schema(), assignment.specs());
    } catch (ProtocolException e) {
      throw new ProtocolException("task " + assignment.taskId() + ": " + e.getMessage(), e);
    }
  }

  private static List<DataFileEntry> entries(
      TaskAssignment assignment,
      FileCodec.Decoder decoder,
      List<WireFile> files,
      List<DeleteFile> deletes) {
    List<DataFileEntry> entries = new ArrayList<>(files.size());
    for (WireFile wire : files) {
      DataFile file = decoder.dataFile(wire);
      List<DeleteFile> applied = new ArrayList<>(wire.deletes().size());
      for (int index : wire.deletes()) {
        if (index < 0 || index >= deletes.size()) {
          throw new ProtocolException(
              "task "
                  + assignment.taskId()
                  + ": data file "
                  + file.location()
                  + " refers to delete file #"
                  + index
                  + " but the task carries "
                  + deletes.size());
        }
        applied.add(deletes.get(index));
      }
      entries.add(new DataFileEntry(file, applied));
    }
    return entries;
  }

  private static PartitionSpec spec(
      Map<Integer, PartitionSpec> specs, Map<Integer, PartitionSpec> carried, int specId) {
    PartitionSpec spec = specs.get(specId);
    if (spec == null) {
      throw new IllegalStateException("the table has no partition spec " + specId);
    }
    carried.putIfAbsent(specId, spec);
    return spec;
  }
}
