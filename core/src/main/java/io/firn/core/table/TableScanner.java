/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.table;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.ManifestEvaluator;
import org.apache.iceberg.expressions.UnboundTerm;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.StructLikeWrapper;
import org.apache.iceberg.util.ThreadPools;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the live files of a table at one snapshot, grouped by partition, with the deletes that
 * apply to every data file by Iceberg's rule ({@link DeleteIndex}). This is the expensive read
 * (every manifest of the snapshot); {@link TableEvaluator} decides from cheap signals whether and
 * for which partitions it is worth it.
 */
public final class TableScanner {
  private static final Logger LOG = LoggerFactory.getLogger(TableScanner.class);

  private TableScanner() {}

  /** Reads every partition of the table's current snapshot. */
  public static TableFiles scan(Table table) {
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      return new TableFiles(
          table.name(), -1, 0, new TreeMap<>(), Map.of(), List.of(), true, Set.of());
    }
    return scan(table, current.snapshotId(), key -> true);
  }

  /**
   * Data files of a group of partitions ({@link TableFileGroups}) when the caller names no bound:
   * about 250 MB of scanned files at ≈ 490 bytes each (BENCHMARKS.md, "Scale").
   */
  public static final long DEFAULT_GROUP_FILES = 500_000;

  /** Every partition of the current snapshot, in groups of {@link #DEFAULT_GROUP_FILES}. */
  public static TableFileGroups scanInGroups(Table table) {
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      return TableFileGroups.of(scan(table));
    }
    return scanInGroups(table, current.snapshotId(), key -> true, DEFAULT_GROUP_FILES);
  }

  /**
   * As {@link #scan(Table, long, Predicate)}, read in groups of partitions of at most {@code
   * maxFilesPerGroup} data files each (a larger partition is a group of its own).
   *
   * <p>A table of at most {@code maxFilesPerGroup} data files (snapshot summary), with no
   * partitioned spec, or with live delete files of an unpartitioned spec (a global equality delete
   * applies in every partition, and whether any such delete is dangling shows only after every
   * partition is read) is one group: exactly what {@link #scan(Table, long, Predicate)} reads.
   * Otherwise Iceberg's {@code partitions} metadata table gives every partition's file count, and
   * each group is read by a scan filtered to its partitions, whose deletes Iceberg attaches from
   * the delete manifests of those partitions and of unpartitioned specs, as a scan of the whole
   * table does.
   */
  public static TableFileGroups scanInGroups(
      Table table, long snapshotId, Predicate<PartitionKey> partitions, long maxFilesPerGroup) {
    return scanInGroups(
        table,
        snapshotId,
        partitions,
        Expressions.alwaysTrue(),
        Completeness.IF_ALL_KEPT,
        maxFilesPerGroup);
  }

  /**
   * As {@link #scan(Table, long, Map)} (never complete), read in groups as {@link
   * #scanInGroups(Table, long, Predicate, long)} does.
   */
  public static TableFileGroups scanInGroups(
      Table table,
      long snapshotId,
      Map<PartitionKey, StructLike> partitions,
      long maxFilesPerGroup) {
    return scanInGroups(
        table,
        snapshotId,
        partitions::containsKey,
        partitionsFilter(table, partitions),
        Completeness.PARTIAL,
        maxFilesPerGroup);
  }

  private static TableFileGroups scanInGroups(
      Table table,
      long snapshotId,
      Predicate<PartitionKey> partitions,
      Expression filter,
      Completeness completeness,
      long maxFilesPerGroup) {
    if (maxFilesPerGroup < 1) {
      throw new IllegalArgumentException(
          "maxFilesPerGroup = " + maxFilesPerGroup + ": must be at least 1");
    }
    Snapshot snapshot = snapshot(table, snapshotId);
    long total = summaryCount(snapshot, "total-data-files");
    boolean partitioned = table.specs().values().stream().anyMatch(s -> !s.isUnpartitioned());
    List<PartitionCount> counts =
        (total >= 0 && total <= maxFilesPerGroup) || !partitioned
            ? List.of()
            : PartitionCount.read(table, snapshotId);
    if (counts.isEmpty() || hasUnpartitionedDeletes(table, snapshot)) {
      TableFiles whole = scan(table, snapshotId, partitions, filter, completeness);
      return TableFileGroups.of(whole);
    }
    boolean complete =
        completeness == Completeness.IF_ALL_KEPT
            && counts.stream().allMatch(c -> c.dataFiles() == 0 || partitions.test(c.key()));
    Completeness each = complete ? Completeness.COMPLETE_GROUP : Completeness.PARTIAL;
    Set<PartitionKey> known = new HashSet<>();
    List<Map<PartitionKey, StructLike>> groups = new ArrayList<>();
    Map<PartitionKey, StructLike> group = new LinkedHashMap<>();
    long files = 0;
    for (PartitionCount count : counts) {
      known.add(count.key());
      if (count.dataFiles() == 0 || !partitions.test(count.key())) {
        continue;
      }
      if (!group.isEmpty() && files + count.dataFiles() > maxFilesPerGroup) {
        groups.add(group);
        group = new LinkedHashMap<>();
        files = 0;
      }
      group.put(count.key(), count.tuple());
      files += count.dataFiles();
    }
    if (!group.isEmpty()) {
      groups.add(group);
    }
    LOG.debug(
        "Reading {} at snapshot {} in {} group(s) of at most {} data files",
        table.name(),
        snapshotId,
        groups.size(),
        maxFilesPerGroup);
    long dataFiles = 0;
    for (PartitionCount count : counts) {
      if (count.dataFiles() > 0 && partitions.test(count.key())) {
        dataFiles += count.dataFiles();
      }
    }
    return new TableFileGroups(
        table.name(),
        snapshotId,
        snapshot.sequenceNumber(),
        complete,
        groups.size(),
        dataFiles,
        index -> {
          Map<PartitionKey, StructLike> keys = groups.get(index);
          return scan(
              table,
              snapshotId,
              key -> {
                if (keys.containsKey(key)) {
                  return true;
                }
                if (!known.contains(key) && partitions.test(key)) {
                  throw new IllegalStateException(
                      "table "
                          + table.name()
                          + " has data files in partition "
                          + key
                          + " at snapshot "
                          + snapshotId
                          + ", which its partitions metadata table does not list");
                }
                return false;
              },
              partitionsFilter(table, keys),
              each);
        });
  }

  /**
   * From the manifest list: whether a delete manifest of an unpartitioned spec may hold live files.
   */
  private static boolean hasUnpartitionedDeletes(Table table, Snapshot snapshot) {
    for (ManifestFile manifest : snapshot.deleteManifests(table.io())) {
      if (spec(table.specs(), manifest.partitionSpecId()).isUnpartitioned()
          && (manifest.addedFilesCount() == null
              || manifest.existingFilesCount() == null
              || manifest.addedFilesCount() + manifest.existingFilesCount() > 0)) {
        return true;
      }
    }
    return false;
  }

  private static long summaryCount(Snapshot snapshot, String key) {
    Map<String, String> summary = snapshot.summary();
    String value = summary == null ? null : summary.get(key);
    try {
      return value == null ? -1 : Long.parseLong(value);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /**
   * Reads only the given partitions, pushing them into Iceberg's scan as a filter so manifests of
   * other partitions are skipped when every partition field is an identity or bucket transform
   * (exact, cheap projections); otherwise reads every manifest and keeps only these partitions.
   * Never reports deletes spanning partitions as removable ({@link TableFiles#complete()} is
   * false), nor a delete that may apply outside these partitions as dangling or removable ({@link
   * TableFiles#partlyReadDeletes()}).
   */
  public static TableFiles scan(
      Table table, long snapshotId, Map<PartitionKey, StructLike> partitions) {
    return scan(
        table,
        snapshotId,
        partitions::containsKey,
        partitionsFilter(table, partitions),
        Completeness.PARTIAL);
  }

  /**
   * A row filter that Iceberg projects onto the partitions exactly: for partitions of a spec with
   * one field, {@code in} over their values (one set lookup per file, where an {@code or} of
   * equalities costs one comparison per partition); otherwise equality on each field. Always true
   * when a transform is not identity or bucket: then every manifest is read and the caller keeps
   * only its partitions.
   */
  static Expression partitionsFilter(Table table, Map<PartitionKey, StructLike> partitions) {
    Expression filter = Expressions.alwaysFalse();
    Map<Integer, List<Object>> singleFieldValues = new TreeMap<>();
    for (Map.Entry<PartitionKey, StructLike> entry : partitions.entrySet()) {
      PartitionSpec spec = spec(table.specs(), entry.getKey().specId());
      StructLike tuple = entry.getValue();
      List<PartitionField> fields = spec.fields();
      if (fields.size() == 1 && tuple.get(0, Object.class) != null) {
        if (term(table, fields.get(0)) == null) {
          return Expressions.alwaysTrue();
        }
        singleFieldValues
            .computeIfAbsent(spec.specId(), id -> new ArrayList<>())
            .add(tuple.get(0, Object.class));
        continue;
      }
      Expression all = Expressions.alwaysTrue();
      for (int i = 0; i < fields.size(); i++) {
        UnboundTerm<Object> term = term(table, fields.get(i));
        if (term == null) {
          return Expressions.alwaysTrue();
        }
        Object value = tuple.get(i, Object.class);
        all =
            Expressions.and(
                all, value == null ? Expressions.isNull(term) : Expressions.equal(term, value));
      }
      filter = Expressions.or(filter, all);
    }
    for (Map.Entry<Integer, List<Object>> values : singleFieldValues.entrySet()) {
      PartitionField field = spec(table.specs(), values.getKey()).fields().get(0);
      UnboundTerm<Object> term = term(table, field);
      if (term == null) {
        return Expressions.alwaysTrue();
      }
      // Iceberg's evaluator throws on `in` over a null string (1.11: CharSequenceSet rejects
      // null), and a file of the null partition may share a manifest with these: ask notNull
      // first, which short-circuits.
      filter =
          Expressions.or(
              filter,
              Expressions.and(Expressions.notNull(term), Expressions.in(term, values.getValue())));
    }
    return filter;
  }

  /** The term a partition field's values are of, or null when it is not identity or bucket. */
  private static @Nullable UnboundTerm<Object> term(Table table, PartitionField field) {
    String source = table.schema().findColumnName(field.sourceId());
    if (source == null) {
      return null;
    }
    String transform = field.transform().toString();
    if (field.transform().isIdentity()) {
      return Expressions.ref(source);
    }
    if (transform.startsWith("bucket[")) {
      int buckets = Integer.parseInt(transform.substring(7, transform.length() - 1));
      return Expressions.bucket(source, buckets);
    }
    return null;
  }

  /**
   * Reads the files of the partitions accepted by {@code partitions} at {@code snapshotId}.
   * Manifests are read in parallel: {@code partitions} may be called from several threads at once.
   *
   * @throws UncheckedIOException when a manifest cannot be read; the message names the table
   */
  public static TableFiles scan(Table table, long snapshotId, Predicate<PartitionKey> partitions) {
    return scan(table, snapshotId, partitions, Expressions.alwaysTrue(), Completeness.IF_ALL_KEPT);
  }

  /** What a read may say of the deletes it cannot see all of. */
  enum Completeness {
    /** Some partitions are skipped: a delete that may apply outside them is not decided. */
    PARTIAL,
    /** Complete when every partition passes the predicate. */
    IF_ALL_KEPT,
    /**
     * One group of a complete read ({@link TableFileGroups}): other groups' partitions are skipped
     * here but read there, and no delete of this table applies in two groups.
     */
    COMPLETE_GROUP
  }

  static TableFiles scan(
      Table table,
      long snapshotId,
      Predicate<PartitionKey> partitions,
      Expression filter,
      Completeness completeness) {
    Snapshot snapshot = snapshot(table, snapshotId);
    long started = System.nanoTime();
    Map<Integer, PartitionSpec> specs = table.specs();
    TreeMap<PartitionKey, PartitionFiles> byPartition = new TreeMap<>();
    Map<String, Set<PartitionKey>> deleteScopes = new HashMap<>();
    Set<String> globalAttached = new HashSet<>();
    // One StructLike copy per distinct partition, shared by its files.
    Map<Integer, Map<StructLikeWrapper, PartitionKey>> keys = new HashMap<>();
    boolean complete = completeness != Completeness.PARTIAL;
    long dataFiles = 0;
    DeleteIndex deletes = DeleteIndex.read(table, snapshot.deleteManifests(table.io()), filter);
    long indexed = System.nanoTime();
    AtomicBoolean skipped = new AtomicBoolean();
    List<ScannedFile> scannedFiles =
        dataFiles(table, snapshot, filter, partitions, deletes, skipped);
    long paired = System.nanoTime();
    for (ScannedFile scanned : scannedFiles) {
      DataFileEntry entry = scanned.entry();
      PartitionKey key = scanned.key();
      PartitionSpec spec = spec(specs, entry.file().specId());
      PartitionFiles partition =
          byPartition.computeIfAbsent(key, k -> new PartitionFiles(k, spec, copy(entry.file())));
      partition.addDataFile(entry);
      // A delete applies to many data files of its partition (an equality delete to every older
      // one): its scope is recorded once per partition, not once per pair.
      partition.attachAll(
          entry.deletes(),
          delete -> {
            deleteScopes.computeIfAbsent(delete.location(), l -> new HashSet<>(2)).add(key);
            if (isGlobal(delete, specs)) {
              globalAttached.add(delete.location());
            }
          });
      dataFiles++;
    }
    byPartition.values().forEach(PartitionFiles::finishAttaching);
    if (skipped.get()) {
      complete &= completeness == Completeness.COMPLETE_GROUP;
    }

    List<DeleteFile> globalDangling = new ArrayList<>();
    for (DeleteFile delete : deletes.all()) {
      if (deleteScopes.containsKey(delete.location())) {
        continue;
      }
      if (!complete && !partitionScoped(delete, specs)) {
        // It may apply to data files this read skipped; whether it is dangling is unknown.
        continue;
      }
      PartitionSpec spec = spec(specs, delete.specId());
      PartitionKey key = keyOf(keys, spec, delete);
      PartitionFiles partition = byPartition.get(key);
      if (partition != null) {
        partition.addDangling(delete);
      } else if (spec.isUnpartitioned() && complete) {
        globalDangling.add(delete);
      }
    }
    long deleteFiles = deletes.all().size();
    LOG.debug(
        "Scanned {} at snapshot {}: {} data files in {} partitions, {} delete files, {} ms"
            + " (delete manifests {} ms, data manifests and pairing {} ms)",
        table.name(),
        snapshotId,
        dataFiles,
        byPartition.size(),
        deleteFiles,
        (System.nanoTime() - started) / 1_000_000,
        (indexed - started) / 1_000_000,
        (paired - indexed) / 1_000_000);
    return new TableFiles(
        table.name(),
        snapshotId,
        snapshot.sequenceNumber(),
        byPartition,
        deleteScopes,
        globalDangling,
        complete,
        complete ? Set.of() : globalAttached);
  }

  /** A data file read from a manifest, with its partition and the deletes that apply to it. */
  private record ScannedFile(PartitionKey key, DataFileEntry entry) {}

  /**
   * The live data files of the snapshot's data manifests that may hold rows matching {@code filter}
   * (as Iceberg's scan with that filter selects them) and lie in a partition {@code partitions}
   * accepts, each with the deletes that apply to it, without column statistics, in the order of the
   * manifest list. Sets {@code skipped} when a file was left out by {@code partitions}.
   */
  private static List<ScannedFile> dataFiles(
      Table table,
      Snapshot snapshot,
      Expression filter,
      Predicate<PartitionKey> partitions,
      DeleteIndex deletes,
      AtomicBoolean skipped) {
    Map<Integer, PartitionSpec> specs = table.specs();
    List<Callable<List<ScannedFile>>> reads = new ArrayList<>();
    for (ManifestFile manifest : snapshot.dataManifests(table.io())) {
      PartitionSpec spec = spec(specs, manifest.partitionSpecId());
      if (!(manifest.hasAddedFiles() || manifest.hasExistingFiles())
          || !ManifestEvaluator.forRowFilter(filter, spec, true).eval(manifest)) {
        continue;
      }
      reads.add(
          () -> {
            List<ScannedFile> files = new ArrayList<>();
            Map<Integer, Map<StructLikeWrapper, PartitionKey>> keys = new HashMap<>();
            try (CloseableIterable<DataFile> reader =
                ManifestFiles.read(manifest, table.io(), specs).filterRows(filter)) {
              for (DataFile file : reader) {
                PartitionKey key = keyOf(keys, spec(specs, file.specId()), file);
                if (!partitions.test(key)) {
                  skipped.set(true);
                  continue;
                }
                files.add(
                    new ScannedFile(
                        key,
                        new DataFileEntry(file.copyWithoutStats(), deletes.forDataFile(file))));
              }
            } catch (IOException e) {
              throw new UncheckedIOException(
                  "cannot read data manifest " + manifest.path() + " of table " + table.name(), e);
            }
            return files;
          });
    }
    List<ScannedFile> all = new ArrayList<>();
    readAll(table, reads).forEach(all::addAll);
    return all;
  }

  /**
   * Runs the reads of a table's manifests on Iceberg's worker pool (as Iceberg's scan planning
   * does) when there is more than one, and returns their results in order. A failed read fails the
   * whole with its own exception.
   */
  static <T> List<T> readAll(Table table, List<Callable<T>> reads) {
    List<T> results = new ArrayList<>(reads.size());
    try {
      if (reads.size() <= 1) {
        for (Callable<T> read : reads) {
          results.add(read.call());
        }
        return results;
      }
      for (Future<T> result : ThreadPools.getWorkerPool().invokeAll(reads)) {
        results.add(result.get());
      }
      return results;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new IllegalStateException(
          "cannot read the manifests of table " + table.name(), e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(
          "interrupted while reading the manifests of table " + table.name(), e);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("cannot read the manifests of table " + table.name(), e);
    }
  }

  static Snapshot snapshot(Table table, long snapshotId) {
    Snapshot snapshot = table.snapshot(snapshotId);
    if (snapshot == null) {
      throw new IllegalArgumentException(
          "table " + table.name() + " has no snapshot " + snapshotId + " (expired?)");
    }
    return snapshot;
  }

  /**
   * The table's spec of a file or partition; a file naming a spec the table's metadata lacks is a
   * corrupt table, reported as such rather than as a NullPointerException further on.
   */
  static PartitionSpec spec(Map<Integer, PartitionSpec> specs, int specId) {
    PartitionSpec spec = specs.get(specId);
    if (spec == null) {
      throw new IllegalStateException(
          "the table has no partition spec "
              + specId
              + " (it has "
              + specs.keySet()
              + "), yet its metadata names it: the table's metadata is inconsistent");
    }
    return spec;
  }

  /**
   * An equality delete of an unpartitioned spec: Iceberg applies it to data files of every spec and
   * partition with a lower data sequence number.
   */
  static boolean isGlobal(DeleteFile delete, Map<Integer, PartitionSpec> specs) {
    return delete.content() == FileContent.EQUALITY_DELETES
        && spec(specs, delete.specId()).isUnpartitioned();
  }

  /**
   * Whether Iceberg applies the delete only to data files of its own spec and partition, so that
   * reading that partition shows everything it applies to: equality deletes of a partitioned spec
   * and position deletes matched by partition. A file-scoped position delete is matched by the path
   * it references, wherever that file lives, and a global equality delete applies everywhere.
   */
  private static boolean partitionScoped(DeleteFile delete, Map<Integer, PartitionSpec> specs) {
    if (delete.content() == FileContent.EQUALITY_DELETES) {
      return !isGlobal(delete, specs);
    }
    return !DeleteFiles.isFileScoped(delete);
  }

  private static PartitionKey keyOf(
      Map<Integer, Map<StructLikeWrapper, PartitionKey>> keys,
      PartitionSpec spec,
      ContentFile<?> file) {
    Map<StructLikeWrapper, PartitionKey> bySpec =
        keys.computeIfAbsent(spec.specId(), id -> new HashMap<>());
    StructLikeWrapper probe = StructLikeWrapper.forType(spec.partitionType()).set(file.partition());
    PartitionKey key = bySpec.get(probe);
    if (key == null) {
      key = PartitionKey.of(spec, file);
      bySpec.put(StructLikeWrapper.forType(spec.partitionType()).set(copy(file)), key);
    }
    return key;
  }

  private static StructLike copy(ContentFile<?> file) {
    return ((ContentFile<?>) file.copyWithoutStats()).partition();
  }
}
