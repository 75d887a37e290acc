/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.maintenance;

import io.firn.core.io.LocalFileIO;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.ReachableFileUtil;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes files under a table's location that no snapshot, metadata file or statistics file of the
 * table references and that are older than a min age.
 *
 * <p>Safety rules, in this order: nothing outside the table location is ever deleted; the run is
 * refused when another table's location equals, contains or lies inside this one ({@link
 * SharedTableLocationException}); the listing happens before the metadata is read, so a file a
 * concurrent commit references is either reachable or younger than the min age; Flink's temporary
 * manifests and the files they list are kept (a restoring Flink job commits them, possibly days
 * later); a checksum companion {@code .name.crc} shares its file's fate; and when the current
 * metadata file is not among the listed files (listing and metadata disagree on how locations are
 * spelled) nothing is deleted.
 *
 * <p>Listing uses the table's FileIO when it supports prefix operations (Hadoop's does), else
 * {@link LocalFileIO} for local tables. Not thread-safe per table.
 */
public final class OrphanFileCleanup {
  private static final Logger LOG = LoggerFactory.getLogger(OrphanFileCleanup.class);
  private static final int PROGRESS_EVERY = 1_000;

  private final Consumer<String> progress;

  /**
   * @param progress receives progress lines an operator can read (also logged at INFO)
   */
  public OrphanFileCleanup(Consumer<String> progress) {
    this.progress = progress;
  }

  /**
   * Finds and (unless a dry run) deletes the table's orphan files.
   *
   * @param otherTables every other table of the catalog (name → location); an entry named like this
   *     table is ignored
   * @param now the clock; files last modified after {@code now - minAge} are kept
   * @throws SharedTableLocationException when another table's location equals, contains or lies
   *     inside this table's; nothing is listed or deleted
   * @throws UnsupportedOperationException when the table's files cannot be listed
   * @throws IllegalStateException when the listing does not contain the current metadata file;
   *     nothing is deleted
   */
  public OrphanCleanupReport clean(
      Table table, OrphanCleanupSettings settings, Map<String, String> otherTables, Instant now) {
    long started = System.nanoTime();
    table.refresh();
    String location = table.location();
    String root = Locations.normalize(location);
    checkSharedLocations(table, root, otherTables);

    List<FileInfo> listed = list(table, location, root);
    note("%s: listed %d files under %s", table.name(), listed.size(), location);

    // Read the metadata only now: whatever was committed before is reachable below.
    table.refresh();
    List<String> warnings = new ArrayList<>();
    Set<String> reachable = reachable(table);
    String currentMetadata =
        Locations.normalize(
            ((org.apache.iceberg.HasTableOperations) table)
                .operations()
                .current()
                .metadataFileLocation());
    boolean metadataListed =
        listed.stream().anyMatch(f -> Locations.normalize(f.location()).equals(currentMetadata));
    if (!metadataListed) {
      throw new IllegalStateException(
          "orphan file cleanup of "
              + table.name()
              + " stopped: the current metadata file "
              + currentMetadata
              + " is not among the "
              + listed.size()
              + " files listed under "
              + location
              + " (listing and metadata spell locations differently?); nothing was deleted");
    }

    Set<String> flinkFiles = new HashSet<>();
    int flinkManifests = 0;
    for (FileInfo file : listed) {
      if (FlinkCommits.isTemporaryManifest(file.location())) {
        flinkManifests++;
        flinkFiles.add(Locations.normalize(file.location()));
        readFlinkManifest(table, file, flinkFiles, warnings);
      }
    }
    note(
        "%s: %d reachable files, %d Flink temporary manifests listing %d files",
        table.name(), reachable.size(), flinkManifests, flinkFiles.size() - flinkManifests);
    boolean keepData = warnings.stream().anyMatch(w -> w.startsWith("unreadable"));

    long youngest = now.toEpochMilli() - settings.minAge().toMillis();
    List<FileInfo> orphans = new ArrayList<>();
    long keptTooYoung = 0;
    long keptFlink = 0;
    for (FileInfo file : listed) {
      String key = Locations.normalize(file.location());
      String owner = companionOf(key);
      if (reachable.contains(key) || (owner != null && reachable.contains(owner))) {
        continue;
      }
      if (flinkFiles.contains(key) || (owner != null && flinkFiles.contains(owner))) {
        keptFlink++;
      } else if (file.createdAtMillis() > youngest) {
        keptTooYoung++;
      } else if (keepData && !key.startsWith(root + "/metadata/")) {
        keptFlink++;
      } else {
        orphans.add(file);
      }
    }
    long bytes = orphans.stream().mapToLong(FileInfo::size).sum();
    note(
        "%s: %d orphan files (%d bytes) older than %s%s; kept %d younger, %d for Flink",
        table.name(),
        orphans.size(),
        bytes,
        settings.minAge(),
        settings.dryRun() ? ", dry run: nothing deleted" : "",
        keptTooYoung,
        keptFlink);

    List<String> failed = new ArrayList<>();
    if (!settings.dryRun()) {
      for (int from = 0; from < orphans.size(); from += PROGRESS_EVERY) {
        List<String> batch =
            orphans.subList(from, Math.min(orphans.size(), from + PROGRESS_EVERY)).stream()
                .map(FileInfo::location)
                .toList();
        failed.addAll(FileDeletes.delete(table.io(), batch, table.name(), "orphan"));
        if (from + PROGRESS_EVERY < orphans.size()) {
          note(
              "%s: deleted %d of %d orphan files",
              table.name(), from + PROGRESS_EVERY, orphans.size());
        }
      }
      note(
          "%s: deleted %d orphan files, %d failed",
          table.name(), orphans.size() - failed.size(), failed.size());
    }
    List<String> names = new ArrayList<>();
    for (FileInfo orphan : orphans) {
      if (names.size() >= OrphanCleanupReport.MAX_LISTED) {
        break;
      }
      names.add(orphan.location());
    }
    return new OrphanCleanupReport(
        table.name(),
        location,
        settings.dryRun(),
        listed.size(),
        reachable.size(),
        orphans.size(),
        bytes,
        names,
        keptTooYoung,
        keptFlink,
        failed,
        warnings,
        Duration.ofNanos(System.nanoTime() - started));
  }

