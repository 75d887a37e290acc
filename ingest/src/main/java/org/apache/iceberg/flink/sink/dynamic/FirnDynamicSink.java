package org.apache.iceberg.flink.sink.dynamic;

import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessageTypeInfo;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.runtime.operators.sink.SinkWriterOperatorFactory;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.OutputTag;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.FlinkWriteOptions;

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
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public static DataStreamSink<?> append(
      SingleOutputStreamOperator<Record> records,
      CatalogLoader catalogLoader,
      String uidPrefix,
      int writeParallelism) {
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
        new DynamicIcebergSink(
            catalogLoader,
            Map.of(),
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

  private static Map<String, String> writeOptions(int writeParallelism) {
    return Map.of(FlinkWriteOptions.WRITE_PARALLELISM.key(), Integer.toString(writeParallelism));
  }

  private static FlinkDynamicSinkConf conf(Map<String, String> writeOptions) {
    return new FlinkDynamicSinkConf(writeOptions, new Configuration());
  }
}
