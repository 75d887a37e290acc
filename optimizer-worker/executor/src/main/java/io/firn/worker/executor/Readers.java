/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.executor;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.types.Type;

/** Opens data and delete files as generic records through Iceberg's format model registry. */
final class Readers {
  private Readers() {}

  /**
   * Reads every row of a file in file order (no filter, no split), so the n-th record has position
   * n; containers are reused, callers must not keep records.
   */
  static CloseableIterable<Record> open(
      FileIO io, ContentFile<?> file, Schema projection, Map<Integer, ?> constants) {
    return FormatModelRegistry.<Record, Object>readBuilder(
            file.format(), Record.class, io.newInputFile(file.location(), file.fileSizeInBytes()))
        .project(projection)
        .idToConstant(constants)
        .reuseContainers()
        .build();
  }

  /**
   * Identity partition values as read constants, as Iceberg's own readers do: files written by some
   * tools omit identity partition columns.
   */
  static Map<Integer, ?> constants(PartitionSpec spec, StructLike partition, Schema projection) {
    List<PartitionField> fields = spec.fields();
    if (fields.isEmpty()) {
      return Map.of();
    }
    Map<Integer, Object> constants = new HashMap<>();
    for (int i = 0; i < fields.size(); i++) {
      PartitionField field = fields.get(i);
      if (field.transform().isIdentity() && projection.findField(field.sourceId()) != null) {
        Type type = spec.partitionType().fields().get(i).type();
        constants.put(
            field.sourceId(),
            IdentityPartitionConverters.convertConstant(type, partition.get(i, Object.class)));
      }
    }
    return constants;
  }
}
