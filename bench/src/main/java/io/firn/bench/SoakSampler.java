/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.bench;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.io.CloseableIterable;

/**
 * The soak benchmark's sampler ({@code bench/run-soak.sh}, docs/adr/0036): every interval, for an
 * optimized and a baseline copy of one table, the live files of the current snapshot (read from its
 * manifests; how many manifests hold live files), and a full scan with deletes applied by Iceberg's
 * generic reader (row count, checksum, wall time). Every {@code --reference-every} samples the
 * optimized table's rows are written, as Iceberg's generic writer writes them at the target size,
 * into a scratch table (the fully compacted reference); then the optimized table and the reference
 * are scanned in 7 more rounds ({@code --paired-rounds}, at least 3), the order alternating from
 * round to round, and each keeps its best time, so that the ratio between the two does not depend
 * on which was read first. Uses no Firn code: Iceberg's own JDBC catalog and {@code HadoopFileIO}.
 *
 * <pre>
 * --optimized-uri U --optimized-warehouse W --baseline-uri U --baseline-warehouse W
 * --table events.order_events --interval-seconds 60 --out DIR --stop-file FILE
 * [--reference-every 1] [--target-size 16777216] [--scan-repeats 2] [--paired-rounds 7]
 * [--phase-seed 1]
 * </pre>
 *
 * <p>Each sample after the first is taken at a seeded random moment within its interval ({@code
 * --phase-seed 0}: at its start), so that the samples do not lock onto the writer's checkpoint
 * period.
 *
 * <p>Appends one line per variant and sample to {@code DIR/samples.csv}; the sampling ends after
 * the sample that follows the appearance of {@code FILE} (that last sample is marked final).
 */
public final class SoakSampler {
  static final String HEADER =
      "sample,time_utc,elapsed_s,final,variant,snapshot_id,data_files,eq_delete_files,"
          + "pos_delete_files,data_bytes,delete_bytes,data_records,eq_delete_records,"
          + "pos_delete_records,rows,checksum,scan_ms,manifests";

  private final Catalog optimizedCatalog;
  private final Catalog baselineCatalog;
  private final TableIdentifier table;
  private final Path out;
  private final long targetSize;
  private final int scanRepeats;
  private final int pairedRounds;

  private SoakSampler(BenchArgs args) {
    this.optimizedCatalog = catalog(args.get("optimized-uri"), args.get("optimized-warehouse"));
    this.baselineCatalog = catalog(args.get("baseline-uri"), args.get("baseline-warehouse"));
    this.table = TableIdentifier.parse(args.get("table", "events.order_events"));
    this.out = Path.of(args.get("out"));
    this.targetSize = args.getLong("target-size", 16L * 1024 * 1024);
    this.scanRepeats = (int) args.getLong("scan-repeats", 2);
    // Best of 3 rounds still left two scans of one and the same file 1.4x apart on a 2-core
    // machine busy with two ingest jobs and the server (2026-12-06); 7 rounds cost a few seconds.
    this.pairedRounds = Math.max(3, (int) args.getLong("paired-rounds", 7));
  }

  public static void main(String[] argv) throws Exception {
    BenchArgs args = new BenchArgs(argv);
    SoakSampler sampler = new SoakSampler(args);
    long intervalMillis = args.getLong("interval-seconds", 60) * 1000;
    long referenceEvery = args.getLong("reference-every", 1);
    Path stopFile = Path.of(args.get("stop-file"));
    Phases phases = new Phases(args.getLong("phase-seed", 1));
    Files.createDirectories(sampler.out);
    Path csv = sampler.out.resolve("samples.csv");
    boolean fresh = !Files.exists(csv);
    long start = System.currentTimeMillis();
    try (PrintWriter writer =
        new PrintWriter(
            Files.newBufferedWriter(
                csv,
                StandardCharsets.UTF_8,
                java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.APPEND),
            true)) {
      if (fresh) {
        writer.println(HEADER);
      }
      for (int sample = 0; ; sample++) {
        // Sample k is taken at a seeded random moment of interval k, not at its start: the ingest
        // job commits on a fixed period too (a 10 s checkpoint divides a 60 s interval), so fixed
        // times would catch every sample at the same point of the writer's and the optimizer's
        // cycle (always just after a checkpoint, or always just after its minor) and show one
        // state of the table, not how it scans over time (docs/adr/0036).
        long due = start + sample * intervalMillis + phases.offset(sample, intervalMillis);
        long wait = due - System.currentTimeMillis();
        while (wait > 0 && !Files.exists(stopFile)) {
          Thread.sleep(Math.min(wait, 1000));
          wait = due - System.currentTimeMillis();
        }
        boolean last = Files.exists(stopFile);
        long now = System.currentTimeMillis();
        boolean reference = sample % referenceEvery == 0 || last;
        List<String> lines = sampler.sample(sample, now, (now - start) / 1000.0, last, reference);
        lines.forEach(writer::println);
        lines.forEach(System.out::println);
        if (last) {
          return;
        }
      }
    }
  }

