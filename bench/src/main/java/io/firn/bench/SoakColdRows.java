/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The soak's cold body (bench/run-soak.sh --cold-rows N, docs/adr/0036): waits until the ingest
 * jobs have created the sampled table in both warehouses, then appends the same N rows to each, in
 * one commit per table next to the live writer. A production CDC table holds far more rows than its
 * last minutes of changes; without such a body the soak's table is only what the stream wrote so
 * far, and every fixed cost of a checkpoint's files weighs on a scan of a few MiB.
 *
 * <p>The rows are generated from the table's schema as the job created it: the identifier column
 * gets negative values (the stream's keys are positive, so no change of the stream ever touches a
 * cold row), every other column a seeded value of its type (strings from a small vocabulary, as the
 * stream's statuses, regions and customers are); columns the job adds later stay null.
 */
public final class SoakColdRows {
  private static final long TARGET_SIZE = 128L * 1024 * 1024;

  private SoakColdRows() {}

  public static void main(String[] argv) throws Exception {
    BenchArgs args = new BenchArgs(argv);
    long rows = args.getLong("rows", 1_000_000);
    long seed = args.getLong("seed", 1);
    TableIdentifier name = TableIdentifier.parse(args.get("table", "events.order_events"));
    long deadline = System.currentTimeMillis() + args.getLong("wait-seconds", 300) * 1000;
    for (String[] side :
        new String[][] {
          {args.get("optimized-uri"), args.get("optimized-warehouse")},
          {args.get("baseline-uri"), args.get("baseline-warehouse")}
        }) {
      Catalog catalog = SoakSampler.catalog(side[0], side[1]);
      Table table = waitFor(catalog, name, deadline);
      long started = System.nanoTime();
      long files = append(table, rows, seed);
      System.err.printf(
          "[cold-rows] %s in %s: %,d rows in %d file(s) appended in %.1f s%n",
          name, side[1], rows, files, (System.nanoTime() - started) / 1e9);
    }
  }

  private static Table waitFor(Catalog catalog, TableIdentifier name, long deadline)
      throws InterruptedException {
    while (true) {
      try {
        Table table = catalog.loadTable(name);
        if (table.currentSnapshot() != null) {
          return table;
        }
      } catch (NoSuchTableException e) {
        // the ingest job has not created it yet
      }
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException(
            "table " + name + " has no snapshot yet: is the ingest job writing?");
      }
      Thread.sleep(500);
    }
  }

  /** Appends {@code rows} generated rows in one commit; returns the number of files. */
  static long append(Table table, long rows, long seed) {
    Schema schema = table.schema();
    if (schema.identifierFieldIds().size() != 1) {
      throw new IllegalStateException(
          "table "
              + table.name()
              + " has identifier fields "
              + schema.identifierFieldIds()
              + "; cold rows need exactly one");
    }
    int key = schema.identifierFieldIds().iterator().next();
    // The columns of the schema the job created the table with: both warehouses' tables have it,
    // whatever columns the stream added to either since.
    Schema first = table.schemas().get(firstSchemaId(table));
    SplittableRandom random = new SplittableRandom(seed);
    // Sequential: the random values are drawn in key order, so both warehouses get the same rows.
    Iterator<Record> generated =
        LongStream.rangeClosed(1, rows)
            .mapToObj(
                i -> {
                  GenericRecord row = GenericRecord.create(schema);
                  for (Types.NestedField field : first.columns()) {
                    row.setField(
                        field.name(),
                        field.fieldId() == key
                            ? keyValue(field, -i)
                            : value(field.type(), random, i));
                  }
                  return (Record) row;
                })
            .iterator();
    List<DataFile> written;
    try {
      written = RowFiles.write(table, TARGET_SIZE, seed, generated);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write cold rows into " + table.name(), e);
    }
    AppendFiles append = table.newAppend().set("firn-bench.cold-rows", Long.toString(rows));
    written.forEach(append::appendFile);
    append.commit();
    return written.size();
  }

  private static int firstSchemaId(Table table) {
    return table.schemas().keySet().stream().mapToInt(Integer::intValue).min().orElseThrow();
  }

  private static Object keyValue(Types.NestedField field, long value) {
    return switch (field.type().typeId()) {
      case LONG -> value;
      case INTEGER -> Math.toIntExact(value);
      case STRING -> Long.toString(value);
      default ->
          throw new IllegalStateException(
              "identifier column "
                  + field.name()
                  + " is "
                  + field.type()
                  + ", not a number or string");
    };
  }

  private static final String[] WORDS = vocabulary();

  private static String[] vocabulary() {
    List<String> words = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      words.add("w" + i);
    }
    return words.toArray(new String[0]);
  }

  /** A seeded value of a primitive type; null for nested and other types. */
  private static Object value(Type type, SplittableRandom random, long i) {
    long epochSecond = 1_700_000_000L + i;
    return switch (type.typeId()) {
      case BOOLEAN -> random.nextBoolean();
      case INTEGER -> random.nextInt(1000);
      case LONG -> (long) random.nextInt(1000);
      case FLOAT -> (float) random.nextDouble(1000);
      case DOUBLE -> random.nextDouble(1000);
      case DECIMAL -> {
        Types.DecimalType decimal = (Types.DecimalType) type;
        long bound = (long) Math.pow(10, Math.min(8, decimal.precision()));
        yield BigDecimal.valueOf(random.nextLong(bound))
            .movePointLeft(decimal.scale())
            .setScale(decimal.scale(), RoundingMode.UNNECESSARY);
      }
      case STRING -> WORDS[random.nextInt(WORDS.length)];
      case DATE -> LocalDate.ofEpochDay(epochSecond / 86_400);
      case TIMESTAMP ->
          ((Types.TimestampType) type).shouldAdjustToUTC()
              ? OffsetDateTime.ofInstant(Instant.ofEpochSecond(epochSecond), ZoneOffset.UTC)
              : LocalDateTime.ofEpochSecond(epochSecond, 0, ZoneOffset.UTC);
      default -> null;
    };
  }
}
