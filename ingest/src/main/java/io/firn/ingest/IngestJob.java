/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import io.firn.core.catalog.CatalogSettings;
import io.firn.core.catalog.Catalogs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.KafkaSourceBuilder;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.LocalStreamEnvironment;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.sink.dynamic.FirnDynamicSink;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;

/**
 * The ingest job: events (JSON strings) → {@link IngestRouter} (routing, schema inference, table
 * creation and evolution, metrics) → the writers and committer of Iceberg's dynamic sink ({@link
 * FirnDynamicSink}), which commit on checkpoints. Thin shell: routing lives in {@link
 * JsonEventRouter} and {@link DebeziumEventRouter}.
 */
public final class IngestJob {
  /** The job's name in Flink. */
  static final String JOB_NAME = "firn-ingest";

  private IngestJob() {}

  /** Attaches the routing upsert sink (and the dead-letter table) to {@code events}. */
  public static DataStreamSink<?> addSink(
      DataStream<IngestEvent> events,
      CatalogLoader catalogLoader,
      IngestSettings settings,
      Map<String, String> tableProperties) {
    SingleOutputStreamOperator<FirnDynamicSink.Record> routed =
        events
            .process(
                new IngestRouter(
                    settings, catalogLoader, new VersionTwoTableCreator(tableProperties, settings)))
            .returns(FirnDynamicSink.recordType(catalogLoader))
            // Same parallelism as the input, chained to it.
            .setParallelism(events.getParallelism())
            .name("firn-route")
            .uid("firn-route");
    // The sink's writers and committer, without its per-record processor: the router creates and
    // evolves the tables and makes the writers' records itself (ADR 0014).
    // Every commit names its writer: a table that appends new keys recognises the job's own
    // snapshots in its history (ADR 0008 §14).
    return FirnDynamicSink.append(
        routed,
        catalogLoader,
        JOB_NAME,
        settings.writeParallelism(),
        Map.of(NewKeys.WRITER_PROPERTY, JOB_NAME));
  }

  /**
   * The sample set ({@link SampleEvents}) as a bounded source of {@code count} events at {@code
   * perSecond}. One source subtask, so that the updates of a key reach the writers in order.
   */
  public static DataStream<IngestEvent> sampleEvents(
      StreamExecutionEnvironment env, long count, double perSecond) {
    DataGeneratorSource<IngestEvent> source =
        new DataGeneratorSource<>(
            new SampleEvents(count),
            count,
            RateLimiterStrategy.perSecond(perSecond),
            TypeInformation.of(IngestEvent.class));
    return env.fromSource(source, WatermarkStrategy.noWatermarks(), "firn-sample-events")
        .setParallelism(1)
        .uid("firn-sample-events");
  }

  /**
   * The built-in generator: the realistic {@link EventStream} rendered in {@code format}, or the
   * sample set. One source subtask, so that the updates of a key reach the writers in order.
   */
  public static DataStream<IngestEvent> generatorEvents(
      StreamExecutionEnvironment env, IngestConfig.GeneratorSource generator, EventFormat format) {
    if (generator.profile() == IngestConfig.Profile.SAMPLE) {
      return sampleEvents(env, generator.events(), generator.perSecond());
    }
    DataGeneratorSource<IngestEvent> source =
        new DataGeneratorSource<>(
            new StreamEvents(generator.streamSettings(format)),
            generator.events(),
            RateLimiterStrategy.perSecond(generator.perSecond()),
            TypeInformation.of(IngestEvent.class));
    return env.fromSource(source, WatermarkStrategy.noWatermarks(), "firn-generator")
        .setParallelism(1)
        .uid("firn-generator");
  }

  /**
   * Events from Kafka. The source's split offsets are part of each checkpoint and the Iceberg
   * commit of that checkpoint happens only once it completes, so a restore replays exactly the
   * records whose rows were not committed (exactly-once together with the sink's checkpoint-aligned
   * commits). Unbounded: the job runs until cancelled.
   */
  public static DataStream<IngestEvent> kafkaEvents(
      StreamExecutionEnvironment env, KafkaSettings kafka) {
    KafkaSourceBuilder<IngestEvent> builder =
        KafkaSource.<IngestEvent>builder()
            .setBootstrapServers(kafka.bootstrapServers())
            .setGroupId(kafka.groupId())
            .setDeserializer(new KafkaEvents())
            .setStartingOffsets(
                switch (kafka.startingOffsets()) {
                  case EARLIEST -> OffsetsInitializer.earliest();
                  case LATEST -> OffsetsInitializer.latest();
                  case COMMITTED ->
                      OffsetsInitializer.committedOffsets(OffsetResetStrategy.EARLIEST);
                });
    if (kafka.topicPattern() != null) {
      builder.setTopicPattern(java.util.regex.Pattern.compile(kafka.topicPattern()));
    } else {
      builder.setTopics(kafka.topics());
    }
    kafka.properties().forEach(builder::setProperty);
    return env.fromSource(builder.build(), WatermarkStrategy.noWatermarks(), "firn-kafka")
        .setParallelism(kafka.parallelism())
        .uid("firn-kafka");
  }

