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
 */
public record IngestConfig(
    Source source, CatalogSettings catalog, IngestSettings settings, Duration checkpointInterval) {

  /** Where events come from. */
  public sealed interface Source {}

  /**
   * The built-in bounded event generator ({@link SampleEvents}).
   *
   * @param events how many events to produce
   * @param perSecond how many events per second
   */
  public record GeneratorSource(long events, double perSecond) implements Source {}

  /** Kafka topics. */
  public record KafkaSource(KafkaSettings kafka) implements Source {}

  /** The directory the embedded defaults keep their catalog and warehouse in. */
  public static final Path EMBEDDED_DIRECTORY = Path.of("firn-data");

  /**
   * The embedded default: 1,000 generated events at 100 per second into a JDBC catalog on the
   * SQLite file {@code firn-data/catalog.db} (warehouse {@code firn-data/warehouse}), namespace
   * {@code events}, a checkpoint every 10 s.
   */
  public static IngestConfig embedded() {
    return new IngestConfig(
        new GeneratorSource(1_000, 100),
        embeddedCatalog(),
        IngestSettings.defaults("events"),
        Duration.ofSeconds(10));
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