  /**
   * Where in its interval each sample falls: a seeded random fraction, the same for a seed from run
   * to run; seed 0 takes every sample at the start of its interval. Sample 0 is at the start.
   */
  static final class Phases {
    private final long seed;

    Phases(long seed) {
      this.seed = seed;
    }

    long offset(int sample, long intervalMillis) {
      if (seed == 0 || sample == 0) {
        return 0;
      }
      return (long)
          (new SplittableRandom(seed * 1_000_003L + sample).nextDouble() * intervalMillis);
    }
  }

  static Catalog catalog(String uri, String warehouse) {
    // The ingest job's catalog name: Iceberg's JDBC catalog keys its tables by it.
    return CatalogUtil.buildIcebergCatalog(
        "firn", Map.of("type", "jdbc", "uri", uri, "warehouse", warehouse), new Configuration());
  }

  private List<String> sample(int sample, long now, double elapsed, boolean last, boolean reference)
      throws IOException {
    String prefix =
        sample
            + ","
            + Instant.ofEpochMilli(now)
            + ","
            + String.format(Locale.ROOT, "%.1f", elapsed);
    List<String> lines = new ArrayList<>();
    List<Record> rows = reference ? new ArrayList<>() : null;
    Table optimized = load(optimizedCatalog);
    String measured = safely(() -> measure(optimized, rows));
    if (reference && optimized != null && !measured.startsWith("-1")) {
      String[] compacted = {null};
      String paired =
          safely(
              () -> {
                Table scratch = compacted(optimized, rows, sample);
                compacted[0] = measure(scratch, null);
                return pairedScans(optimized, scratch, measured, compacted);
              });
      boolean pairedOk = compacted[0] != null && !paired.startsWith("-1");
      lines.add(prefix + "," + last + ",optimized," + (pairedOk ? paired : measured));
      if (compacted[0] != null) {
        lines.add(prefix + "," + last + ",compacted," + compacted[0]);
      }
    } else {
      lines.add(prefix + "," + last + ",optimized," + measured);
    }
    Table baseline = load(baselineCatalog);
    lines.add(prefix + "," + last + ",baseline," + safely(() -> measure(baseline, null)));
    return lines;
  }

  private interface Measurement {
    String run() throws IOException;
  }

  /** A failed measurement is a row of -1 (the error on stderr): one bad sample ends nothing. */
  private static String safely(Measurement measurement) {
    try {
      return measurement.run();
    } catch (IOException | RuntimeException e) {
      System.err.println("sample failed: " + e);
      return "-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,0,-1,-1";
    }
  }

  private Table load(Catalog catalog) {
    try {
      return catalog.loadTable(table);
    } catch (org.apache.iceberg.exceptions.NoSuchTableException e) {
      return null; // the ingest job has not created it yet
    }
  }

  /** Files, bytes and a timed full scan of the table's current snapshot. */
  private String measure(Table table, List<Record> keep) throws IOException {
    if (table == null || table.currentSnapshot() == null) {
      return "0,0,0,0,0,0,0,0,0,0,0,0,0";
    }
    Snapshot snapshot = table.currentSnapshot();
    long dataFiles = 0;
    long dataBytes = 0;
    long dataRecords = 0;
    for (ManifestFile manifest : snapshot.dataManifests(table.io())) {
      try (ManifestReader<DataFile> reader =
          ManifestFiles.read(manifest, table.io(), table.specs())) {
        for (DataFile file : reader) {
          dataFiles++;
          dataBytes += file.fileSizeInBytes();
          dataRecords += file.recordCount();
        }
      }
    }
    long eqFiles = 0;
    long posFiles = 0;
    long deleteBytes = 0;
    long eqRecords = 0;
    long posRecords = 0;
    for (ManifestFile manifest : snapshot.deleteManifests(table.io())) {
      try (ManifestReader<DeleteFile> reader =
          ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
        for (DeleteFile file : reader) {
          deleteBytes += file.fileSizeInBytes();
          if (file.content() == FileContent.EQUALITY_DELETES) {
            eqFiles++;
            eqRecords += file.recordCount();
          } else {
            posFiles++;
            posRecords += file.recordCount();
          }
        }
      }
    }
    // The manifests a reader plans from: those with live files (Iceberg's planning skips the ones
    // that only record the files this snapshot removed).
    long manifests =
        snapshot.allManifests(table.io()).stream()
            .filter(m -> m.hasAddedFiles() || m.hasExistingFiles())
            .count();
    Scan scan = scan(table, snapshot.snapshotId(), keep);
    return String.join(
        ",",
        Long.toString(snapshot.snapshotId()),
        Long.toString(dataFiles),
        Long.toString(eqFiles),
        Long.toString(posFiles),
        Long.toString(dataBytes),
        Long.toString(deleteBytes),
        Long.toString(dataRecords),
        Long.toString(eqRecords),
        Long.toString(posRecords),
        Long.toString(scan.rows),
        Long.toHexString(scan.checksum),
        Long.toString(scan.millis),
        Long.toString(manifests));
  }

  private record Scan(long rows, long checksum, long millis) {}