  /**
   * A Flink catalog loader for a Firn catalog of any type ({@link CatalogSettings#TYPES}): the
   * class Iceberg maps the type to, or a custom class; a Hive catalog's {@code hive.*} properties
   * go into its Hadoop configuration, as for the server and the CLI (ADR 0025).
   */
  public static CatalogLoader catalogLoader(CatalogSettings settings) {
    Map<String, String> properties = new HashMap<>(settings.icebergProperties());
    properties.remove("type");
    String implementation =
        switch (settings.type()) {
          case "jdbc" -> CatalogUtil.ICEBERG_CATALOG_JDBC;
          case "hadoop" -> CatalogUtil.ICEBERG_CATALOG_HADOOP;
          case "rest" -> CatalogUtil.ICEBERG_CATALOG_REST;
          case "hive" -> CatalogUtil.ICEBERG_CATALOG_HIVE;
          case "glue" -> CatalogUtil.ICEBERG_CATALOG_GLUE;
          case "custom" -> properties.remove(CatalogSettings.CATALOG_IMPL);
          default ->
              throw new IllegalArgumentException(
                  "catalog type '"
                      + settings.type()
                      + "' is not one of "
                      + String.join(", ", CatalogSettings.TYPES));
        };
    return new DriverRegisteringCatalogLoader(
        CatalogLoader.custom(
            settings.name(), properties, Catalogs.hadoopConfiguration(settings), implementation),
        settings.uri());
  }

  /**
   * Builds the whole job from its configuration: the source, checkpointing and the sink.
   *
   * @return the sink, for tests that need the job graph
   */
  public static DataStreamSink<?> build(StreamExecutionEnvironment env, IngestConfig config) {
    env.enableCheckpointing(config.checkpointInterval().toMillis());
    // Aligned checkpoints, whatever the cluster's default: the router's handling of a schema
    // change inside a checkpoint relies on every record it sent before a barrier being written
    // before the writers' flush for that barrier (ADR 0004 §2). Unaligned barriers overtake
    // records in flight.
    Configuration aligned = new Configuration();
    aligned.set(CheckpointingOptions.ENABLE_UNALIGNED, false);
    env.configure(aligned);
    DataStream<IngestEvent> events;
    if (config.source() instanceof IngestConfig.KafkaSource kafka) {
      events = kafkaEvents(env, kafka.kafka());
    } else if (config.source() instanceof IngestConfig.GeneratorSource generator) {
      events = generatorEvents(env, generator, config.settings().format());
    } else {
      throw new IllegalStateException("unknown source " + config.source());
    }
    return addSink(events, catalogLoader(config.catalog()), config.settings(), Map.of());
  }

  /**
   * {@code IngestJob [--config FILE]}: runs the configured job (a MiniCluster locally, the cluster
   * under {@code flink run}). Without a file: the built-in generator's realistic stream into an
   * SQLite JDBC catalog in {@code firn-data/} (see {@link IngestConfig#embedded()}).
   */
  public static void main(String[] args) throws Exception {
    IngestConfig config = config(args);
    if (config.catalog().equals(IngestConfig.embeddedCatalog())) {
      Files.createDirectories(IngestConfig.EMBEDDED_DIRECTORY);
    }
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    if (!(env instanceof LocalStreamEnvironment)) {
      // flink run: the cluster's configuration says where checkpoints go and what to restore.
      build(env, config);
      env.execute(JOB_NAME);
      return;
    }
    // A local MiniCluster (bin/firn ingest): checkpoints on disk, resumed on the next start.
    Configuration local = new Configuration();
    Optional<LocalCheckpoints.Checkpoint> resumed =
        LocalCheckpoints.prepare(config.checkpoints(), local);
    if (config.metricsPort() > 0) {
      LocalMetricsReporter.configure(local, config.metricsPort());
    }
    env = StreamExecutionEnvironment.createLocalEnvironment(local);
    build(env, config);
    try {
      env.execute(JOB_NAME);
    } catch (Exception e) {
      if (resumed.isPresent() && LocalCheckpoints.isRestoreFailure(e)) {
        throw new IllegalStateException(
            LocalCheckpoints.restoreFailure(resumed.get(), config.checkpoints().directory(), e), e);
      }
      throw e;
    }
  }

  /** The configuration named by the command line ({@code [--config FILE]}). */
  static IngestConfig config(String[] args) {
    if (args.length == 0) {
      return IngestConfig.embedded();
    }
    if (args.length == 2 && args[0].equals("--config")) {
      return IngestConfigParser.parse(Path.of(args[1]));
    }
    throw new IllegalArgumentException(
        "usage: IngestJob [--config FILE] (got: " + String.join(" ", args) + ")");
  }
}
