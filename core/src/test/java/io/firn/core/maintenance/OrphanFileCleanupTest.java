/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.maintenance;

import static io.firn.core.maintenance.MaintenanceTables.age;
import static io.firn.core.maintenance.MaintenanceTables.localPath;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.firn.testkit.CdcTableGenerator;
import io.firn.testkit.CdcTableSpec;
import io.firn.testkit.RowSets;
import io.firn.testkit.TestCatalogs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestWriter;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Orphan file cleanup deletes only old unreferenced files, and refuses shared locations. */
class OrphanFileCleanupTest {
  private static final CdcTableSpec SPEC =
      new CdcTableSpec(600, 5, 0.05, 0.01, 0.02, 0, 3L, false, false);
  private static final Instant NOW = Instant.now();
  private static final Instant OLD = NOW.minus(Duration.ofDays(10));
  private static final String FLINK_MANIFEST =
      "0123456789abcdef0123456789abcdef-fedcba9876543210fedcba9876543210-00000-0-7-00001.avro";

  @TempDir Path warehouse;

  @Test
  void deletesOldUnreferencedFilesAndKeepsYoungOnesFlinkManifestsAndEverythingReferenced()
      throws Exception {
    Table table =
        CdcTableGenerator.generate(
                TestCatalogs.hadoop(warehouse), TableIdentifier.of("db", "events"), SPEC)
            .table();
    Path location = localPath(table.location());
    age(location, OLD); // referenced files are old too
    List<String> referenced = MaintenanceTables.files(location);
    Path oldData = write(location.resolve("data/orphan-old.parquet"), OLD);
    Path oldManifest = write(location.resolve("metadata/abandoned-m0.avro"), OLD);
    Path young = write(location.resolve("data/orphan-young.parquet"), NOW);
    Path pending = write(location.resolve("data/flink-pending.parquet"), OLD);
    Path flinkManifest =
        flinkManifest(table, location.resolve("metadata/" + FLINK_MANIFEST), pending);
    Path outside = write(warehouse.resolve("db/events_old/data/old.parquet"), OLD);
    Map<String, Long> rows = RowSets.read(table);

    List<String> progress = new ArrayList<>();
    OrphanFileCleanup cleanup = new OrphanFileCleanup(progress::add);
    OrphanCleanupReport dry =
        cleanup.clean(table, OrphanCleanupSettings.DEFAULTS.asDryRun(), Map.of(), NOW);
    assertThat(dry.dryRun()).isTrue();
    assertThat(dry.orphanFiles())
        .map(MaintenanceTables::localPath)
        .containsExactlyInAnyOrder(oldData, oldManifest);
    assertThat(dry.deletedCount()).isZero();
    assertThat(oldData).exists();
    assertThat(oldManifest).exists();

    OrphanCleanupReport report =
        cleanup.clean(table, OrphanCleanupSettings.DEFAULTS, Map.of(), NOW);
    assertThat(report.orphanCount()).isEqualTo(2);
    assertThat(report.deletedCount()).isEqualTo(2);
    assertThat(report.orphanBytes()).isEqualTo(2 * "orphan".length());
    assertThat(report.keptTooYoung()).isEqualTo(1);
    assertThat(report.keptFlinkFiles()).isEqualTo(2);
    assertThat(report.failedDeletes()).isEmpty();
    assertThat(report.warnings()).isEmpty();
    assertThat(oldData).doesNotExist();
    assertThat(oldManifest).doesNotExist();
    assertThat(List.of(young, pending, flinkManifest, outside))
        .allSatisfy(f -> assertThat(f).exists());
    assertThat(referenced).allSatisfy(f -> assertThat(location.resolve(f)).exists());
    assertThat(RowSets.read(table)).isEqualTo(rows);
    assertThat(progress)
        .anyMatch(l -> l.startsWith("test.db.events: listed "))
        .anyMatch(l -> l.equals("test.db.events: deleted 2 orphan files, 0 failed"));
  }

