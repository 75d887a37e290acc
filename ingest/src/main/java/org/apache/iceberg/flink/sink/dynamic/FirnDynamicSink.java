/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package org.apache.iceberg.flink.sink.dynamic;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessageTypeInfo;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.runtime.operators.sink.SinkWriterOperatorFactory;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.OutputTag;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.FlinkWriteConf;
import org.apache.iceberg.flink.FlinkWriteOptions;
import org.apache.iceberg.flink.sink.RowDataTaskWriterFactory;
import org.apache.iceberg.flink.sink.SinkUtil;
import org.apache.iceberg.io.TaskWriter;
import org.apache.iceberg.io.WriteResult;

/**
 * Firn's way into Iceberg's dynamic sink (Iceberg 1.11.0) without the sink's per-record {@code
 * DynamicRecordProcessor}: Firn's router already creates and evolves the tables and knows each
 * row's table schema, spec and writer, so it makes the sink's internal records itself, and only the
 * sink's writers, write-result aggregator and committer run behind it (ADR 0014). It lives in
 * Iceberg's package because those records and the sink's constructor are package-private; the job
 * jar carries Iceberg, so both are loaded by the same class loader.
 */
public final class FirnDynamicSink {
  private FirnDynamicSink() {}

  /** A row for the sink's writers, made by Firn's router: always on the main branch. */
  public static final class Record extends DynamicRecordInternal {
    /**
     * @param tableName the table's identifier as text ({@code namespace.table})
     * @param schema one of the table's own schemas (its id is what travels to the writers)
     * @param row the row in {@code schema}'s columns
     * @param spec one of the table's own specs
     * @param writerKey the key the writers are chosen by: equal for rows that must meet in one
     *     writer (the same table and key)
     * @param upsert whether the row replaces the row of its key (and a {@code DELETE} row deletes
     *     it)
     * @param equalityFieldIds the key's field ids in {@code schema}; empty for appends
     */
    public Record(
        String tableName,
        Schema schema,
        RowData row,
        PartitionSpec spec,
        int writerKey,
        boolean upsert,
        Set<Integer> equalityFieldIds) {
      super(
          tableName,
          SnapshotRef.MAIN_BRANCH,
          schema,
          row,
          spec,
          writerKey,
          upsert,
          equalityFieldIds);
    }
  }

  /**
   * The type of the router's output: the sink's own serializer, which sends schema and spec ids
   * (not their JSON) and resolves them from the catalog on the writers' side.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public static TypeInformation<Record> recordType(CatalogLoader catalogLoader) {
    return (TypeInformation)
        new DynamicRecordInternalType(catalogLoader, false, conf(writeOptions(1)).cacheMaxSize());
  }

  /**
   * Wires the sink behind {@code records} as {@code DynamicIcebergSink.Builder#append} does, minus
   * the processor: records are keyed by {@link Record#writerKey()} to {@code writeParallelism}
   * writers, whose results are aggregated per table and committed on checkpoints. The sink's
   * forward-write path is attached too (the committer expects its results) but receives nothing.
   * The operator uids are the builder's for {@code uidPrefix}, so the writers' and the committer's
   * state keep their ids.
   *
   * @param snapshotProperties set on every snapshot the committer commits
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public static DataStreamSink<?> append(
      SingleOutputStreamOperator<Record> records,
      CatalogLoader catalogLoader,
      String uidPrefix,
      int writeParallelism,
      Map<String, String> snapshotProperties) {
    Map<String, String> writeOptions = writeOptions(writeParallelism);
    Configuration flinkConfig = new Configuration();
    int cacheSize = conf(writeOptions).cacheMaxSize();
    DynamicRecordInternalType sideOutputType =
        new DynamicRecordInternalType(catalogLoader, true, cacheSize);
    TypeInformation<CommittableMessage<DynamicWriteResult>> writeResultType =
        CommittableMessageTypeInfo.of(DynamicWriteResultSerializer::new);
    DataStream<CommittableMessage<DynamicWriteResult>> forwardWriteResults =
        records
            .getSideOutput(
                new OutputTag<>(DynamicRecordProcessor.DYNAMIC_FORWARD_STREAM, sideOutputType))
            .transform(
                uidPrefix + "-Forward-Writer",
                writeResultType,
                new SinkWriterOperatorFactory<>(
                    new DynamicIcebergSink.ForwardWriterSink(
                        catalogLoader, writeOptions, flinkConfig, cacheSize)))
            .setParallelism(records.getParallelism())
            .uid(uidPrefix + "--forward-writer");
    DynamicIcebergSink sink =
        new Sink(
            catalogLoader,
            snapshotProperties,
            uidPrefix,
            writeOptions,
            flinkConfig,
            cacheSize,
            forwardWriteResults);
    DataStreamSink<DynamicRecordInternal> result =
        ((DataStream<DynamicRecordInternal>) (DataStream) records)
            .sinkTo(sink)
            .uid(uidPrefix + "--sink");
    result.setParallelism(writeParallelism);
    return result;
  }

  /**
   * The dynamic sink with Firn's writer ({@link Writer}) in place of Iceberg's {@code
   * DynamicWriter}; its aggregator and committer are the sink's own.
   */
  private static final class Sink extends DynamicIcebergSink {
    private static final long serialVersionUID = 1L;

