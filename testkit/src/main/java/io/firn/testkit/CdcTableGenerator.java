/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.testkit;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Generates a format-version 2 table with the history a Flink upsert job leaves behind: many small
 * {@code RowDelta} commits, each with per-partition data, equality-delete and position-delete files
 * (see {@link CdcWriter}), and optionally a schema change and a partition-spec change.
 *
 * <p>Schema: {@code id long required} (identifier field and equality key), {@code region string},
 * {@code amount double}, {@code payload string} (40–80 characters), {@code updated_at long} (the
 * commit number), and after the schema change {@code note string optional}. Properties: {@code
 * format-version=2}, {@code write.upsert.enabled=true}. Partitioning: {@code bucket(buckets, id)}
 * (field {@code id_bucket_<n>}) or none.
 *
 * <p>History: {@link CdcTableSpec#commits()} data commits; with {@code schemaChange}, {@code note}
 * is added after {@code commits / 3} of them and later rows fill it (a quarter with null); with
 * {@code specChange}, the spec changes after {@code 2 * commits / 3} of them. After the spec change
 * only keys written with the new spec are updated or deleted, because partition-scoped equality
 * deletes apply only to data files of their own spec (see {@link CdcWriter}).
 *
 * <p>Deterministic: the same spec (seed included) gives the same rows, files and file contents;
 * only file paths differ.
 */
public final class CdcTableGenerator {
  private static final Logger LOG = LoggerFactory.getLogger(CdcTableGenerator.class);

  public static final String ID = "id";
  public static final String REGION = "region";
  public static final String AMOUNT = "amount";
  public static final String PAYLOAD = "payload";
  public static final String UPDATED_AT = "updated_at";
  public static final String NOTE = "note";

  private CdcTableGenerator() {}

  /** The schema a generated table is created with ({@code note} comes with the schema change). */
  public static Schema initialSchema() {
    return new Schema(
        List.of(
            Types.NestedField.required(1, ID, Types.LongType.get()),
            Types.NestedField.optional(2, REGION, Types.StringType.get()),
            Types.NestedField.optional(3, AMOUNT, Types.DoubleType.get()),
            Types.NestedField.optional(4, PAYLOAD, Types.StringType.get()),
            Types.NestedField.optional(5, UPDATED_AT, Types.LongType.get())),
        Set.of(1));
  }

  /** Name of the partition field {@code bucket(buckets, id)}. */
  public static String bucketField(int buckets) {
    return "id_bucket_" + buckets;
  }

  /**
   * Creates the table (and its namespace, if the catalog supports namespaces and it is missing),
   * writes the whole history and returns the table with a writer that continues the stream.
   *
   * @throws AlreadyExistsException if the table exists
   */
  public static GeneratedTable generate(Catalog catalog, TableIdentifier id, CdcTableSpec spec) {
    createNamespace(catalog, id);
    Schema schema = initialSchema();
    PartitionSpec partitionSpec =
        spec.initialBuckets() == 0
            ? PartitionSpec.unpartitioned()
            : PartitionSpec.builderFor(schema)
                .bucket(ID, spec.initialBuckets(), bucketField(spec.initialBuckets()))
                .build();
    catalog
        .buildTable(id, schema)
        .withPartitionSpec(partitionSpec)
        .withProperties(
            Map.of(TableProperties.FORMAT_VERSION, "2", TableProperties.UPSERT_ENABLED, "true"))
        .create();
    LOG.debug("{}: created with {}, generating {}", id, partitionSpec, spec);

    CdcWriter writer = new CdcWriter(catalog.loadTable(id), spec);
    for (int commit = 0; commit < spec.commits(); commit++) {
      if (spec.schemaChange() && commit == spec.schemaChangeAfter()) {
        addNote(writer.table());
      }
      if (spec.specChange() && commit == spec.specChangeAfter()) {
        changeSpec(writer.table(), spec);
      }
      int newKeys =
          Math.toIntExact(
              spec.rows() / spec.commits() + (commit < spec.rows() % spec.commits() ? 1 : 0));
      writer.commit(
          newKeys,
          (int) Math.round(newKeys * spec.updateRatio()),
          (int) Math.round(newKeys * spec.deleteRatio()),
          (int) Math.round(newKeys * spec.inCommitDuplicateRatio()),
          false);
    }
    LOG.debug("{}: generated {} commits", id, writer.commits());
    return new GeneratedTable(catalog.loadTable(id), writer, spec);
  }

  private static void createNamespace(Catalog catalog, TableIdentifier id) {
    if (catalog instanceof SupportsNamespaces namespaces
        && !id.namespace().isEmpty()
        && !namespaces.namespaceExists(id.namespace())) {
      try {
        namespaces.createNamespace(id.namespace());
      } catch (AlreadyExistsException e) {
        LOG.debug("{}: namespace created concurrently", id.namespace(), e);
      }
    }
  }

  private static void addNote(Table table) {
    table.updateSchema().addColumn(NOTE, Types.StringType.get()).commit();
    LOG.debug("{}: added column {}", table.name(), NOTE);
  }

  private static void changeSpec(Table table, CdcTableSpec spec) {
    if (spec.buckets() == 0) {
      int buckets = CdcTableSpec.UNPARTITIONED_SPEC_CHANGE_BUCKETS;
      table.updateSpec().addField(bucketField(buckets), Expressions.bucket(ID, buckets)).commit();
    } else {
      table
          .updateSpec()
          .removeField(bucketField(spec.initialBuckets()))
          .addField(bucketField(spec.buckets()), Expressions.bucket(ID, spec.buckets()))
          .commit();
    }
    LOG.debug("{}: partition spec is now {}", table.name(), table.spec());
  }
}