  private static void checkSharedLocations(
      Table table, String root, Map<String, String> otherTables) {
    for (Map.Entry<String, String> other : otherTables.entrySet()) {
      if (other.getKey().equals(table.name()) || other.getValue() == null) {
        continue;
      }
      String theirs = Locations.normalize(other.getValue());
      String relation;
      if (theirs.equals(root)) {
        relation = "the same location";
      } else if (Locations.within(theirs, root)) {
        relation = "a location inside it";
      } else if (Locations.within(root, theirs)) {
        relation = "a location containing it";
      } else {
        continue;
      }
      throw new SharedTableLocationException(
          "refusing orphan file cleanup of table "
              + table.name()
              + " at "
              + table.location()
              + ": table "
              + other.getKey()
              + " has "
              + relation
              + " ("
              + other.getValue()
              + "), so the files of one table would look orphaned to the other. Give each table"
              + " its own location");
    }
  }

  /** Files under the table location, through the table's FileIO when it can list. */
  private static List<FileInfo> list(Table table, String location, String root) {
    FileIO io = table.io();
    Iterable<FileInfo> files;
    if (io instanceof SupportsPrefixOperations prefixes) {
      // An object store lists keys by prefix: the slash keeps sibling tables (.../t2 of .../t) out.
      files =
          prefixes.listPrefix(
              LocalFileIO.isLocal(location) || location.endsWith("/") ? location : location + "/");
    } else if (LocalFileIO.isLocal(location)) {
      files = new LocalFileIO().listPrefix(location);
    } else {
      throw new UnsupportedOperationException(
          "cannot list the files of table "
              + table.name()
              + ": its FileIO "
              + io.getClass().getName()
              + " does not support prefix listing (SupportsPrefixOperations); orphan file cleanup"
              + " needs it");
    }
    List<FileInfo> within = new ArrayList<>();
    for (FileInfo file : files) {
      // An object store lists every key with the prefix: .../t2/x for .../t.
      if (Locations.within(Locations.normalize(file.location()), root)) {
        within.add(file);
      }
    }
    return within;
  }

