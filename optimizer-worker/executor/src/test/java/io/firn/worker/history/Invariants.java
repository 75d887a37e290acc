/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.history;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.ContentFileUtil;

/**
 * The checks after a step, each computed from Iceberg's reads and Iceberg's documented rules only:
 *
 * <ul>
 *   <li>{@link #compare}: the table's rows equal the model's (same keys, every column equal and of
 *       the same type, no key twice) — the promise itself;
 *   <li>{@link #files}: after a Firn or maintenance step, only data files a committed partition
 *       rewrote are gone; new data files carry the planning snapshot's sequence number and hold
 *       only rows of their own partition (read raw, without partition values from metadata); Firn
 *       adds only position deletes; and no removed delete file would still delete a live row.
 * </ul>
 */
final class Invariants {
  private static final int EXAMPLES = 6;

  private Invariants() {}

  /** The live files of the current snapshot, by location. */
  record Files(Map<String, DataFile> data, Map<String, DeleteFile> deletes) {
    static Files of(Table table) {
      return new Files(TableReads.liveDataFiles(table), TableReads.liveDeleteFiles(table));
    }
  }

  /**
   * Null when the table equals the model; otherwise what differs, key by key.
   *
   * @param rows the table's live rows by key
   */
  static String compare(ReferenceModel model, Table table, Map<Long, List<Record>> rows) {
    Map<String, String> columns = new LinkedHashMap<>();
    for (Types.NestedField field : table.schema().columns()) {
      columns.put(field.name(), Rows.typeName(field.type()));
    }
    if (!columns.equals(model.columns())) {
      return "the table's columns " + columns + " differ from the model's " + model.columns();
    }
    Set<Long> keys = new TreeSet<>(rows.keySet());
    keys.addAll(model.rows().keySet());
    List<String> duplicated = new ArrayList<>();
    List<String> resurrected = new ArrayList<>();
    List<String> lost = new ArrayList<>();
    List<String> changed = new ArrayList<>();
    for (long key : keys) {
      Map<String, Object> expected = model.row(key);
      List<Record> actual = rows.getOrDefault(key, List.of());
      List<Map<String, Object>> actualRows = new ArrayList<>();
      actual.forEach(r -> actualRows.add(Rows.asMap(table.schema(), r)));
      String example = "key " + key + ": expected " + expected + ", table has " + actualRows;
      if (actual.isEmpty()) {
        lost.add(example);
      } else if (actual.size() > 1) {
        duplicated.add(example);
      } else if (expected == null) {
        resurrected.add(example);
      } else if (!Rows.sameRow(expected, actualRows.get(0))) {
        changed.add(example);
      }
    }
    if (duplicated.isEmpty() && resurrected.isEmpty() && lost.isEmpty() && changed.isEmpty()) {
      return null;
    }
    StringBuilder text =
        new StringBuilder(
            String.format(
                "%d keys duplicated, %d resurrected (deleted in the model, live in the table), %d"
                    + " lost, %d with other values; model has %d keys, table %d rows",
                duplicated.size(),
                resurrected.size(),
                lost.size(),
                changed.size(),
                model.size(),
                rows.values().stream().mapToInt(List::size).sum()));
    examples(text, "duplicated", duplicated);
    examples(text, "resurrected", resurrected);
    examples(text, "lost", lost);
    examples(text, "changed", changed);
    return text.toString();
  }

  private static void examples(StringBuilder text, String what, List<String> examples) {
    if (examples.isEmpty()) {
      return;
    }
    text.append("\n  ").append(what).append(" keys ");
    List<Long> keys = new ArrayList<>();
    for (String example : examples) {
      keys.add(Long.parseLong(example.substring(4, example.indexOf(':'))));
    }
    text.append(Notation.keys(keys));
    for (String example : examples.subList(0, Math.min(EXAMPLES, examples.size()))) {
      text.append("\n    ").append(example);
    }
  }