  /**
   * Reads every live row with deletes applied: the best of {@code scanRepeats} timings (one when
   * the first takes over 5 s, where noise matters less than the sampler's own duration).
   */
  private Scan scan(Table table, long snapshotId, List<Record> keep) throws IOException {
    long best = Long.MAX_VALUE;
    long rows = 0;
    long checksum = 0;
    for (int round = 0; round < Math.max(1, scanRepeats); round++) {
      Scan scan = scanOnce(table, snapshotId, keep != null && round == 0 ? keep : null);
      rows = scan.rows;
      checksum = scan.checksum;
      best = Math.min(best, scan.millis);
      if (scan.millis > 5_000) {
        break;
      }
    }
    return new Scan(rows, checksum, best);
  }

  /**
   * One timed full scan with deletes applied; {@code kept}, when given, gets a copy of every row.
   */
  private static Scan scanOnce(Table table, long snapshotId, List<Record> kept) throws IOException {
    // A reader applying position deletes appends _pos to each record: only the table's columns
    // count.
    int columns = table.schema().columns().size();
    long began = System.nanoTime();
    long rows = 0;
    long checksum = 0;
    try (CloseableIterable<Record> records =
        IcebergGenerics.read(table).useSnapshot(snapshotId).build()) {
      for (Record record : records) {
        rows++;
        checksum += rowHash(record, columns);
        if (kept != null) {
          kept.add(record.copy());
        }
      }
    }
    return new Scan(rows, checksum, (System.nanoTime() - began) / 1_000_000);
  }

  /** An order-independent checksum term: a mixed hash of the first {@code columns} values. */
  static long rowHash(Record record, int columns) {
    long hash = 1;
    for (int i = 0; i < columns; i++) {
      Object value = record.get(i);
      hash = hash * 1_000_003 + (value == null ? 0 : value.toString().hashCode());
    }
    hash ^= hash >>> 33;
    hash *= 0xff51afd7ed558ccdL;
    hash ^= hash >>> 33;
    return hash;
  }

  /**
   * Times the optimized table and its compacted copy against each other: {@code pairedRounds} more
   * rounds (7 unless told) of one full scan of each, the order alternating from round to round, so
   * that neither variant is always the one read right after the copy was written or while the
   * machine was busy; each variant keeps the best of its own timings, its first scan included.
   * Returns the optimized line with its scan time replaced, and replaces the compacted one's in
   * {@code compacted[0]}.
   *
   * @throws IllegalStateException when a repeated scan reads other rows than the first
   */
  private String pairedScans(
      Table optimized, Table compacted, String optimizedLine, String[] compactedLine)
      throws IOException {
    String[] optimizedFields = optimizedLine.split(",");
    String[] compactedFields = compactedLine[0].split(",");
    long optimizedSnapshot = Long.parseLong(optimizedFields[0]);
    long compactedSnapshot = Long.parseLong(compactedFields[0]);
    long optimizedBest = Long.parseLong(optimizedFields[11]);
    long compactedBest = Long.parseLong(compactedFields[11]);
    for (int round = 0; round < pairedRounds; round++) {
      for (int turn = 0; turn < 2; turn++) {
        boolean optimizedTurn = (round + turn) % 2 == 1;
        Table table = optimizedTurn ? optimized : compacted;
        String[] fields = optimizedTurn ? optimizedFields : compactedFields;
        long snapshot = optimizedTurn ? optimizedSnapshot : compactedSnapshot;
        Scan scan = scanOnce(table, snapshot, null);
        if (scan.rows != Long.parseLong(fields[9])
            || !Long.toHexString(scan.checksum).equals(fields[10])) {
          throw new IllegalStateException(
              "a repeated scan of snapshot " + snapshot + " read other rows than its first");
        }
        if (optimizedTurn) {
          optimizedBest = Math.min(optimizedBest, scan.millis);
        } else {
          compactedBest = Math.min(compactedBest, scan.millis);
        }
      }
    }
    optimizedFields[11] = Long.toString(optimizedBest);
    compactedFields[11] = Long.toString(compactedBest);
    compactedLine[0] = String.join(",", compactedFields);
    return String.join(",", optimizedFields);
  }

  /**
   * Writes {@code rows} (the optimized table's live rows) into a new scratch table with the same
   * schema, spec and properties, at the target size, and measures it like the others.
   */
  private Table compacted(Table source, List<Record> rows, int sample) throws IOException {
    Path root = out.resolve("compacted");
    deleteTree(root);
    Map<String, String> properties = new java.util.HashMap<>(source.properties());
    properties.put(TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, Long.toString(targetSize));
    properties.put(TableProperties.FORMAT_VERSION, "2");
    Schema schema = source.schema();
    PartitionSpec spec = source.spec();
    Table scratch =
        new HadoopTables(new Configuration())
            .create(
                schema,
                spec,
                source.sortOrder(),
                properties,
                root.resolve("s" + sample).toString());
    AppendFiles append = scratch.newAppend();
    RowFiles.write(scratch, targetSize, sample, rows.iterator()).forEach(append::appendFile);
    append.commit();
    scratch.refresh();
    return scratch;
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }
}