    private final CatalogLoader catalogLoader;
    private final Map<String, String> writeProperties;
    private final Configuration flinkConfig;
    private final int cacheMaximumSize;

    Sink(
        CatalogLoader catalogLoader,
        Map<String, String> snapshotProperties,
        String uidPrefix,
        Map<String, String> writeProperties,
        Configuration flinkConfig,
        int cacheMaximumSize,
        DataStream<CommittableMessage<DynamicWriteResult>> forwardWriteResults) {
      super(
          catalogLoader,
          snapshotProperties,
          uidPrefix,
          writeProperties,
          flinkConfig,
          cacheMaximumSize,
          forwardWriteResults);
      this.catalogLoader = catalogLoader;
      this.writeProperties = writeProperties;
      this.flinkConfig = flinkConfig;
      this.cacheMaximumSize = cacheMaximumSize;
    }

    @Override
    public SinkWriter<DynamicRecordInternal> createWriter(WriterInitContext context) {
      return new Writer(
          catalogLoader.loadCatalog(),
          writeProperties,
          flinkConfig,
          cacheMaximumSize,
          new DynamicWriterMetrics(context.metricGroup()),
          context.getTaskInfo().getIndexOfThisSubtask(),
          context.getTaskInfo().getAttemptNumber());
    }
  }

