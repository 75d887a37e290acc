/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.commit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.InternalData;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.types.Types;
import org.jspecify.annotations.Nullable;

/**
 * The files a snapshot removes, read from the manifests it wrote: the entries with status DELETED,
 * and of each only its path, content and data sequence number.
 *
 * <p>Iceberg's {@code SnapshotChanges} answers the same question but decodes every entry of those
 * manifests with all its statistics and copies it. On a rewrite of 25,600 data files and 45,714
 * delete files (matrix shape 2) the guard's check took 0.29-0.32 s through it and 0.22 s through
 * this projection, inside the catalog's compare-and-swap; decompressing the manifests is most of
 * what is left. {@code RemovedFilesTest} checks this reader against {@code SnapshotChanges} on
 * seeded random histories.
 *
 * <p>Field ids are those of the Iceberg spec's {@code manifest_entry}: status 0 (1 = added, 2 =
 * deleted), data sequence number 3, data file 2 with content 134 and file path 100.
 */
final class RemovedFiles {
  static final int DELETED = 2;

  /** The manifest entry fields this reader projects. */
  static final Schema PROJECTION =
      new Schema(
          Types.NestedField.required(0, "status", Types.IntegerType.get()),
          Types.NestedField.optional(3, "sequence_number", Types.LongType.get()),
          Types.NestedField.required(
              2, "data_file", Types.StructType.of(DataFile.CONTENT, DataFile.FILE_PATH)));

  /** A removed file: where it is, what it holds, and its data sequence number when written. */
  record Removed(String location, FileContent content, @Nullable Long dataSequenceNumber) {}

  private final List<Removed> data;
  private final List<Removed> deletes;

  private RemovedFiles(List<Removed> data, List<Removed> deletes) {
    this.data = data;
    this.deletes = deletes;
  }

  /** Reads the files {@code snapshot} removes from the manifests it added. */
  static RemovedFiles of(Snapshot snapshot, FileIO io) {
    return new RemovedFiles(
        read(snapshot, snapshot.dataManifests(io), io),
        read(snapshot, snapshot.deleteManifests(io), io));
  }

  List<Removed> data() {
    return data;
  }

  List<Removed> deletes() {
    return deletes;
  }

  private static List<Removed> read(Snapshot snapshot, List<ManifestFile> manifests, FileIO io) {
    List<Removed> removed = new ArrayList<>();
    for (ManifestFile manifest : manifests) {
      // Only a manifest this snapshot wrote can mark a file removed by it; one without deleted
      // entries (by its counts in the manifest list) has nothing to read.
      if (!Objects.equals(manifest.snapshotId(), snapshot.snapshotId())
          || !manifest.hasDeletedFiles()) {
        continue;
      }
      try (CloseableIterable<StructLike> entries =
          InternalData.read(FileFormat.AVRO, io.newInputFile(manifest.path()))
              .project(PROJECTION)
              .build()) {
        for (StructLike entry : entries) {
          Integer status = entry.get(0, Integer.class);
          if (status == null || status != DELETED) {
            continue;
          }
          StructLike file = entry.get(2, StructLike.class);
          Integer content = file.get(0, Integer.class);
          CharSequence path = file.get(1, CharSequence.class);
          removed.add(
              new Removed(path.toString(), content(content, manifest), entry.get(1, Long.class)));
        }
      } catch (IOException e) {
        throw new UncheckedIOException(
            "cannot read manifest " + manifest.path() + " of snapshot " + snapshot.snapshotId(), e);
      }
    }
    return removed;
  }

  private static FileContent content(@Nullable Integer content, ManifestFile manifest) {
    if (content == null) {
      // Format v1 manifests have no content field: data files only.
      return FileContent.DATA;
    }
    for (FileContent value : FileContent.values()) {
      if (value.id() == content) {
        return value;
      }
    }
    throw new IllegalStateException(
        "manifest " + manifest.path() + " holds an entry of unknown content " + content);
  }
}
