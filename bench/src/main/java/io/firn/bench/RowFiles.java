/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.bench;

import java.io.IOException;
import java.util.Iterator;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.FanoutDataWriter;
import org.apache.iceberg.io.OutputFileFactory;

/**
 * Rows written into a table's Parquet data files with Iceberg's generic writer, one rolling file
 * per partition at a target size; the caller commits the files. What the soak's compacted reference
 * and its cold body both write.
 */
final class RowFiles {
  private RowFiles() {}

  /**
   * @param fileSeed the output files' operation id (names them apart from other writers')
   */
  static List<DataFile> write(Table table, long targetSize, long fileSeed, Iterator<Record> rows)
      throws IOException {
    Schema schema = table.schema();
    PartitionSpec spec = table.spec();
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table)
            .dataFileFormat(FileFormat.PARQUET)
            .dataSchema(schema)
            .build();
    OutputFileFactory files = OutputFileFactory.builderFor(table, 1, fileSeed).build();
    FanoutDataWriter<Record> writer =
        new FanoutDataWriter<>(writers, files, table.io(), targetSize);
    PartitionKey key = new PartitionKey(spec, schema);
    InternalRecordWrapper wrapper = new InternalRecordWrapper(schema.asStruct());
    try (writer) {
      while (rows.hasNext()) {
        Record row = rows.next();
        key.partition(wrapper.wrap(row));
        writer.write(row, spec, key);
      }
    }
    return writer.result().dataFiles();
  }
}