  /**
   * The sink's writer as Iceberg's {@code DynamicWriter} is (one task writer per table, schema,
   * spec, mode and equality fields in each checkpoint; the same results, metrics and files), but it
   * finds a record's task writer by the identity of the record's schema, which the sink's
   * serializer resolves once per table and schema id, instead of building and hashing a {@code
   * WriteTarget} (boxed ids and the equality-field set) for every record (ADR 0014).
   */
  static final class Writer
      implements CommittingSinkWriter<DynamicRecordInternal, DynamicWriteResult> {
    private final Catalog catalog;
    private final Map<String, String> writeProperties;
    private final Configuration flinkConfig;
    private final DynamicWriterMetrics metrics;
    private final int subtask;
    private final int attempt;
    private final Map<WriteTarget, RowDataTaskWriterFactory> factories;

    /** This checkpoint's task writers, in the order they were opened. */
    private final Map<WriteTarget, Open> writers = new LinkedHashMap<>();

    /** The same writers by schema instance: most schemas have one (upsert or append), some two. */
    private final Map<Schema, Open[]> bySchema = new IdentityHashMap<>();

    private record Open(WriteTarget target, TaskWriter<RowData> writer) {
      boolean serves(DynamicRecordInternal record) {
        return target.specId() == record.spec().specId()
            && target.upsertMode() == record.upsertMode()
            && target.tableName().equals(record.tableName())
            && target.equalityFields().equals(record.equalityFields());
      }
    }

    Writer(
        Catalog catalog,
        Map<String, String> writeProperties,
        Configuration flinkConfig,
        int cacheMaximumSize,
        DynamicWriterMetrics metrics,
        int subtask,
        int attempt) {
      this.catalog = catalog;
      this.writeProperties = writeProperties;
      this.flinkConfig = flinkConfig;
      this.metrics = metrics;
      this.subtask = subtask;
      this.attempt = attempt;
      this.factories = new LRUCache<>(cacheMaximumSize);
    }

    @Override
    public void write(DynamicRecordInternal record, Context context) throws IOException {
      writer(record).write(record.rowData());
      metrics.mainMetricsGroup().getNumRecordsSendCounter().inc();
    }

    private TaskWriter<RowData> writer(DynamicRecordInternal record) {
      Open[] open = bySchema.get(record.schema());
      if (open != null) {
        for (Open candidate : open) {
          if (candidate.serves(record)) {
            return candidate.writer();
          }
        }
      }
      WriteTarget target =
          new WriteTarget(
              record.tableName(),
              record.branch(),
              record.schema().schemaId(),
              record.spec().specId(),
              record.upsertMode(),
              record.equalityFields());
      Open found = writers.get(target);
      if (found == null) {
        RowDataTaskWriterFactory factory =
            factories.computeIfAbsent(target, key -> factory(key, record));
        factory.initialize(subtask, attempt);
        found = new Open(target, factory.create());
        writers.put(target, found);
      }
      Open[] more = open == null ? new Open[1] : Arrays.copyOf(open, open.length + 1);
      more[more.length - 1] = found;
      bySchema.put(record.schema(), more);
      return found.writer();
    }

    /**
     * The task writers' factory of {@code target}, made as Iceberg's {@code DynamicWriter} does.
     */
    private RowDataTaskWriterFactory factory(WriteTarget target, DynamicRecordInternal record) {
      Table table = catalog.loadTable(TableIdentifier.parse(target.tableName()));
      // As the sink's writer: without the record's equality fields, the table's identifier fields.
      Set<Integer> equalityFieldIds = record.equalityFields();
      if (equalityFieldIds == null || equalityFieldIds.isEmpty()) {
        equalityFieldIds = table.schema().identifierFieldIds();
      }
      if (equalityFieldIds.isEmpty() && record.upsertMode()) {
        throw new IllegalStateException(
            "Equality field columns shouldn't be empty when configuring to use UPSERT data.");
      }
      if (record.upsertMode() && !table.spec().isUnpartitioned()) {
        for (PartitionField field : table.spec().fields()) {
          if (!equalityFieldIds.contains(field.sourceId())) {
            throw new IllegalStateException(
                "In UPSERT mode, partition field '"
                    + field
                    + "' should be included in equality fields: '"
                    + equalityFieldIds
                    + "'");
          }
        }
      }
      FlinkWriteConf conf = new FlinkWriteConf(table, writeProperties, flinkConfig);
      return new RowDataTaskWriterFactory(
          () -> table,
          FlinkSchemaUtil.convert(record.schema()),
          conf.targetDataFileSize(),
          conf.dataFileFormat(),
          SinkUtil.writeProperties(conf.dataFileFormat(), conf, table),
          new ArrayList<>(equalityFieldIds),
          record.upsertMode(),
          record.schema(),
          record.spec());
    }

    @Override
    public void flush(boolean endOfInput) {
      // The files are completed in prepareCommit, at the barrier.
    }

    @Override
    public Collection<DynamicWriteResult> prepareCommit() throws IOException {
      List<DynamicWriteResult> results = new ArrayList<>(writers.size());
      for (Open open : writers.values()) {
        long started = System.nanoTime();
        WriteResult result = open.writer().complete();
        String tableName = open.target().tableName();
        metrics.updateFlushResult(tableName, result);
        metrics.flushDuration(
            tableName, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        results.add(
            new DynamicWriteResult(
                new TableKey(tableName, open.target().branch()), open.target().specId(), result));
      }
      writers.clear();
      bySchema.clear();
      return results;
    }

    @Override
    public void close() throws Exception {
      for (Open open : writers.values()) {
        open.writer().close();
      }
      writers.clear();
      bySchema.clear();
    }
  }

  /**
   * One record of the router's output as it arrives through Flink's serializer (which makes the
   * sink's internal record, not a {@link Record}): its table and its row in one of the table's
   * schemas.
   */
  public static final class Routed {
    private final DynamicRecordInternal internal;

    private Routed(DynamicRecordInternal internal) {
      this.internal = internal;
    }

    /** {@code element}, an element of a stream of {@link #recordType}, seen as a record. */
    public static Routed of(Object element) {
      return new Routed((DynamicRecordInternal) element);
    }

    /** The table's identifier as text ({@code namespace.table}). */
    public String tableName() {
      return internal.tableName();
    }

    public Schema schema() {
      return internal.schema();
    }

    public RowData row() {
      return internal.rowData();
    }
  }

  /**
   * The sink's writers without Flink around them, for one process that commits what it wrote itself
   * (the replay of dead letters, ADR 0008 §12): the router's records in, one {@link WriteResult}
   * per table out, each written exactly as the sink's writer writes it (one task writer per table,
   * schema, spec and key, with the table's write properties).
   */
  public static final class Writers implements AutoCloseable {
    private final Catalog catalog;
    private final Map<String, String> writeOptions = writeOptions(1);
    private final Map<WriterKey, TaskWriter<RowData>> writers = new LinkedHashMap<>();
    private final Map<String, Table> tables = new HashMap<>();

    private record WriterKey(
        String table, int schemaId, int specId, boolean upsert, Set<Integer> equalityFields) {}

    public Writers(Catalog catalog) {
      this.catalog = catalog;
    }

    /** Writes {@code routed} with the writer of its table, schema, spec and key. */
    public void write(Routed routed) throws IOException {
      DynamicRecordInternal record = routed.internal;
      WriterKey key =
          new WriterKey(
              record.tableName(),
              record.schema().schemaId(),
              record.spec().specId(),
              record.upsertMode(),
              record.equalityFields());
      TaskWriter<RowData> writer = writers.get(key);
      if (writer == null) {
        Table table =
            tables.computeIfAbsent(
                record.tableName(), name -> catalog.loadTable(TableIdentifier.parse(name)));
        FlinkWriteConf conf = new FlinkWriteConf(table, writeOptions, new Configuration());
        RowDataTaskWriterFactory factory =
            new RowDataTaskWriterFactory(
                () -> table,
                FlinkSchemaUtil.convert(record.schema()),
                conf.targetDataFileSize(),
                conf.dataFileFormat(),
                SinkUtil.writeProperties(conf.dataFileFormat(), conf, table),
                new ArrayList<>(record.equalityFields()),
                record.upsertMode(),
                record.schema(),
                record.spec());
        factory.initialize(0, 0);
        writer = factory.create();
        writers.put(key, writer);
      }
      writer.write(record.rowData());
    }

    /** Closes every writer and returns, per table name, the files it wrote. */
    public Map<String, List<WriteResult>> complete() throws IOException {
      Map<String, List<WriteResult>> results = new LinkedHashMap<>();
      for (Map.Entry<WriterKey, TaskWriter<RowData>> entry : writers.entrySet()) {
        results
            .computeIfAbsent(entry.getKey().table(), table -> new ArrayList<>())
            .add(entry.getValue().complete());
      }
      writers.clear();
      return results;
    }

    /** Aborts every writer still open: deletes the files it wrote. */
    @Override
    public void close() throws IOException {
      for (TaskWriter<RowData> writer : writers.values()) {
        writer.abort();
      }
      writers.clear();
    }
  }

  private static Map<String, String> writeOptions(int writeParallelism) {
    return Map.of(FlinkWriteOptions.WRITE_PARALLELISM.key(), Integer.toString(writeParallelism));
  }

  private static FlinkDynamicSinkConf conf(Map<String, String> writeOptions) {
    return new FlinkDynamicSinkConf(writeOptions, new Configuration());
  }
}
