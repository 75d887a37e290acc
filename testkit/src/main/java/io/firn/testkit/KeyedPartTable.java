/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionData;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;

/**
 * A format-version 2 table of {@code (id long, part string)} partitioned by {@code part}, and
 * Parquet files written into it by hand: data files, equality deletes by {@code id}, position
 * deletes. Nothing is committed; the test commits what it arranges.
 */
public final class KeyedPartTable {
  public static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.required(2, "part", Types.StringType.get()));
  public static final PartitionSpec SPEC =
      PartitionSpec.builderFor(SCHEMA).identity("part").build();

  private final Table table;
  private final GenericFileWriterFactory writers;
  private final OutputFileFactory files;

  private KeyedPartTable(Table table) {
    this.table = table;
    this.writers =
        new GenericFileWriterFactory.Builder(table)
            .dataFileFormat(FileFormat.PARQUET)
            .deleteFileFormat(FileFormat.PARQUET)
            .equalityFieldIds(new int[] {1})
            .equalityDeleteRowSchema(SCHEMA.select("id"))
            .build();
    this.files = OutputFileFactory.builderFor(table, 1, 1).build();
  }

  /** Creates the table in the catalog. */
  public static KeyedPartTable create(Catalog catalog, TableIdentifier identifier) {
    return new KeyedPartTable(
        catalog.createTable(identifier, SCHEMA, SPEC, Map.of("format-version", "2")));
  }

  public Table table() {
    return table;
  }

  /** A data file in partition {@code part} with one row per id. */
  public DataFile data(String part, long... ids) {
    DataWriter<Record> writer =
        writers.newDataWriter(files.newOutputFile(SPEC, partition(part)), SPEC, partition(part));
    try (writer) {
      for (long id : ids) {
        Record row = GenericRecord.create(SCHEMA);
        row.setField("id", id);
        row.setField("part", part);
        writer.write(row);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDataFile();
  }

  /** An equality-delete file in partition {@code part} deleting the row with this id. */
  public DeleteFile equalityDelete(String part, long id) {
    EqualityDeleteWriter<Record> writer =
        writers.newEqualityDeleteWriter(
            files.newOutputFile(SPEC, partition(part)), SPEC, partition(part));
    try (writer) {
      Record key = GenericRecord.create(SCHEMA.select("id"));
      key.setField("id", id);
      writer.write(key);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDeleteFile();
  }

  /** A position-delete file in partition {@code part} deleting one position of a data file. */
  public DeleteFile positionDelete(String part, String path, long position) {
    PositionDeleteWriter<Record> writer =
        writers.newPositionDeleteWriter(
            files.newOutputFile(SPEC, partition(part)), SPEC, partition(part));
    try (writer) {
      PositionDelete<Record> delete = PositionDelete.create();
      writer.write(delete.set(path, position));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDeleteFile();
  }

  private static PartitionData partition(String part) {
    PartitionData data = new PartitionData(SPEC.partitionType());
    data.set(0, part);
    return data;
  }
}