  /** Every file the table's metadata references, normalized. */
  private static Set<String> reachable(Table table) {
    Set<String> files = new HashSet<>();
    ReachableFileUtil.metadataFileLocations(table, false).forEach(l -> add(files, l));
    add(files, ReachableFileUtil.versionHintLocation(table));
    ReachableFileUtil.statisticsFilesLocations(table).forEach(l -> add(files, l));
    Set<String> manifests = new HashSet<>();
    for (Snapshot snapshot : table.snapshots()) {
      if (snapshot.manifestListLocation() != null) {
        add(files, snapshot.manifestListLocation());
      }
      for (ManifestFile manifest : snapshot.allManifests(table.io())) {
        if (!manifests.add(manifest.path())) {
          continue;
        }
        add(files, manifest.path());
        readManifest(table, manifest, files);
      }
    }
    return files;
  }

  private static void readManifest(Table table, ManifestFile manifest, Set<String> files) {
    try {
      if (manifest.content() == ManifestContent.DATA) {
        try (CloseableIterable<String> paths =
            ManifestFiles.readPaths(manifest, table.io(), table.specs())) {
          paths.forEach(p -> add(files, p));
        }
      } else {
        try (ManifestReader<DeleteFile> reader =
            ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
          reader.forEach(d -> add(files, d.location()));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot read manifest " + manifest.path() + " of table " + table.name(), e);
    }
  }

  /**
   * Adds the files a Flink temporary manifest lists; a manifest that cannot be read leaves a
   * warning, and then no data file is deleted in this run.
   */
  private void readFlinkManifest(
      Table table, FileInfo file, Set<String> flinkFiles, List<String> warnings) {
    List<String> listedHere = new ArrayList<>();
    for (ManifestContent content : ManifestContent.values()) {
      ManifestFile manifest = new UncommittedManifest(file.location(), file.size(), content);
      listedHere.clear();
      try {
        if (content == ManifestContent.DATA) {
          // Spec ids come from the manifest's own metadata: Flink may have written it before a
          // spec change.
          try (CloseableIterable<String> paths =
              ManifestFiles.readPaths(manifest, table.io(), null)) {
            paths.forEach(listedHere::add);
          }
        } else {
          try (ManifestReader<DeleteFile> reader =
              ManifestFiles.readDeleteManifest(manifest, table.io(), null)) {
            reader.forEach(d -> listedHere.add(d.location()));
          }
        }
        listedHere.forEach(p -> add(flinkFiles, p));
        return;
      } catch (IOException | RuntimeException e) {
        LOG.debug("{} is not readable as a {} manifest", file.location(), content, e);
      }
    }
    String warning =
        "unreadable Flink temporary manifest "
            + file.location()
            + ": data files were not deleted in this run";
    warnings.add(warning);
    note("%s: %s", table.name(), warning);
  }

  /** {@code /a/.b.crc} → {@code /a/b}, else null. */
  private static @Nullable String companionOf(String location) {
    int slash = location.lastIndexOf('/');
    String name = location.substring(slash + 1);
    if (name.startsWith(".") && name.endsWith(".crc") && name.length() > 5) {
      return location.substring(0, slash + 1) + name.substring(1, name.length() - 4);
    }
    return null;
  }

  private static void add(Set<String> files, String location) {
    files.add(Locations.normalize(location));
  }

  private void note(String format, @Nullable Object... args) {
    String line = String.format(format, args);
    LOG.info(line);
    progress.accept(line);
  }

  /** A manifest no snapshot has committed yet (Flink's), read only for its file locations. */
  private record UncommittedManifest(String path, long length, ManifestContent content)
      implements ManifestFile {
    @Override
    public int partitionSpecId() {
      return 0;
    }

    @Override
    public long sequenceNumber() {
      return 0;
    }

    @Override
    public long minSequenceNumber() {
      return 0;
    }

    @Override
    public Long snapshotId() {
      return 0L;
    }

    @Override
    public @Nullable Integer addedFilesCount() {
      return null;
    }

    @Override
    public @Nullable Long addedRowsCount() {
      return null;
    }

    @Override
    public @Nullable Integer existingFilesCount() {
      return null;
    }

    @Override
    public @Nullable Long existingRowsCount() {
      return null;
    }

    @Override
    public @Nullable Integer deletedFilesCount() {
      return null;
    }

    @Override
    public @Nullable Long deletedRowsCount() {
      return null;
    }

    @Override
    public @Nullable List<PartitionFieldSummary> partitions() {
      return null;
    }

    @Override
    public ManifestFile copy() {
      return this;
    }
  }
}
