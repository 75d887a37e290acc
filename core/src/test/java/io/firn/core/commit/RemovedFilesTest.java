/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.commit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotChanges;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link RemovedFiles} against Iceberg's own {@code SnapshotChanges}, on seeded random histories of
 * appends, row deltas, deletes and rewrites (which let Iceberg drop old delete files by itself, the
 * removals {@link CommitGuard} exists to see), with manifests merged or not.
 */
class RemovedFilesTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "cat", Types.StringType.get()));

  static IntStream seeds() {
    return IntStream.range(0, 16);
  }

  /** Delete files Iceberg removed without being asked to, over every seed. */
  private static final AtomicInteger DROPPED_BY_ICEBERG = new AtomicInteger();

  @AfterAll
  static void icebergDroppedDeletesByItself() {
    // The removals the guard exists for happened in these histories, and were compared.
    assertThat(DROPPED_BY_ICEBERG.get()).isPositive();
  }

  @ParameterizedTest
  @MethodSource("seeds")
  void removedFilesAreIcebergsSnapshotChanges(int seed) {
    Random random = new Random(seed);
    Table table = newTable(seed, random.nextBoolean());
    History history = new History(table, random);
    int removals = 0;
    for (int step = 0; step < 60; step++) {
      history.step();
      table.refresh();
      Snapshot snapshot = table.currentSnapshot();
      RemovedFiles ours = RemovedFiles.of(snapshot, table.io());
      SnapshotChanges theirs = SnapshotChanges.builderFor(table).snapshot(snapshot).build();
      List<String> expectedData = new ArrayList<>();
      theirs.removedDataFiles().forEach(f -> expectedData.add(describe(f)));
      List<String> expectedDeletes = new ArrayList<>();
      theirs.removedDeleteFiles().forEach(f -> expectedDeletes.add(describe(f)));
      assertThat(ours.data().stream().map(RemovedFilesTest::describe).toList())
          .as("seed %d step %d: removed data files", seed, step)
          .containsExactlyInAnyOrderElementsOf(expectedData);
      assertThat(ours.deletes().stream().map(RemovedFilesTest::describe).toList())
          .as("seed %d step %d: removed delete files", seed, step)
          .containsExactlyInAnyOrderElementsOf(expectedDeletes);
      // The counts CommitGuard compares with the plan before reading any manifest.
      assertThat(counted(snapshot, table, ManifestContent.DATA))
          .as("seed %d step %d: removed data files by the manifests' counts", seed, step)
          .isEqualTo(expectedData.size());
      assertThat(counted(snapshot, table, ManifestContent.DELETES))
          .as("seed %d step %d: removed delete files by the manifests' counts", seed, step)
          .isEqualTo(expectedDeletes.size());
      removals += expectedData.size() + expectedDeletes.size();
    }
    // The comparison means something only when files were removed.
    assertThat(removals).as("seed %d: files removed over the history", seed).isPositive();
  }

  /** The removed files of one content the manifests {@code snapshot} wrote count. */
  private static long counted(Snapshot snapshot, Table table, ManifestContent content) {
    long removed = 0;
    for (ManifestFile manifest : snapshot.allManifests(table.io())) {
      if (manifest.content() == content && manifest.snapshotId() == snapshot.snapshotId()) {
        removed += manifest.deletedFilesCount();
      }
    }
    return removed;
  }

  private static String describe(ContentFile<?> file) {
    return file.location() + " " + file.content() + " " + file.dataSequenceNumber();
  }

  private static String describe(RemovedFiles.Removed file) {
    return file.location() + " " + file.content() + " " + file.dataSequenceNumber();
  }

  private static Table newTable(int seed, boolean mergeManifests) {
    InMemoryCatalog catalog = new InMemoryCatalog();
    catalog.initialize("removed-" + seed, Map.of());
    catalog.createNamespace(Namespace.of("db"));
    return catalog.createTable(
        TableIdentifier.of("db", "t"),
        SCHEMA,
        PartitionSpec.builderFor(SCHEMA).identity("cat").build(),
        Map.of(
            TableProperties.FORMAT_VERSION,
            "2",
            TableProperties.MANIFEST_MIN_MERGE_COUNT,
            mergeManifests ? "2" : "1000"));
  }

  /** Random commits of metadata-only files. */
  private static final class History {
    private final Table table;
    private final Random random;
    private final List<DataFile> live = new ArrayList<>();
    private final List<DeleteFile> liveDeletes = new ArrayList<>();
    private int files;

    History(Table table, Random random) {
      this.table = table;
      this.random = random;
    }

    void step() {
      int op = random.nextInt(10);
      if (op < 3 || live.isEmpty()) {
        var append = table.newAppend();
        for (int i = 0, n = 1 + random.nextInt(3); i < n; i++) {
          DataFile file = dataFile();
          append.appendFile(file);
          live.add(file);
        }
        append.commit();
      } else if (op < 6) {
        RowDelta delta = table.newRowDelta();
        for (int i = 0, n = 1 + random.nextInt(3); i < n; i++) {
          DeleteFile delete = random.nextBoolean() ? positionDelete() : equalityDelete();
          delta.addDeletes(delete);
          liveDeletes.add(delete);
        }
        delta.commit();
      } else if (op == 6) {
        DataFile gone = live.remove(random.nextInt(live.size()));
        table.newDelete().deleteFile(gone).commit();
      } else if (op == 7 && !liveDeletes.isEmpty()) {
        DeleteFile gone = liveDeletes.remove(random.nextInt(liveDeletes.size()));
        table.newRowDelta().removeDeletes(gone).commit();
      } else {
        // A rewrite of some data files and some delete files; Iceberg may drop more deletes.
        // As Firn commits a rewrite: validated from the current snapshot, the new files keeping
        // its data sequence number (so Iceberg counts them below older deletes, #10962).
        Snapshot current = table.currentSnapshot();
        RewriteFiles rewrite =
            table
                .newRewrite()
                .validateFromSnapshot(current.snapshotId())
                .dataSequenceNumber(current.sequenceNumber());
        for (int i = 0, n = 1 + random.nextInt(live.size()); i < n && !live.isEmpty(); i++) {
          rewrite.deleteFile(live.remove(random.nextInt(live.size())));
        }
        List<DeleteFile> rewritten = new ArrayList<>();
        for (int i = 0, n = random.nextInt(1 + liveDeletes.size()); i < n; i++) {
          DeleteFile delete = liveDeletes.remove(random.nextInt(liveDeletes.size()));
          rewrite.deleteFile(delete);
          rewritten.add(delete);
        }
        DataFile added = dataFile();
        rewrite.addFile(added);
        live.add(added);
        rewrite.commit();
        table.refresh();
        Set<String> asked = new HashSet<>();
        rewritten.forEach(d -> asked.add(d.location()));
        for (DeleteFile removed : SnapshotChanges.builderFor(table).build().removedDeleteFiles()) {
          if (!asked.contains(removed.location())) {
            DROPPED_BY_ICEBERG.incrementAndGet();
          }
        }
      }
      // Iceberg drops delete files older than every live data file by itself, on any commit.
      table.refresh();
      Set<String> stillLive = new HashSet<>();
      for (ManifestFile manifest : table.currentSnapshot().deleteManifests(table.io())) {
        try (var reader = ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
          reader.forEach(d -> stillLive.add(d.location()));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
      liveDeletes.removeIf(d -> !stillLive.contains(d.location()));
    }

    private String partition() {
      return "cat=" + (char) ('a' + random.nextInt(3));
    }

    private DataFile dataFile() {
      return DataFiles.builder(table.spec())
          .withPath("/d/data-" + files++ + ".parquet")
          .withFormat(FileFormat.PARQUET)
          .withPartitionPath(partition())
          .withFileSizeInBytes(1000)
          .withRecordCount(10)
          .build();
    }

    private DeleteFile equalityDelete() {
      return FileMetadata.deleteFileBuilder(table.spec())
          .ofEqualityDeletes(1)
          .withPath("/x/eq-" + files++ + ".parquet")
          .withFormat(FileFormat.PARQUET)
          .withPartitionPath(partition())
          .withFileSizeInBytes(100)
          .withRecordCount(1)
          .build();
    }

    private DeleteFile positionDelete() {
      return FileMetadata.deleteFileBuilder(table.spec())
          .ofPositionDeletes()
          .withPath("/x/pos-" + files++ + ".parquet")
          .withFormat(FileFormat.PARQUET)
          .withPartitionPath(partition())
          .withFileSizeInBytes(100)
          .withRecordCount(1)
          .build();
    }
  }
}
