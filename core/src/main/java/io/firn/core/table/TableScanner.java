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
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.UnboundTerm;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.StructLikeWrapper;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the live files of a table at one snapshot, grouped by partition, with the deletes that
 * Iceberg's own scan planning attaches to every data file. This is the expensive read (every
 * manifest of the snapshot); {@link TableEvaluator} decides from cheap signals whether and for
 * which partitions it is worth it.
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
   * Reads only the given partitions, pushing them into Iceberg's scan as a filter so manifests of
   * other partitions are skipped when every partition field is an identity or bucket transform
   * (exact, cheap projections); otherwise reads every manifest and keeps only these partitions.
   * Never reports deletes spanning partitions as removable ({@link TableFiles#complete()} is
   * false), nor a delete that may apply outside these partitions as dangling or removable ({@link
   * TableFiles#partlyReadDeletes()}).
   */
  public static TableFiles scan(
      Table table, long snapshotId, Map<PartitionKey, StructLike> partitions) {
    Expression filter = Expressions.alwaysFalse();
    for (Map.Entry<PartitionKey, StructLike> entry : partitions.entrySet()) {
      Expression one = partitionFilter(table, entry.getKey().specId(), entry.getValue());
      if (one == null) {
        filter = Expressions.alwaysTrue();
        break;
      }
      filter = Expressions.or(filter, one);
    }
    return scan(table, snapshotId, partitions::containsKey, filter, false);
  }

  /** Equality on each partition field, or null when a transform is not identity or bucket. */
  private static @Nullable Expression partitionFilter(Table table, int specId, StructLike tuple) {
    PartitionSpec spec = spec(table.specs(), specId);
    Expression all = Expressions.alwaysTrue();
    List<PartitionField> fields = spec.fields();
    for (int i = 0; i < fields.size(); i++) {
      PartitionField field = fields.get(i);
      String source = table.schema().findColumnName(field.sourceId());
      if (source == null) {
        return null;
      }
      String transform = field.transform().toString();
      Object value = tuple.get(i, Object.class);
      UnboundTerm<Object> term;
      if (field.transform().isIdentity()) {
        term = Expressions.ref(source);
      } else if (transform.startsWith("bucket[")) {
        int buckets = Integer.parseInt(transform.substring(7, transform.length() - 1));
        term = Expressions.bucket(source, buckets);
      } else {
        return null;
      }
      all =
          Expressions.and(
              all, value == null ? Expressions.isNull(term) : Expressions.equal(term, value));
    }
    return all;
  }

  /**
   * Reads the files of the partitions accepted by {@code partitions} at {@code snapshotId}.
   *
   * @throws UncheckedIOException when a manifest cannot be read; the message names the table
   */
  public static TableFiles scan(Table table, long snapshotId, Predicate<PartitionKey> partitions) {
    return scan(table, snapshotId, partitions, Expressions.alwaysTrue(), true);
  }

  private static TableFiles scan(
      Table table,
      long snapshotId,
      Predicate<PartitionKey> partitions,
      Expression filter,
      boolean mayBeComplete) {
    Snapshot snapshot = table.snapshot(snapshotId);
    if (snapshot == null) {
      throw new IllegalArgumentException(
          "table " + table.name() + " has no snapshot " + snapshotId + " (expired?)");
    }
    long started = System.nanoTime();
    Map<Integer, PartitionSpec> specs = table.specs();
    TreeMap<PartitionKey, PartitionFiles> byPartition = new TreeMap<>();
    Map<String, Set<PartitionKey>> deleteScopes = new HashMap<>();
    Set<String> globalAttached = new HashSet<>();
    // One StructLike copy per distinct partition, shared by its files.
    Map<Integer, Map<StructLikeWrapper, PartitionKey>> keys = new HashMap<>();
    boolean complete = mayBeComplete;
    long dataFiles = 0;
    try (CloseableIterable<FileScanTask> tasks =
        table.newScan().useSnapshot(snapshotId).filter(filter).planFiles()) {
      for (FileScanTask task : tasks) {
        DataFile file = task.file();
        PartitionSpec spec = spec(specs, file.specId());
        PartitionKey key = keyOf(keys, spec, file);
        if (!partitions.test(key)) {
          complete = false;
          continue;
        }
        PartitionFiles partition =
            byPartition.computeIfAbsent(key, k -> new PartitionFiles(k, spec, copy(file)));
        partition.add(new DataFileEntry(file, task.deletes()));
        for (DeleteFile delete : task.deletes()) {
          deleteScopes.computeIfAbsent(delete.location(), l -> new HashSet<>(2)).add(key);
          if (isGlobal(delete, specs)) {
            globalAttached.add(delete.location());
          }
        }
        dataFiles++;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot close the scan of table " + table.name(), e);
    }

    List<DeleteFile> globalDangling = new ArrayList<>();
    long deleteFiles = 0;
    for (ManifestFile manifest : snapshot.deleteManifests(table.io())) {
      try (ManifestReader<DeleteFile> reader =
          ManifestFiles.readDeleteManifest(manifest, table.io(), specs)) {
        for (DeleteFile delete : reader) {
          deleteFiles++;
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
            partition.addDangling(delete.copy());
          } else if (spec.isUnpartitioned() && complete) {
            globalDangling.add(delete.copy());
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(
            "cannot read delete manifest " + manifest.path() + " of table " + table.name(), e);
      }
    }
    LOG.debug(
        "Scanned {} at snapshot {}: {} data files in {} partitions, {} delete files, {} ms",
        table.name(),
        snapshotId,
        dataFiles,
        byPartition.size(),
        deleteFiles,
        (System.nanoTime() - started) / 1_000_000);
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

  /**
   * An equality delete of an unpartitioned spec: Iceberg applies it to data files of every spec and
   * partition with a lower data sequence number.
   */
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
