/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import io.firn.core.catalog.CatalogSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The ingest job's whole configuration, as read from one YAML file by {@link IngestConfigParser}.
 *
 * @param source where events come from
 * @param catalog the Iceberg catalog the tables live in
 * @param settings routing, format, per-table rules, dead-letter table
 * @param checkpointInterval how often the job checkpoints, and so commits to Iceberg
 * @param checkpoints where a local run ({@code bin/firn ingest}) keeps its checkpoints
 * @param metricsPort where a local run serves its metrics on 127.0.0.1 ({@link
 *     LocalMetricsReporter}); 0 serves none
 */
public record IngestConfig(
    Source source,
    CatalogSettings catalog,
    IngestSettings settings,
    Duration checkpointInterval,
    Checkpoints checkpoints,
    int metricsPort) {

  /** The port a local run serves its metrics on unless configured. */
  public static final int DEFAULT_METRICS_PORT = 9250;

  /** A configuration whose local run serves its metrics on the default port. */
  public IngestConfig(
      Source source,
      CatalogSettings catalog,
      IngestSettings settings,
      Duration checkpointInterval,
      Checkpoints checkpoints) {
    this(source, catalog, settings, checkpointInterval, checkpoints, DEFAULT_METRICS_PORT);
  }

  /**
   * The checkpoints of a local run (ADR 0019): a run on a cluster keeps them where the cluster's
   * Flink configuration says and ignores this.
   *
   * @param directory the directory Flink writes {@code <job id>/chk-N} into; relative paths are
   *     relative to the working directory
   * @param retained how many completed checkpoints each run keeps (at least 1)
   */
  public record Checkpoints(Path directory, int retained) {
    /** How many completed checkpoints a run keeps unless configured. */
    public static final int DEFAULT_RETAINED = 3;

    public Checkpoints {
      if (directory == null) {
        throw new IllegalArgumentException("checkpoint directory must be set");
      }
      if (retained < 1) {
        throw new IllegalArgumentException(
            "retained checkpoints " + retained + " must be at least 1");
      }
    }

    /** {@code firn-data/checkpoints} (relative to the working directory), 3 retained. */
    public static Checkpoints defaults() {
      return new Checkpoints(EMBEDDED_DIRECTORY.resolve("checkpoints"), DEFAULT_RETAINED);
    }
  }

  /** Where events come from. */
  public sealed interface Source {}

  /**
   * The built-in event generator.
   *
   * @param profile which events: the realistic {@link EventStream} or the small {@link
   *     SampleEvents} set
   * @param events how many events to produce ({@link #UNBOUNDED}: until cancelled)
   * @param perSecond how many events per second
   * @param seed varies the stream's random choices (stream profile)
   * @param v2After the first event index with v2 payloads (stream profile)
   * @param newTypeAfter the first event index that may be of the fourth type, {@code
   *     payment_events} (stream profile)
   * @param badEvery every {@code badEvery}-th event is malformed, for the dead-letter path (0:
   *     none; stream profile)
   */
  public record GeneratorSource(
      Profile profile,
      long events,
      double perSecond,
      long seed,
      long v2After,
      long newTypeAfter,
      long badEvery)
      implements Source {

    /** {@link #events()} of a stream that runs until the job is cancelled. */
    public static final long UNBOUNDED = Long.MAX_VALUE;

    /**
     * The realistic stream with default switches: v2 payloads from half of {@code events} and the
     * fourth type from two thirds on (5,000 and 10,000 events when unbounded), seed 1, no bad
     * events.
     */
    public static GeneratorSource stream(long events, double perSecond) {
      boolean bounded = events != UNBOUNDED;
      return new GeneratorSource(
          Profile.STREAM,
          events,
          perSecond,
          1,
          bounded ? events / 2 : 5_000,
          bounded ? events * 2 / 3 : 10_000,
          0);
    }

    /** The small sample set ({@link SampleEvents}) of {@code events} events. */
    public static GeneratorSource sample(long events, double perSecond) {
      return new GeneratorSource(Profile.SAMPLE, events, perSecond, 1, 0, 0, 0);
    }

    /** The stream's settings in {@code format} (stream profile). */
    public EventStream.Settings streamSettings(EventFormat format) {
      return EventStream.Settings.of(seed, v2After, newTypeAfter, format).withBadEvery(badEvery);
    }
  }

  /** The generator's event sets. */
  public enum Profile {
    /** {@link EventStream}: four event types, v1 then v2 payloads, updates (and CDC deletes). */
    STREAM,
    /** {@link SampleEvents}: two tables, one new field, two bad events (plain JSON only). */
    SAMPLE;

    /** The name used in configuration ({@code stream}, {@code sample}). */
    public String configName() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** Kafka topics. */
  public record KafkaSource(KafkaSettings kafka) implements Source {}

  /** The directory the embedded defaults keep their catalog and warehouse in. */
  public static final Path EMBEDDED_DIRECTORY = Path.of("firn-data");

  /**
   * The embedded default: 1,000 events of the realistic stream ({@link EventStream}: v2 payloads
   * from event 500, {@code payment_events} from event 666) at 100 per second into a JDBC catalog on
   * the SQLite file {@code firn-data/catalog.db} (warehouse {@code firn-data/warehouse}), namespace
   * {@code events}, a checkpoint every 10 s, kept in {@code firn-data/checkpoints}.
   */
  public static IngestConfig embedded() {
    return new IngestConfig(
        GeneratorSource.stream(1_000, 100),
        embeddedCatalog(),
        IngestSettings.defaults("events"),
        Duration.ofSeconds(10),
        Checkpoints.defaults());
  }

  static CatalogSettings embeddedCatalog() {
    return new CatalogSettings(
        "firn",
        "jdbc",
        "jdbc:sqlite:" + EMBEDDED_DIRECTORY.resolve("catalog.db"),
        EMBEDDED_DIRECTORY.resolve("warehouse").toString(),
        Map.of());
  }
}