  @Test
  void listsThroughLocalFileIoOnASqliteJdbcCatalog() throws Exception {
    Catalog catalog =
        TestCatalogs.jdbc(
            "firn",
            "jdbc:sqlite:" + warehouse.resolve("catalog.db"),
            warehouse.resolve("lake").toString(),
            Map.of("io-impl", "io.firn.core.io.LocalFileIO"));
    Table table = CdcTableGenerator.generate(catalog, TableIdentifier.of("db", "t"), SPEC).table();
    Path location = localPath(table.location());
    age(location, OLD);
    Path orphan = write(location.resolve("data/orphan.parquet"), OLD);
    Map<String, Long> rows = RowSets.read(table);

    OrphanCleanupReport report =
        new OrphanFileCleanup(line -> {})
            .clean(table, OrphanCleanupSettings.DEFAULTS, Map.of(), NOW);

    assertThat(report.orphanFiles()).map(MaintenanceTables::localPath).containsExactly(orphan);
    assertThat(orphan).doesNotExist();
    assertThat(RowSets.read(table)).isEqualTo(rows);
    ((java.io.Closeable) catalog).close();
  }

  @Test
  void refusesWhenAnotherTableSharesContainsOrNestsInTheLocation() throws Exception {
    Table table =
        CdcTableGenerator.generate(
                TestCatalogs.hadoop(warehouse), TableIdentifier.of("db", "events"), SPEC)
            .table();
    Path location = localPath(table.location());
    age(location, OLD);
    Path orphan = write(location.resolve("data/orphan-old.parquet"), OLD);
    OrphanFileCleanup cleanup = new OrphanFileCleanup(line -> {});

    assertThatThrownBy(
            () ->
                cleanup.clean(
                    table,
                    OrphanCleanupSettings.DEFAULTS,
                    Map.of("test.db.nested", table.location() + "/nested"),
                    NOW))
        .isInstanceOf(SharedTableLocationException.class)
        .hasMessage(
            "refusing orphan file cleanup of table test.db.events at "
                + table.location()
                + ": table test.db.nested has a location inside it ("
                + table.location()
                + "/nested), so the files of one table would look orphaned to the other. Give"
                + " each table its own location");
    assertThatThrownBy(
            () ->
                cleanup.clean(
                    table,
                    OrphanCleanupSettings.DEFAULTS,
                    Map.of("test.db.twin", location.toString() + "/"),
                    NOW))
        .isInstanceOf(SharedTableLocationException.class)
        .hasMessageContaining("table test.db.twin has the same location (" + location + "/)");
    assertThatThrownBy(
            () ->
                cleanup.clean(
                    table,
                    OrphanCleanupSettings.DEFAULTS,
                    Map.of("test.db.lake", warehouse.toUri().toString()),
                    NOW))
        .isInstanceOf(SharedTableLocationException.class)
        .hasMessageContaining("table test.db.lake has a location containing it");
    assertThat(orphan).exists();

    // A sibling whose name starts like this table's is no conflict; this table's own entry is
    // ignored.
    OrphanCleanupReport report =
        cleanup.clean(
            table,
            OrphanCleanupSettings.DEFAULTS,
            Map.of(
                "test.db.events_old",
                table.location() + "_old",
                "test.db.events",
                table.location()),
            NOW);
    assertThat(report.orphanCount()).isEqualTo(1);
    assertThat(orphan).doesNotExist();
  }

  private static Path write(Path file, Instant modified) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, "orphan");
    Files.setLastModifiedTime(file, FileTime.from(modified));
    return file;
  }

  /** A manifest as Flink's committer stages it for a checkpoint, listing one data file. */
  private static Path flinkManifest(Table table, Path manifest, Path dataFile) throws IOException {
    DataFile file =
        DataFiles.builder(PartitionSpec.unpartitioned())
            .withPath("file:" + dataFile)
            .withFormat("parquet")
            .withFileSizeInBytes(Files.size(dataFile))
            .withRecordCount(1)
            .build();
    ManifestWriter<DataFile> writer =
        ManifestFiles.write(2, table.spec(), table.io().newOutputFile("file:" + manifest), 0L);
    try (writer) {
      writer.add(file);
    }
    Files.setLastModifiedTime(manifest, FileTime.from(OLD));
    return manifest;
  }
}