  /**
   * Null when the file-level rules hold between two states of the table around one step.
   *
   * @param live the live rows after the step
   * @param allowedRewrites data files the step's committed partitions planned to rewrite
   * @param sequenceNumbers the planning snapshots' sequence numbers
   * @param plannedRemovals delete files the plans meant to remove (others are removed implicitly by
   *     Iceberg; both must be no longer needed)
   * @param firnStep whether Firn may add files in this step (maintenance adds none)
   */
  static String files(
      Table table,
      List<TableReads.LiveRow> live,
      Files before,
      Files after,
      Set<String> allowedRewrites,
      Set<Long> sequenceNumbers,
      Set<String> plannedRemovals,
      boolean firnStep) {
    List<String> problems = new ArrayList<>();
    for (DataFile file : before.data().values()) {
      if (!after.data().containsKey(file.location())
          && !allowedRewrites.contains(file.location())) {
        problems.add(
            "data file "
                + describe(table, file)
                + " is gone, but no partition committed in this step planned to rewrite it");
      }
    }
    for (DataFile file : after.data().values()) {
      if (before.data().containsKey(file.location())) {
        continue;
      }
      if (!firnStep) {
        problems.add("maintenance added data file " + describe(table, file));
        continue;
      }
      if (!sequenceNumbers.contains(file.dataSequenceNumber())) {
        problems.add(
            "Firn's new data file "
                + describe(table, file)
                + " has data sequence number "
                + file.dataSequenceNumber()
                + "; the planning snapshot's is "
                + sequenceNumbers
                + " (ARCHITECTURE.md, 'Committing next to live writers': rewrites keep seq(S))");
      }
      String misplaced = misplacedRow(table, file);
      if (misplaced != null) {
        problems.add(misplaced);
      }
    }
    for (DeleteFile file : after.deletes().values()) {
      if (before.deletes().containsKey(file.location())) {
        continue;
      }
      if (!firnStep || file.content() != FileContent.POSITION_DELETES) {
        problems.add(
            (firnStep ? "Firn" : "maintenance")
                + " added delete file "
                + describe(table, file)
                + " ("
                + file.content()
                + "); Firn writes position deletes only");
      }
    }
    List<DeleteFile> removed = new ArrayList<>();
    for (DeleteFile file : before.deletes().values()) {
      if (!after.deletes().containsKey(file.location())) {
        removed.add(file);
      }
    }
    if (!removed.isEmpty()) {
      stillNeeded(table, live, removed, plannedRemovals, problems);
    }
    if (problems.isEmpty()) {
      return null;
    }
    return problems.size()
        + " file-level problem(s):\n  "
        + String.join("\n  ", problems.subList(0, Math.min(20, problems.size())));
  }

  /** A removed delete file that would still delete a live row changed the rows. */
  private static void stillNeeded(
      Table table,
      List<TableReads.LiveRow> live,
      List<DeleteFile> removed,
      Set<String> planned,
      List<String> problems) {
    Map<Long, List<TableReads.LiveRow>> byKey = new HashMap<>();
    Map<TableReads.Position, TableReads.LiveRow> byPosition = new HashMap<>();
    for (TableReads.LiveRow row : live) {
      byKey.computeIfAbsent(row.key(), k -> new ArrayList<>()).add(row);
      byPosition.put(new TableReads.Position(row.path(), row.pos()), row);
    }
    for (DeleteFile delete : removed) {
      long seq = delete.dataSequenceNumber();
      String how = planned.contains(delete.location()) ? "planned removal" : "implicit removal";
      String where = TableReads.partitionOf(table, delete);
      boolean global = table.specs().get(delete.specId()).isUnpartitioned();
      List<String> rows = new ArrayList<>();
      if (delete.content() == FileContent.EQUALITY_DELETES) {
        for (long key : TableReads.equalityKeys(table, delete)) {
          for (TableReads.LiveRow row : byKey.getOrDefault(key, List.of())) {
            if (row.file().dataSequenceNumber() < seq
                && (global || where.equals(TableReads.partitionOf(table, row.file())))) {
              rows.add("key " + key + " in " + describe(table, row.file()));
            }
          }
        }
      } else {
        boolean fileScoped = ContentFileUtil.isFileScoped(delete);
        for (TableReads.Position position : TableReads.positions(table, delete)) {
          TableReads.LiveRow row = byPosition.get(position);
          if (row != null
              && row.file().dataSequenceNumber() <= seq
              && (fileScoped || where.equals(TableReads.partitionOf(table, row.file())))) {
            rows.add(
                "key "
                    + row.key()
                    + " at "
                    + position.pos()
                    + " of "
                    + describe(table, row.file()));
          }
        }
      }
      if (!rows.isEmpty()) {
        problems.add(
            delete.content()
                + " file "
                + describe(table, delete)
                + " was removed ("
                + how
                + ") but still deletes "
                + rows.size()
                + " live row(s), e.g. "
                + String.join("; ", rows.subList(0, Math.min(EXAMPLES, rows.size()))));
      }
    }
  }

  /** A row of a new data file whose values belong to another partition, or null. */
  private static String misplacedRow(Table table, DataFile file) {
    PartitionSpec spec = table.specs().get(file.specId());
    if (spec.isUnpartitioned()) {
      return null;
    }
    Schema projection = table.schema().select("id", "cat");
    String expected = spec.partitionToPath(file.partition());
    PartitionKey key = new PartitionKey(spec, projection);
    for (Record record : TableReads.rawRecords(table, file, projection)) {
      key.partition(record);
      String actual = spec.partitionToPath(key);
      if (!actual.equals(expected)) {
        return "Firn's new data file "
            + describe(table, file)
            + " holds key "
            + record.getField("id")
            + " of partition "
            + actual;
      }
    }
    return null;
  }

  static String describe(Table table, org.apache.iceberg.ContentFile<?> file) {
    String path = file.location();
    return path.substring(path.lastIndexOf('/') + 1)
        + " [spec "
        + file.specId()
        + " "
        + table.specs().get(file.specId()).partitionToPath(file.partition())
        + ", seq "
        + file.dataSequenceNumber()
        + ", "
        + file.recordCount()
        + " rows]";
  }
}
